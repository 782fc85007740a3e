//! A checkpoint's `config.json`, by its `model_type`: GPT-2's schema ([`Gpt2Config`]) or the
//! Llama family's ([`DecoderConfig`]: llama, mistral, qwen2, qwen3, gemma). [`ModelConfig`] is
//! either, with the sizes every caller asks about whatever the family.

pub mod decoder;
pub mod gpt2;
pub mod seq2seq;

pub use decoder::{DecoderConfig, Family, RopeScaling};
pub use gpt2::Gpt2Config;
pub use seq2seq::{Seq2SeqConfig, Seq2SeqKind};

use crate::error::{ModelError, Result};
use std::path::Path;
use tracebook_trace::{DecoderBlock, ModelShape};

/// The config of a checkpoint tracebook traces.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelConfig {
    Gpt2(Gpt2Config),
    Decoder(DecoderConfig),
}

/// Model types that are known architectures tracebook does not trace, with what sets them apart.
const OTHERS: [(&str, &str); 14] = [
    (
        "gemma2",
        "attention soft-capping and extra norms around each sublayer",
    ),
    (
        "gemma3",
        "extra norms, local and global layers with their own RoPE",
    ),
    (
        "gemma3_text",
        "extra norms, local and global layers with their own RoPE",
    ),
    ("mixtral", "a mixture of experts"),
    ("qwen2_moe", "a mixture of experts"),
    ("qwen3_moe", "a mixture of experts"),
    ("llama4", "a mixture of experts and chunked attention"),
    ("phi3", "fused projections and long-rope scaling"),
    (
        "gpt_neox",
        "parallel attention and MLP with partial rotary positions",
    ),
    (
        "t5",
        "an encoder-decoder with relative position buckets and no biases",
    ),
    (
        "bart",
        "an encoder-decoder; tracebook computes its forward pass (checked against \
         transformers) but does not write traces of one yet",
    ),
    (
        "marian",
        "an encoder-decoder; tracebook computes its forward pass (checked against \
         transformers) but does not write traces of one yet",
    ),
    (
        "bert",
        "an encoder (not a language model that predicts the next token)",
    ),
    ("ministral", "alternating sliding-window layers"),
];

/// The model types tracebook traces, for messages.
pub fn supported() -> String {
    let mut names = vec!["gpt2"];
    names.extend(decoder::FAMILIES.iter().map(|(n, _)| *n));
    names.join(", ")
}

