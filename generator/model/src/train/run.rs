//! The training loop: batches, gradients, clipping, AdamW, validation, checkpoints, snapshots.

use super::adamw::{clip_grad_norm, AdamW, AdamWConfig};
use super::bigram;
use super::checkpoint::{self, CheckpointParts};
use super::copying;
use super::corpus::Corpus;
use super::error::{TrainError, TrainResult};
use super::folder;
use super::log::{CorpusInfo, SnapshotRecord, StepRecord, TrainingLog, LOG_FILE, LOG_FORMAT};
use super::memory::keep_freed_buffers;
use super::observer::{Observer, Start};
use super::params::Params;
use super::rng::Rng;
use super::schedule::learning_rate;
use super::settings::Settings;
use super::step::{batch_gradients, mean_loss};
use super::watch;
use super::windows;
use crate::transformer::Transformer;
use std::path::PathBuf;
use std::time::Instant;
use tracebook_tokenizer::Tokenizer;

/// One invocation of `tracebook train`.
#[derive(Debug, Clone)]
pub struct TrainRun {
    pub corpus: PathBuf,
    /// The checkpoint folder (a Hugging Face GPT-2 folder once the first checkpoint is saved).
    pub out: PathBuf,
    pub settings: Settings,
    /// Continue the run whose checkpoint is in `out`, with the same settings.
    pub resume: bool,
    /// Pause after this step (saving a checkpoint), to continue later with `resume`; the
    /// schedule stays that of `settings.steps`.
    pub stop_after: Option<usize>,
}

/// Train, saving checkpoints into `run.out`; returns the log of the whole run.
pub fn train(run: &TrainRun, observer: &mut dyn Observer) -> TrainResult<TrainingLog> {
    let s = &run.settings;
    s.validate()?;
    keep_freed_buffers();
    if !run.resume && !folder::is_free(&run.out) {
        return Err(occupied(run));
    }
    let tokenizer = tokenizer(run)?;
    let context = s.architecture.context;
    let corpus = Corpus::load(&run.corpus, &tokenizer, s.val_share, context)?;
    let config = s.architecture.config();
    let val_windows = windows::validation(&corpus.val, context, s.val_windows);

    let (params, mut optimizer, mut log) = if run.resume {
        resumed(run, &config, &corpus)?
    } else {
        let params = Params::init(&config, s.position_init, &mut Rng::new(s.seed))?;
        let optimizer = AdamW::new(&params, AdamWConfig::gpt2(s.weight_decay));
        let log = new_log(s, &corpus, &params, val_windows.len())?;
        (params, optimizer, log)
    };
    log.settings = s.clone();
    let model = Transformer::trainable(&params.weights(), &config)?;
    let evaluator = Transformer::new(&params.detached_weights(), &config)?;
    let first = log.steps_done();
    let mix = windows::Mix {
        repeat: s.repeat_share,
        random: s.random_repeat_share,
        cycle: s.cycle_share,
        vocab: tokenizer.vocab_size(),
    };
    let copy_windows = copying::windows(tokenizer.vocab_size(), context, s.seed);
    if first == 0 && !val_windows.is_empty() {
        log.bigram = bigram::baseline(&corpus.train, &val_windows, tokenizer.vocab_size());
        log.initial_val_loss = Some(mean_loss(&evaluator, &val_windows)?);
    }
    observer.started(&Start {
        first_step: first,
        total_steps: s.steps,
        tokens_per_step: log.tokens_per_step,
        parameters: log.parameters,
        corpus: &log.corpus,
        bigram: log.bigram,
        initial_val_loss: log.initial_val_loss,
    });

    let tokenizer_json = tokenizer.to_json()?;
    let mut snapshots = Vec::new();
    if first == 0 && s.snapshots.contains(&0) {
        snapshots.push(snapshot(&params, &mut log, 0, s)?);
    }
    let (clock, seconds_before) = (Instant::now(), log.seconds());
    let end = run.stop_after.map_or(s.steps, |n| n.min(s.steps));
    for step in first..end {
        let lr = learning_rate(s, step);
        let batch = windows::train_batch(&corpus.train, context, s.batch_size, s.seed, step, &mix);
        let batch: Vec<&[u32]> = batch.iter().map(Vec::as_slice).collect();
        let (loss, mut grads) = batch_gradients(&model, &params, &batch)?;
        let grad_norm = clip_grad_norm(&mut grads, s.grad_clip);
        optimizer.step(&params, &grads, lr)?;
        let (weight, weight_grad) = match &log.watched {
            Some(w) => (watch::value(&params, w)?, watch::grad(&params, &grads, w)),
            None => (None, None),
        };
        let done = step + 1;
        let evaluate = !val_windows.is_empty() && (done % s.eval_every == 0 || done == s.steps);
        let val_loss = evaluate
            .then(|| mean_loss(&evaluator, &val_windows))
            .transpose()?;
        let copy_loss = match evaluate {
            true => copying::loss(&evaluator, &copy_windows)?,
            false => None,
        };
        let heads = match evaluate {
            true => copying::head_scores(&evaluator, &copy_windows)?,
            false => None,
        };
        let record = StepRecord {
            step: done,
            lr,
            loss,
            grad_norm,
            tokens_seen: done * log.tokens_per_step,
            seconds: seconds_before + clock.elapsed().as_secs_f64(),
            val_loss,
            copy_loss,
            previous_token_score: heads.map(|h| h.previous),
            induction_score: heads.map(|h| h.induction),
            weight,
            weight_grad,
        };
        observer.stepped(&record);
        log.steps.push(record);
        if s.snapshots.contains(&done) {
            snapshots.push(snapshot(&params, &mut log, done, s)?);
        }
        if done % s.checkpoint_every == 0 || done == end {
            let parts = CheckpointParts {
                config: &config,
                params: &params,
                optimizer: &optimizer,
                log: &log,
                dtype: s.dtype,
                tokenizer_json: &tokenizer_json,
                new_snapshots: &snapshots,
            };
            checkpoint::save(&run.out, &parts)?;
            snapshots.clear();
            observer.saved(done, &run.out);
        }
    }
    Ok(log)
}

