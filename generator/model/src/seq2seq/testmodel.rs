//! Marian and BART checkpoints with deterministic pseudo-random weights, for tests and the
//! fixtures made with transformers (`dev test-model DIR --arch marian|bart`): config.json and
//! model.safetensors as `save_pretrained` writes them (tied weights and Marian's sinusoidal
//! positions left out, as transformers leaves them out).

use crate::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind, BART_POSITION_OFFSET};
use crate::error::{ModelError, Result};
use crate::testmodel::{encode, uniform, StoredDtype};
use safetensors::tensor::{Dtype, TensorView};
use std::path::Path;
use tracebook_trace::{SplitMix64, WEIGHTS_FILE};

/// Every weight of `config`'s checkpoint: (name, shape).
pub fn expected(config: &Seq2SeqConfig) -> Vec<(String, Vec<usize>)> {
    let (d, v) = (config.d_model, config.vocab_size);
    let mut out = vec![("model.shared.weight".to_string(), vec![v, d])];
    if !config.tie_word_embeddings {
        // transformers ties each stack's embedding to the shared one only with
        // tie_word_embeddings, so an untied checkpoint stores them (here, equal to it).
        for stack in ["encoder", "decoder"] {
            out.push((format!("model.{stack}.embed_tokens.weight"), vec![v, d]));
        }
    }
    let norm = |out: &mut Vec<(String, Vec<usize>)>, name: String| {
        out.push((format!("{name}.weight"), vec![d]));
        out.push((format!("{name}.bias"), vec![d]));
    };
    let attention = |out: &mut Vec<(String, Vec<usize>)>, name: String| {
        for p in ["q_proj", "k_proj", "v_proj", "out_proj"] {
            out.push((format!("{name}.{p}.weight"), vec![d, d]));
            out.push((format!("{name}.{p}.bias"), vec![d]));
        }
    };
    for (stack, layers, ffn) in [
        ("encoder", config.encoder_layers, config.encoder_ffn_dim),
        ("decoder", config.decoder_layers, config.decoder_ffn_dim),
    ] {
        if config.kind == Seq2SeqKind::Bart {
            let rows = config.max_position_embeddings + BART_POSITION_OFFSET;
            out.push((
                format!("model.{stack}.embed_positions.weight"),
                vec![rows, d],
            ));
            norm(&mut out, format!("model.{stack}.layernorm_embedding"));
        }
        for l in 0..layers {
            let layer = format!("model.{stack}.layers.{l}");
            attention(&mut out, format!("{layer}.self_attn"));
            norm(&mut out, format!("{layer}.self_attn_layer_norm"));
            if stack == "decoder" {
                attention(&mut out, format!("{layer}.encoder_attn"));
                norm(&mut out, format!("{layer}.encoder_attn_layer_norm"));
            }
            out.push((format!("{layer}.fc1.weight"), vec![ffn, d]));
            out.push((format!("{layer}.fc1.bias"), vec![ffn]));
            out.push((format!("{layer}.fc2.weight"), vec![d, ffn]));
            out.push((format!("{layer}.fc2.bias"), vec![d]));
            norm(&mut out, format!("{layer}.final_layer_norm"));
        }
    }
    out.push(("final_logits_bias".to_string(), vec![1, v]));
    if !config.tie_word_embeddings {
        out.push(("lm_head.weight".to_string(), vec![v, d]));
    }
    out
}

/// Writes config.json and model.safetensors for `config` into `dir`.
pub fn write(dir: &Path, config: &Seq2SeqConfig, seed: u64, dtype: StoredDtype) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| ModelError::io(dir, e))?;
    let config_path = dir.join("config.json");
    std::fs::write(&config_path, config.to_hf_json())
        .map_err(|e| ModelError::io(&config_path, e))?;
    let mut rng = SplitMix64::new(seed);
    let mut shared = Vec::new();
    let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = expected(config)
        .into_iter()
        .map(|(name, shape)| {
            let bytes = if name.ends_with("embed_tokens.weight") {
                shared.clone()
            } else {
                encode(&values(&name, &shape, config.d_model, &mut rng), dtype)
            };
            if name == "model.shared.weight" {
                shared = bytes.clone();
            }
            (name, shape, bytes)
        })
        .collect();
    let stored = match dtype {
        StoredDtype::F32 => Dtype::F32,
        StoredDtype::F16 => Dtype::F16,
        StoredDtype::BF16 => Dtype::BF16,
    };
    let views = tensors.iter().map(|(name, shape, bytes)| {
        let view = TensorView::new(stored, shape.clone(), bytes)
            .expect("shape and byte length agree by construction");
        (name.clone(), view)
    });
    let path = dir.join(WEIGHTS_FILE);
    safetensors::serialize_to_file(views.collect::<Vec<_>>(), None, &path).map_err(|e| {
        ModelError::Safetensors {
            path: path.clone(),
            message: e.to_string(),
        }
    })
}

/// Values that keep activations O(1), attention neither uniform nor one-hot, and every norm
/// gain and bias non-trivial (a forward that ignored one would fail the fixtures).
fn values(name: &str, shape: &[usize], d: usize, rng: &mut SplitMix64) -> Vec<f32> {
    let n: usize = shape.iter().product();
    let d = d as f32;
    let (center, spread) = match name.rsplit('.').next() {
        Some("weight") if name.contains("norm") => (1.0, 0.3),
        Some("bias") if name.contains("norm") => (0.0, 0.2),
        _ if name == "final_logits_bias" => (0.0, 0.5),
        Some("bias") => (0.0, 0.1),
        _ if name.contains("shared") || name.contains("lm_head") => (0.0, 0.5),
        _ if name.contains("embed_positions") => (0.0, 0.2),
        _ if name.contains("q_proj") || name.contains("k_proj") => (0.0, 1.5 / d.sqrt()),
        _ if name.contains("fc2") || name.contains("out_proj") => (0.0, 0.5 / (4.0 * d).sqrt()),
        _ => (0.0, 1.0 / d.sqrt()),
    };
    (0..n).map(|_| center + spread * uniform(rng)).collect()
}
