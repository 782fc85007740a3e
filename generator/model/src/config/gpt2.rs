//! `config.json` of a GPT-2 family checkpoint (`model_type` `gpt2`): the sizes the forward pass
//! is built from.

use crate::activation::Activation;
use crate::error::{ModelError, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use tracebook_trace::ModelShape;

/// The fields of a Hugging Face GPT-2 `config.json` that change what the forward pass computes,
/// with `transformers`' defaults. Each is either computed exactly as `transformers` does or
/// refused by `validate`; fields that only matter for training or for other heads are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gpt2Config {
    pub vocab_size: usize,
    pub n_positions: usize,
    pub n_embd: usize,
    pub n_layer: usize,
    pub n_head: usize,
    #[serde(default = "default_epsilon")]
    pub layer_norm_epsilon: f64,
    #[serde(default = "default_activation")]
    pub activation_function: Activation,
    /// Inner MLP width; `None` means 4 × n_embd, as in GPT-2.
    #[serde(default)]
    pub n_inner: Option<usize>,
    /// Divide attention scores by √dh (GPT-2 does).
    #[serde(default = "yes")]
    pub scale_attn_weights: bool,
    /// Also divide layer L's attention scores by L + 1.
    #[serde(default)]
    pub scale_attn_by_inverse_layer_idx: bool,
    /// Compute attention scores in f32 with the scale applied first; tracebook always computes
    /// in f32, so this changes nothing beyond float rounding.
    #[serde(default)]
    pub reorder_and_upcast_attn: bool,
    /// The unembedding is `wte` (true) or its own `lm_head.weight` (false).
    #[serde(default = "yes")]
    pub tie_word_embeddings: bool,
    /// Blocks that also attend to an encoder's output: refused.
    #[serde(default)]
    pub add_cross_attention: bool,
    /// `gpt2` for every GPT-2 checkpoint; anything else is another architecture.
    #[serde(default)]
    pub model_type: Option<String>,
}

fn default_epsilon() -> f64 {
    1e-5
}

fn default_activation() -> Activation {
    Activation::GeluNew
}

fn yes() -> bool {
    true
}

impl Gpt2Config {
    /// GPT-2's architecture at the given sizes, with GPT-2's vocabulary and every other field
    /// at its GPT-2 value.
    pub fn gpt2(n_layer: usize, n_head: usize, n_embd: usize, n_positions: usize) -> Gpt2Config {
        Gpt2Config {
            vocab_size: 50257,
            n_positions,
            n_embd,
            n_layer,
            n_head,
            layer_norm_epsilon: default_epsilon(),
            activation_function: default_activation(),
            n_inner: None,
            scale_attn_weights: true,
            scale_attn_by_inverse_layer_idx: false,
            reorder_and_upcast_attn: false,
            tie_word_embeddings: true,
            add_cross_attention: false,
            model_type: Some("gpt2".into()),
        }
    }

    /// This config with `field` of its config.json set to `value` (JSON, or a bare string),
    /// checked as `load` checks a file: how tests and `dev test-model --set` make variants.
    pub fn with(&self, field: &str, value: &str) -> std::result::Result<Gpt2Config, String> {
        let mut json = serde_json::to_value(self).map_err(|e| e.to_string())?;
        let parsed = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
        json[field] = parsed;
        let config: Gpt2Config = serde_json::from_value(json).map_err(|e| e.to_string())?;
        config.validate()?;
        Ok(config)
    }

    /// Parse and validate the text of a `config.json` (named `path` in messages); files are
    /// read by `ModelConfig::load`, which picks the schema by `model_type`.
    pub fn parse(text: &str, path: &Path) -> Result<Gpt2Config> {
        let config: Gpt2Config = serde_json::from_str(text).map_err(|e| ModelError::Config {
            path: path.to_path_buf(),
            message: e.to_string(),
            hint: "a GPT-2 config.json needs vocab_size, n_positions, n_embd, n_layer and n_head"
                .to_string(),
        })?;
        config.validate().map_err(|message| ModelError::Config {
            path: path.to_path_buf(),
            message,
            hint: "tracebook traces GPT-2 family checkpoints exactly as transformers runs them, \
                   or not at all; use the config.json that came with the weights"
                .to_string(),
        })?;
        Ok(config)
    }