/// GPT-2's tokenizer, or (`--vocab`) a byte-level BPE of the run's own: trained on the
/// corpus's lines before the held-out part when the run starts, read back from the
/// checkpoint's tokenizer.json when it resumes.
fn tokenizer(run: &TrainRun) -> TrainResult<Tokenizer> {
    let Some(vocab) = run.settings.architecture.vocab else {
        return Ok(Tokenizer::builtin_gpt2()?);
    };
    let saved = run.out.join("tokenizer.json");
    if run.resume && saved.is_file() {
        return Ok(Tokenizer::from_file(&saved)?);
    }
    let lines = Corpus::training_lines(&run.corpus, run.settings.val_share)?;
    Ok(tracebook_tokenizer::train_language_model_bpe(
        &lines, vocab,
    )?)
}

fn occupied(run: &TrainRun) -> TrainError {
    let hint = if run.out.join(LOG_FILE).is_file() {
        "it holds a checkpoint: pass --resume to continue that run, or choose another --out"
    } else {
        "choose a new or empty folder: tracebook never overwrites files it did not write"
    };
    TrainError::Checkpoint {
        path: run.out.clone(),
        problem: "the output folder already exists and is not empty".into(),
        hint: hint.into(),
    }
}

fn new_log(
    s: &Settings,
    corpus: &Corpus,
    params: &Params,
    val_windows: usize,
) -> TrainResult<TrainingLog> {
    Ok(TrainingLog {
        format: LOG_FORMAT.into(),
        settings: s.clone(),
        corpus: CorpusInfo {
            path: corpus.path.display().to_string(),
            sha256: corpus.sha256.clone(),
            bytes: corpus.bytes,
            tokens: corpus.tokens(),
            train_tokens: corpus.train.len(),
            val_tokens: corpus.val.len(),
            val_windows,
        },
        parameters: params.count(),
        tokens_per_step: s.batch_size * s.architecture.context,
        initial_val_loss: None,
        bigram: None,
        steps: Vec::new(),
        snapshots: Vec::new(),
        watched: watch::watch(params)?,
    })
}

/// Weights, optimiser and log of the checkpoint in `run.out`, after checking that the run
/// continues with the same corpus and settings.
fn resumed(
    run: &TrainRun,
    config: &crate::config::ModelConfig,
    corpus: &Corpus,
) -> TrainResult<(Params, AdamW, TrainingLog)> {
    let restored = checkpoint::load(&run.out, config).map_err(|e| match e {
        TrainError::Model(m) => TrainError::Checkpoint {
            path: run.out.clone(),
            problem: format!(
                "the checkpoint does not match --layers/--heads/--width/--context: {m}"
            ),
            hint: "resume with the settings of the run (or omit them)".into(),
        },
        other => other,
    })?;
    let log = restored.log;
    let mismatch = |problem: String, hint: &str| TrainError::Checkpoint {
        path: run.out.join(LOG_FILE),
        problem,
        hint: hint.into(),
    };
    if log.corpus.sha256 != corpus.sha256 {
        return Err(mismatch(
            format!(
                "the run was trained on a different corpus ({})",
                log.corpus.path
            ),
            "resume with the same --corpus file, or start a new run in another --out folder",
        ));
    }
    let saved = log.settings.must_match();
    let asked = run.settings.must_match();
    let differ: Vec<String> = saved
        .iter()
        .zip(&asked)
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, b)| format!("{} {} (asked {})", a.0, a.1, b.1))
        .collect();
    if !differ.is_empty() {
        return Err(mismatch(
            format!("the run was trained with {}", differ.join(", ")),
            "resume with the run's settings (omit them to reuse the saved ones)",
        ));
    }
    if log.steps_done() > run.settings.steps {
        return Err(mismatch(
            format!(
                "the checkpoint is at step {}, past --steps {}",
                log.steps_done(),
                run.settings.steps
            ),
            "pass a larger --steps to train further",
        ));
    }
    let optimizer = AdamW::restore(
        AdamWConfig::gpt2(run.settings.weight_decay),
        log.steps_done(),
        restored.first,
        restored.second,
    );
    Ok((restored.params, optimizer, log))
}

/// Serialize the weights now; they are written with the next checkpoint.
fn snapshot(
    params: &Params,
    log: &mut TrainingLog,
    step: usize,
    s: &Settings,
) -> TrainResult<(String, Vec<u8>)> {
    let name = format!("step-{step:06}");
    log.snapshots.push(SnapshotRecord {
        step,
        folder: format!("{}/{name}", checkpoint::SNAPSHOTS),
    });
    Ok((name, checkpoint::model_bytes(params, s.dtype)?))
}
