//! `config.json` of a GPT-2 family checkpoint: the sizes the forward pass is built from.

use crate::error::{ModelError, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use tracebook_trace::ModelShape;

/// The fields of a Hugging Face GPT-2 `config.json` that the forward pass uses.
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
    pub activation_function: String,
    /// Inner MLP width; `None` means 4 × n_embd, as in GPT-2.
    #[serde(default)]
    pub n_inner: Option<usize>,
}

fn default_epsilon() -> f64 {
    1e-5
}

fn default_activation() -> String {
    "gelu_new".to_string()
}

impl Gpt2Config {
    /// Read and validate `config.json`.
    pub fn load(path: &Path) -> Result<Gpt2Config> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelError::io(path, e))?;
        let config: Gpt2Config = serde_json::from_str(&text).map_err(|e| ModelError::Config {
            path: path.to_path_buf(),
            message: e.to_string(),
            hint: "a GPT-2 config.json needs vocab_size, n_positions, n_embd, n_layer and n_head"
                .to_string(),
        })?;
        config.validate().map_err(|message| ModelError::Config {
            path: path.to_path_buf(),
            message,
            hint: "fix the sizes so they match the checkpoint".to_string(),
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
        if !matches!(
            self.activation_function.as_str(),
            "gelu_new" | "gelu_pytorch_tanh" | "gelu"
        ) {
            return Err(format!(
                "activation_function {:?} is not supported (gelu_new, gelu_pytorch_tanh or gelu)",
                self.activation_function
            ));
        }
        Ok(())
    }

    pub fn head_dim(&self) -> usize {
        self.n_embd / self.n_head
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
            "scale_attn_weights": true,
            "tie_word_embeddings": true,
            "bos_token_id": 50256,
            "eos_token_id": 50256,
        });
        serde_json::to_string_pretty(&value).expect("a JSON value always serializes") + "\n"
    }
}