    /// Sizes that cannot describe a working GPT-2 are rejected before any weight is read.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.n_layer == 0 || self.n_head == 0 || self.n_embd == 0 || self.vocab_size == 0 {
            return Err("n_layer, n_head, n_embd and vocab_size must all be positive".into());
        }
        if !self.n_embd.is_multiple_of(self.n_head) {
            return Err(format!(
                "n_embd ({}) is not a multiple of n_head ({})",
                self.n_embd, self.n_head
            ));
        }
        if self.n_positions == 0 {
            return Err("n_positions must be positive".into());
        }
        if let Some(kind) = self.model_type.as_deref().filter(|k| *k != "gpt2") {
            return Err(format!(
                "model_type is {kind:?}: this is not a GPT-2 checkpoint (tracebook reads \
                 model_type \"gpt2\" only)"
            ));
        }
        if self.add_cross_attention {
            return Err(
                "add_cross_attention is true: the blocks of this checkpoint also attend \
                        to an encoder's output (it is the decoder half of an encoder-decoder \
                        model), which a prompt alone cannot supply"
                    .into(),
            );
        }
        if self.n_inner == Some(0) {
            return Err("n_inner must be positive (or null for 4 × n_embd)".into());
        }
        Ok(())
    }

    pub fn head_dim(&self) -> usize {
        self.n_embd / self.n_head
    }

    /// What layer `l`'s attention scores `q·k` are multiplied by, computed as `transformers`
    /// computes its one scaling factor: `dh^-0.5` (if `scale_attn_weights`), then divided by
    /// `l + 1` (if `scale_attn_by_inverse_layer_idx`).
    pub fn attention_scale(&self, l: usize) -> f64 {
        let mut scale = 1.0;
        if self.scale_attn_weights {
            scale = (self.head_dim() as f64).powf(-0.5);
        }
        if self.scale_attn_by_inverse_layer_idx {
            scale /= (l + 1) as f64;
        }
        scale
    }

    pub fn inner(&self) -> usize {
        self.n_inner.unwrap_or(4 * self.n_embd)
    }

    /// The sizes a trace records about the model that made it.
    pub fn shape(&self) -> ModelShape {
        ModelShape {
            n_layer: self.n_layer,
            n_head: self.n_head,
            n_embd: self.n_embd,
            n_positions: self.n_positions,
            vocab_size: self.vocab_size,
            layer_norm_epsilon: self.layer_norm_epsilon,
            activation_function: self.activation_function.name().to_string(),
            ..Default::default()
        }
    }

    /// A config.json as Hugging Face writes it for GPT2LMHeadModel.
    pub fn to_hf_json(&self) -> String {
        let value = serde_json::json!({
            "architectures": ["GPT2LMHeadModel"],
            "model_type": "gpt2",
            "activation_function": self.activation_function,
            "vocab_size": self.vocab_size,
            "n_positions": self.n_positions,
            "n_ctx": self.n_positions,
            "n_embd": self.n_embd,
            "n_layer": self.n_layer,
            "n_head": self.n_head,
            "n_inner": self.n_inner,
            "layer_norm_epsilon": self.layer_norm_epsilon,
            "attn_pdrop": 0.0,
            "embd_pdrop": 0.0,
            "resid_pdrop": 0.0,
            "scale_attn_weights": self.scale_attn_weights,
            "scale_attn_by_inverse_layer_idx": self.scale_attn_by_inverse_layer_idx,
            "reorder_and_upcast_attn": self.reorder_and_upcast_attn,
            "tie_word_embeddings": self.tie_word_embeddings,
            "bos_token_id": self.vocab_size - 1,
            "eos_token_id": self.vocab_size - 1,
        });
        serde_json::to_string_pretty(&value).expect("a JSON value always serializes") + "\n"
    }
}
