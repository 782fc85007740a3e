//! Training a Marian-architecture encoder-decoder to translate, from pairs of texts: a file of
//! lines `source<TAB>target`. The run trains its own byte-level BPE on the training pairs (one
//! vocabulary for both languages, as Marian shares one; `</s>`, `<unk>`, `<pad>` first), holds
//! out a share of the pairs, and minimises the decoder's cross-entropy with teacher forcing:
//! the decoder reads `<pad>` (Marian's start token) then the target, and predicts the target
//! then `</s>`. The same forward pass that traces the model is differentiated (candle's
//! autograd), with the decoder-only runs' AdamW, schedule and clipping. Checkpoints are
//! Hugging Face folders (config.json, model.safetensors, tokenizer.json) that transformers'
//! `MarianMTModel` loads, with training_log.json beside them; each evaluation also translates
//! the run's sample sentences greedily, so the log shows what the model can do as it learns.

use super::adamw::{clip_grad_norm, AdamW, AdamWConfig};
use super::checkpoint::model_bytes;
use super::error::{TrainError, TrainResult};
use super::folder;
use super::params::Params;
use super::rng::Rng;
use super::schedule::learning_rate;
use super::settings::Settings;
use super::slices::with_f32;
use crate::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use crate::recorder::NoRecorder;
use crate::seq2seq::{testmodel, Seq2Seq};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tracebook_tokenizer::{train_byte_level_bpe, Tokenizer};

/// The special tokens, in id order: end of text, unknown, padding (the decoder's start).
pub const SPECIAL: [&str; 3] = ["</s>", "<unk>", "<pad>"];

/// One invocation of `tracebook train --pairs`.
#[derive(Debug, Clone)]
pub struct TranslationRun {
    /// Lines `source<TAB>target`.
    pub pairs: PathBuf,
    pub out: PathBuf,
    /// Steps, batch size (pairs per step), learning rate and its schedule, decay, clipping,
    /// seed, held-out share, evaluation and checkpoint periods, weight dtype; of its
    /// architecture: `layers` (each stack), `heads`, `width`, and `context`, the most tokens
    /// a side of a pair may have (longer pairs are left out).
    pub settings: Settings,
    /// The vocabulary's size.
    pub vocab: usize,
    /// Source texts translated at every evaluation.
    pub samples: Vec<String>,
}

/// What training_log.json keeps.
#[derive(Debug, Clone, Serialize)]
pub struct TranslationLog {
    pub pairs: String,
    pub pairs_sha256: String,
    pub train_pairs: usize,
    pub val_pairs: usize,
    /// Pairs left out for a side longer than the context.
    pub too_long: usize,
    pub parameters: usize,
    pub settings: Settings,
    pub steps: Vec<Step>,
    pub evaluations: Vec<Evaluation>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub step: usize,
    pub lr: f64,
    pub loss: f64,
    pub grad_norm: f64,
    pub seconds: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    pub step: usize,
    pub val_loss: f64,
    /// (source, greedy translation) of each sample.
    pub samples: Vec<(String, String)>,
}

/// A pair as ids: the source with `</s>`, the target with `</s>`.
struct Pair {
    source: Vec<u32>,
    target: Vec<u32>,
}