impl ModelConfig {
    /// Read and validate `config.json`.
    pub fn load(path: &Path) -> Result<ModelConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelError::io(path, e))?;
        ModelConfig::parse(&text, path)
    }

    /// Parse and validate the text of a `config.json` (named `path` in messages).
    pub fn parse(text: &str, path: &Path) -> Result<ModelConfig> {
        let error = |message: String, hint: String| ModelError::Config {
            path: path.to_path_buf(),
            message,
            hint,
        };
        let json: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| error(e.to_string(), "config.json must be a JSON object".into()))?;
        let model_type = json.get("model_type").and_then(|v| v.as_str());
        let Some(family) = model_type.and_then(decoder::Family::from_model_type) else {
            return match model_type {
                None | Some("gpt2") => Ok(ModelConfig::Gpt2(Gpt2Config::parse(text, path)?)),
                Some(other) => Err(error(
                    match OTHERS.iter().find(|(n, _)| *n == other) {
                        Some((_, what)) if Seq2SeqKind::from_model_type(other).is_some() => {
                            format!("model_type is {other:?}: {what}")
                        }
                        Some((_, what)) => format!(
                            "model_type is {other:?}: its architecture has {what}, which \
                             tracebook does not compute"
                        ),
                        None => format!("model_type is {other:?}, which tracebook does not trace"),
                    },
                    format!(
                        "tracebook traces the model types {} exactly as transformers runs them",
                        supported()
                    ),
                )),
            };
        };
        let serde_json::Value::Object(map) = json else {
            return Err(error(
                "not a JSON object".into(),
                "config.json must be a JSON object".into(),
            ));
        };
        DecoderConfig::from_json(family, map)
            .map(ModelConfig::Decoder)
            .map_err(|message| {
                error(
                    message,
                    format!(
                    "tracebook traces {} checkpoints exactly as transformers runs them, or not \
                     at all; use the config.json that came with the weights",
                    family.model_type()
                ),
                )
            })
    }

    /// This config with `field` of its config.json set to `value` (JSON or a bare string).
    pub fn with(&self, field: &str, value: &str) -> std::result::Result<ModelConfig, String> {
        Ok(match self {
            ModelConfig::Gpt2(c) => ModelConfig::Gpt2(c.with(field, value)?),
            ModelConfig::Decoder(c) => ModelConfig::Decoder(c.with(field, value)?),
        })
    }

    /// `gpt2`, or the family's `model_type`.
    pub fn model_type(&self) -> &'static str {
        match self {
            ModelConfig::Gpt2(_) => "gpt2",
            ModelConfig::Decoder(c) => c.family.model_type(),
        }
    }

    pub fn n_layer(&self) -> usize {
        match self {
            ModelConfig::Gpt2(c) => c.n_layer,
            ModelConfig::Decoder(c) => c.num_hidden_layers,
        }
    }

    /// Query heads.
    pub fn n_head(&self) -> usize {
        match self {
            ModelConfig::Gpt2(c) => c.n_head,
            ModelConfig::Decoder(c) => c.num_attention_heads,
        }
    }

    /// Key/value heads (the query heads' count unless attention is grouped).
    pub fn n_kv_head(&self) -> usize {
        match self {
            ModelConfig::Gpt2(c) => c.n_head,
            ModelConfig::Decoder(c) => c.num_key_value_heads,
        }
    }

    pub fn head_dim(&self) -> usize {
        match self {
            ModelConfig::Gpt2(c) => c.head_dim(),
            ModelConfig::Decoder(c) => c.head_dim,
        }
    }

    /// The residual stream's width.
    pub fn width(&self) -> usize {
        match self {
            ModelConfig::Gpt2(c) => c.n_embd,
            ModelConfig::Decoder(c) => c.hidden_size,
        }
    }

    pub fn vocab_size(&self) -> usize {
        match self {
            ModelConfig::Gpt2(c) => c.vocab_size,
            ModelConfig::Decoder(c) => c.vocab_size,
        }
    }

    /// The longest sequence the model takes.
    pub fn n_positions(&self) -> usize {
        match self {
            ModelConfig::Gpt2(c) => c.n_positions,
            ModelConfig::Decoder(c) => c.max_position_embeddings,
        }
    }

    pub fn tie_word_embeddings(&self) -> bool {
        match self {
            ModelConfig::Gpt2(c) => c.tie_word_embeddings,
            ModelConfig::Decoder(c) => c.tie_word_embeddings,
        }
    }

    /// The sizes a trace records about the model that made it.
    pub fn shape(&self) -> ModelShape {
        match self {
            ModelConfig::Gpt2(c) => c.shape(),
            ModelConfig::Decoder(c) => ModelShape {
                n_layer: c.num_hidden_layers,
                n_head: c.num_attention_heads,
                n_embd: c.hidden_size,
                n_positions: c.max_position_embeddings,
                vocab_size: c.vocab_size,
                layer_norm_epsilon: c.rms_norm_eps,
                activation_function: c.activation.name().to_string(),
                model_type: Some(c.family.model_type().to_string()),
                n_kv_head: Some(c.num_key_value_heads),
                head_dim: Some(c.head_dim),
                rope_theta: Some(c.rope_theta),
                decoder: Some(DecoderBlock {
                    intermediate_size: c.intermediate_size,
                    tie_word_embeddings: c.tie_word_embeddings,
                    qkv_bias: c.qkv_bias,
                    o_bias: c.o_bias,
                    mlp_bias: c.mlp_bias,
                    qk_norm: c.qk_norm,
                }),
                seq2seq: None,
            },
        }
    }

    /// A config.json as Hugging Face writes it for this model.
    pub fn to_hf_json(&self) -> String {
        match self {
            ModelConfig::Gpt2(c) => c.to_hf_json(),
            ModelConfig::Decoder(c) => c.to_hf_json(),
        }
    }

    /// The GPT-2 config, if this is one.
    pub fn gpt2(&self) -> Option<&Gpt2Config> {
        match self {
            ModelConfig::Gpt2(c) => Some(c),
            ModelConfig::Decoder(_) => None,
        }
    }
}