/// Trains, saving checkpoints into `run.out`; `progress` sees each step and evaluation.
pub fn train_translation(
    run: &TranslationRun,
    progress: &mut dyn FnMut(&Step, Option<&Evaluation>),
) -> TrainResult<TranslationLog> {
    let s = &run.settings;
    s.validate()?;
    if !folder::is_free(&run.out) {
        return Err(TrainError::Checkpoint {
            path: run.out.clone(),
            problem: "the output folder already exists and is not empty".into(),
            hint: "choose a new or empty folder: tracebook never overwrites files it did not write"
                .into(),
        });
    }
    let (texts, sha256) = read_pairs(&run.pairs)?;
    let mut order: Vec<usize> = (0..texts.len()).collect();
    shuffle(&mut order, s.seed);
    let val_count = ((texts.len() as f64 * s.val_share) as usize).clamp(1, 500);
    let (val_idx, train_idx) = order.split_at(val_count.min(order.len() - 1));
    let train_texts: Vec<String> = train_idx
        .iter()
        .flat_map(|&i| [texts[i].0.clone(), texts[i].1.clone()])
        .collect();
    let tokenizer = train_byte_level_bpe(&train_texts, run.vocab, &SPECIAL)?;
    let encode = |i: &usize| -> TrainResult<Option<Pair>> {
        let source = ids_with_eos(&tokenizer, &texts[*i].0)?;
        let target = ids_with_eos(&tokenizer, &texts[*i].1)?;
        let limit = s.architecture.context;
        Ok((source.len() <= limit && target.len() <= limit).then_some(Pair { source, target }))
    };
    let train: Vec<Pair> = train_idx
        .iter()
        .map(encode)
        .collect::<TrainResult<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let val: Vec<Pair> = val_idx
        .iter()
        .map(encode)
        .collect::<TrainResult<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let too_long = texts.len() - train.len() - val.len();
    let config = config(run, tokenizer.vocab_size());
    let params = init(&config, &mut Rng::new(s.seed))?;
    let mut optimizer = AdamW::new(&params, AdamWConfig::gpt2(s.weight_decay));
    let vb = VarBuilder::from_tensors(params.tensors(false), DType::F32, &Device::Cpu);
    let model = Seq2Seq::trainable(vb, &config)?;
    let vb = VarBuilder::from_tensors(params.tensors(true), DType::F32, &Device::Cpu);
    let evaluator = Seq2Seq::load(vb, &config)?;
    let mut log = TranslationLog {
        pairs: run.pairs.display().to_string(),
        pairs_sha256: sha256,
        train_pairs: train.len(),
        val_pairs: val.len(),
        too_long,
        parameters: params.vars().iter().map(|v| v.elem_count()).sum(),
        settings: s.clone(),
        steps: Vec::new(),
        evaluations: Vec::new(),
    };
    let tokenizer_json = tokenizer.to_json()?;
    let clock = Instant::now();
    for step in 0..s.steps {
        let lr = learning_rate(s, step);
        let mut rng = Rng::for_step(s.seed, step);
        let batch: Vec<&Pair> = (0..s.batch_size)
            .map(|_| &train[rng.below(train.len())])
            .collect();
        let (loss, mut grads) = batch_gradients(&model, &params, &batch)?;
        let grad_norm = clip_grad_norm(&mut grads, s.grad_clip);
        optimizer.step(&params, &grads, lr)?;
        let done = step + 1;
        let record = Step {
            step: done,
            lr,
            loss,
            grad_norm,
            seconds: clock.elapsed().as_secs_f64(),
        };
        let evaluation = (done % s.eval_every == 0 || done == s.steps)
            .then(|| evaluate(&evaluator, &tokenizer, &val, run, done))
            .transpose()?;
        progress(&record, evaluation.as_ref());
        log.steps.push(record);
        log.evaluations.extend(evaluation);
        if done % s.checkpoint_every == 0 || done == s.steps {
            save(run, &config, &params, (&tokenizer_json, &log))?;
        }
    }
    Ok(log)
}

/// The pairs of the file, and its sha256; a line without a tab is an error at its line.
fn read_pairs(path: &Path) -> TrainResult<(Vec<(String, String)>, String)> {
    let bytes = std::fs::read(path).map_err(|e| TrainError::Corpus {
        path: path.to_path_buf(),
        problem: format!("cannot read: {e}"),
        hint: "give the file of pairs, one `source<TAB>target` per line".into(),
    })?;
    let sha = {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(&bytes))
    };
    let text = String::from_utf8(bytes).map_err(|e| TrainError::Corpus {
        path: path.to_path_buf(),
        problem: format!("not UTF-8 text: {e}"),
        hint: "give a UTF-8 file of lines `source<TAB>target`".into(),
    })?;
    let mut pairs = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let Some((source, target)) = line.split_once('\t') else {
            return Err(TrainError::Corpus {
                path: path.to_path_buf(),
                problem: format!("line {} has no tab between source and target", n + 1),
                hint: "write each pair on one line: the source text, a tab, the target text".into(),
            });
        };
        pairs.push((source.trim().to_string(), target.trim().to_string()));
    }
    if pairs.len() < 2 {
        return Err(TrainError::Corpus {
            path: path.to_path_buf(),
            problem: "fewer than two pairs".into(),
            hint: "a pairs file holds one `source<TAB>target` pair per line".into(),
        });
    }
    Ok((pairs, sha))
}

/// Fisher–Yates with the run's seed.
fn shuffle(order: &mut [usize], seed: u64) {
    let mut rng = Rng::new(seed ^ 0x5061_6972);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
}

/// A Marian model of the run's sizes: each stack `layers` deep, `heads` heads, `width` wide,
/// an MLP 4 × wider, swish, embeddings scaled by √width and tied, as opus-mt models are.
fn config(run: &TranslationRun, vocab: usize) -> Seq2SeqConfig {
    let a = &run.settings.architecture;
    Seq2SeqConfig {
        vocab_size: vocab,
        d_model: a.width,
        encoder_layers: a.layers,
        decoder_layers: a.layers,
        encoder_attention_heads: a.heads,
        decoder_attention_heads: a.heads,
        encoder_ffn_dim: 4 * a.width,
        decoder_ffn_dim: 4 * a.width,
        max_position_embeddings: a.context + 1,
        decoder_start_token_id: 2,
        pad_token_id: 2,
        eos_token_id: 0,
        ..Seq2SeqConfig::tiny(Seq2SeqKind::Marian)
    }
}