impl From<Gpt2Config> for ModelConfig {
    fn from(config: Gpt2Config) -> ModelConfig {
        ModelConfig::Gpt2(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> std::result::Result<ModelConfig, String> {
        ModelConfig::parse(json, Path::new("m/config.json")).map_err(|e| e.to_string())
    }

    /// Llama-3.2-1B's config.json as the hub serves it.
    const LLAMA_3_2_1B: &str = r#"{
      "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
      "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu",
      "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192,
      "max_position_embeddings": 131072, "mlp_bias": false, "model_type": "llama",
      "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
      "pretraining_tp": 1, "rms_norm_eps": 1e-05,
      "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
      "transformers_version": "4.45.0.dev0", "use_cache": true, "vocab_size": 128256
    }"#;

    #[test]
    fn a_hub_llama_config_reads_with_its_scaling_and_groups() {
        let ModelConfig::Decoder(c) = parse(LLAMA_3_2_1B).unwrap() else {
            panic!("not a decoder config")
        };
        assert_eq!(c.family, Family::Llama);
        assert_eq!((c.num_attention_heads, c.num_key_value_heads), (32, 8));
        assert!(c.tie_word_embeddings);
        assert!(matches!(c.rope_scaling, RopeScaling::Llama3 { factor, .. } if factor == 32.0));
        let freqs = c.inverse_frequencies();
        assert_eq!(freqs.len(), 32);
        // The fastest frequency is unscaled (wavelength 2π < 8192 / 4), the slowest divided by 32.
        assert_eq!(freqs[0], 1.0);
        let unscaled = 1.0 / 500000f64.powf(62.0 / 64.0);
        assert!((freqs[31] as f64 - unscaled / 32.0).abs() < 1e-12);
    }

    #[test]
    fn what_changes_the_computation_otherwise_is_refused_by_name() {
        let with = |field: &str, value: &str| {
            let mut json: serde_json::Value = serde_json::from_str(LLAMA_3_2_1B).unwrap();
            json[field] = serde_json::from_str(value).unwrap();
            parse(&json.to_string())
        };
        for (field, value, said) in [
            ("num_local_experts", "8", "mixture of experts"),
            ("attn_logit_softcapping", "50.0", "soft-capping"),
            ("partial_rotary_factor", "0.5", "part of each head"),
            (
                "rope_scaling",
                r#"{"rope_type": "yarn", "factor": 4.0}"#,
                "\"yarn\"",
            ),
            (
                "rope_scaling",
                r#"{"type": "linear", "factor": 2.0}"#,
                "\"linear\"",
            ),
            ("num_key_value_heads", "5", "must divide"),
            ("head_dim", "63", "must be even"),
            ("hidden_act", "\"gelu_new_2\"", "gelu_new_2"),
            ("quantization_config", r#"{"bits": 4}"#, "quantized"),
        ] {
            let err = with(field, value).expect_err(field);
            assert!(err.contains(said), "{field}: {err}");
            assert!(err.contains("m/config.json"), "{err}");
        }
        // Harmless values of those fields read.
        with("partial_rotary_factor", "1.0").unwrap();
        with("rope_scaling", r#"{"rope_type": "default"}"#).unwrap();
    }

    #[test]
    fn other_architectures_are_refused_by_name_with_what_sets_them_apart() {
        let err = parse(r#"{"model_type": "mixtral"}"#).unwrap_err();
        assert!(
            err.contains("\"mixtral\"") && err.contains("mixture of experts"),
            "{err}"
        );
        let err = parse(r#"{"model_type": "gemma2"}"#).unwrap_err();
        assert!(err.contains("soft-capping"), "{err}");
        let err = parse(r#"{"model_type": "falcon"}"#).unwrap_err();
        assert!(
            err.contains("gpt2, llama, mistral, qwen2, qwen3, gemma"),
            "{err}"
        );
    }

    #[test]
    fn family_defaults_follow_transformers() {
        let base = r#""vocab_size": 10, "hidden_size": 8, "intermediate_size": 16,
            "num_hidden_layers": 3, "num_attention_heads": 2"#;
        let read = |kind: &str, extra: &str| match parse(&format!(
            r#"{{"model_type": "{kind}", {base}{extra}}}"#
        ))
        .unwrap()
        {
            ModelConfig::Decoder(c) => c,
            ModelConfig::Gpt2(_) => panic!("gpt2"),
        };
        let gemma = read("gemma", "");
        assert!(gemma.tie_word_embeddings && gemma.gemma_norm);
        assert_eq!(gemma.head_dim, 256);
        assert_eq!(gemma.activation.name(), "gelu_pytorch_tanh");
        assert_eq!(
            read("gemma", r#", "hidden_act": "gelu""#).activation.name(),
            "gelu_pytorch_tanh"
        );
        let qwen2 = read("qwen2", "");
        assert!(qwen2.qkv_bias && !qwen2.o_bias && !qwen2.tie_word_embeddings);
        assert_eq!(qwen2.windows, vec![None; 3]);
        let sliding = read(
            "qwen2",
            r#", "use_sliding_window": true, "max_window_layers": 1"#,
        );
        assert_eq!(sliding.windows, vec![None, Some(4096), Some(4096)]);
        assert_eq!(read("qwen3", "").head_dim, 128);
        assert_eq!(read("mistral", "").windows, vec![Some(4096); 3]);
        assert_eq!(read("llama", "").head_dim, 4);
    }
}