/// Fresh weights: N(0, 0.02) matrices and embeddings, the projections into the residual
/// stream (`out_proj`, `fc2`) scaled by 1/√(2·layers), zero biases and `final_logits_bias`,
/// unit norm gains.
fn init(config: &Seq2SeqConfig, rng: &mut Rng) -> TrainResult<Params> {
    let residual = 0.02 / (2.0 * config.encoder_layers as f64).sqrt();
    let tensors = testmodel::expected(config)
        .into_iter()
        .map(|(name, shape)| {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = if name.ends_with(".bias") || name == "final_logits_bias" {
                vec![0.0; n]
            } else if name.contains("norm") {
                vec![1.0; n]
            } else {
                let std = if name.contains("out_proj") || name.contains("fc2") {
                    residual
                } else {
                    0.02
                };
                (0..n).map(|_| (rng.normal() * std) as f32).collect()
            };
            Ok((name, Tensor::from_vec(values, shape, &Device::Cpu)?))
        })
        .collect::<candle_core::Result<Vec<_>>>()?;
    Params::named(tensors)
}

/// A side of a pair as ids: its tokens, then `</s>` (id 0, the first of [`SPECIAL`]).
fn ids_with_eos(tokenizer: &Tokenizer, text: &str) -> TrainResult<Vec<u32>> {
    let mut ids: Vec<u32> = tokenizer.encode(text)?.iter().map(|t| t.id).collect();
    ids.push(0);
    Ok(ids)
}

/// The decoder's input for a target: the start token, then the target without its `</s>`.
fn decoder_input(config: &Seq2SeqConfig, target: &[u32]) -> Vec<u32> {
    std::iter::once(config.decoder_start_token_id)
        .chain(target[..target.len() - 1].iter().copied())
        .collect()
}

/// The mean loss of the batch and its gradient for every parameter, in `Params` order.
fn batch_gradients(
    model: &Seq2Seq,
    params: &Params,
    batch: &[&Pair],
) -> TrainResult<(f64, Vec<Vec<f32>>)> {
    let mut total: Option<Tensor> = None;
    for pair in batch {
        let loss = pair_loss(model, pair)?;
        total = Some(match total {
            Some(t) => (t + loss)?,
            None => loss,
        });
    }
    let total = (total.expect("a batch has pairs") / batch.len() as f64)?;
    let grads = total.backward()?;
    let flat = params
        .vars()
        .iter()
        .map(|var| match grads.get(var.as_tensor()) {
            Some(g) => with_f32(g, |g| g.to_vec()),
            None => Ok(vec![0f32; var.elem_count()]),
        })
        .collect::<candle_core::Result<Vec<_>>>()?;
    Ok((total.to_scalar::<f32>()? as f64, flat))
}

/// The mean cross-entropy of the decoder's predictions of one pair's target.
fn pair_loss(model: &Seq2Seq, pair: &Pair) -> TrainResult<Tensor> {
    let memory = model.encode(&pair.source, &mut NoRecorder)?;
    let input = decoder_input(model.config(), &pair.target);
    let logits = model.decode(&memory, &input, &mut NoRecorder)?;
    let labels = Tensor::new(pair.target.as_slice(), &Device::Cpu)?;
    Ok(candle_nn::loss::cross_entropy(&logits, &labels)?)
}

fn evaluate(
    model: &Seq2Seq,
    tokenizer: &Tokenizer,
    val: &[Pair],
    run: &TranslationRun,
    step: usize,
) -> TrainResult<Evaluation> {
    let mut sum = 0f64;
    let measured = val.len().min(200);
    for pair in &val[..measured] {
        sum += pair_loss(model, pair)?.to_scalar::<f32>()? as f64;
    }
    let mut samples = Vec::new();
    for text in &run.samples {
        let source = ids_with_eos(tokenizer, text)?;
        let output = model.translate_greedy(&source, run.settings.architecture.context)?;
        let shown: Vec<u32> = output.into_iter().filter(|&id| id > 2).collect();
        samples.push((text.clone(), tokenizer.decode(&shown)?));
    }
    Ok(Evaluation {
        step,
        val_loss: sum / measured.max(1) as f64,
        samples,
    })
}

/// The checkpoint folder, replaced as a whole.
fn save(
    run: &TranslationRun,
    config: &Seq2SeqConfig,
    params: &Params,
    (tokenizer_json, log): (&str, &TranslationLog),
) -> TrainResult<()> {
    let weights = model_bytes(params, run.settings.dtype)?;
    let log_json =
        serde_json::to_string_pretty(log).map_err(|e| candle_core::Error::Msg(e.to_string()))?;
    folder::replace(&run.out, |dir| {
        for (file, bytes) in [
            ("config.json", config.to_hf_json().into_bytes()),
            ("model.safetensors", weights),
            ("tokenizer.json", tokenizer_json.as_bytes().to_vec()),
            ("training_log.json", log_json.into_bytes()),
        ] {
            let path = dir.join(file);
            std::fs::write(&path, bytes).map_err(|e| TrainError::write(&path, e))?;
        }
        Ok(())
    })
}
