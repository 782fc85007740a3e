//! An encoder-decoder checkpoint loaded from its files for tracing: config.json (Marian or
//! BART), its safetensors weights (any stored float type, computed in f32) and its
//! tokenizer.json.

use super::Seq2Seq;
use crate::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use crate::error::{ModelError, Result};
use crate::source::ModelFiles;
use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use std::collections::HashMap;
use std::path::Path;
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::ModelInfo;

/// A Marian or BART model ready to trace.
pub struct Seq2SeqModel {
    pub files: ModelFiles,
    pub config: Seq2SeqConfig,
    pub net: Seq2Seq,
    pub tokenizer: Tokenizer,
    pub weights_sha256: String,
    pub weights_dtype: String,
}

/// The encoder-decoder config at `path`, or None for any other model type.
pub fn seq2seq_config(path: &Path) -> Result<Option<Seq2SeqConfig>> {
    let text = std::fs::read_to_string(path).map_err(|e| ModelError::io(path, e))?;
    let error = |message: String| ModelError::Config {
        path: path.to_path_buf(),
        message,
        hint: "tracebook traces Marian and BART checkpoints exactly as transformers runs them, \
               or not at all; use the config.json that came with the weights"
            .into(),
    };
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| error(e.to_string()))?;
    let kind = json
        .get("model_type")
        .and_then(|v| v.as_str())
        .and_then(Seq2SeqKind::from_model_type);
    match (kind, json.as_object()) {
        (Some(kind), Some(map)) => Seq2SeqConfig::from_json(kind, map).map(Some).map_err(error),
        _ => Ok(None),
    }
}

impl Seq2SeqModel {
    /// Reads the files; the weights' sha256 is the caller's (it hashed them to see what is stale).
    pub fn load_hashed(
        files: ModelFiles,
        weights_sha256: String,
        config: Seq2SeqConfig,
    ) -> Result<Seq2SeqModel> {
        let Some(tokenizer_path) = &files.tokenizer else {
            return Err(ModelError::Source(format!(
                "model {:?} is an encoder-decoder without a tokenizer.json: its ids are its own \
                 vocabulary's\n  hint: add the tokenizer.json its training wrote beside its \
                 config.json",
                files.id
            )));
        };
        let tokenizer = Tokenizer::from_file(tokenizer_path)?;
        let mut tensors = HashMap::new();
        for path in &files.weights {
            let read = candle_core::safetensors::load(path, &Device::Cpu).map_err(|e| {
                ModelError::Safetensors {
                    path: path.clone(),
                    message: e.to_string(),
                }
            })?;
            tensors.extend(read);
        }
        let weights_dtype = match tensors.get("model.shared.weight").map(|t| t.dtype()) {
            Some(DType::F16) => "f16",
            Some(DType::BF16) => "bf16",
            _ => "f32",
        }
        .to_string();
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let net = Seq2Seq::load(vb, &config).map_err(|e| ModelError::Weights {
            path: files.weights.first().cloned().unwrap_or_default(),
            message: format!(
                "not the weights of this {} config: {e}",
                config.kind.model_type()
            ),
            hint: "use the model.safetensors that came with this config.json".into(),
        })?;
        Ok(Seq2SeqModel {
            files,
            config,
            net,
            tokenizer,
            weights_sha256,
            weights_dtype,
        })
    }

    /// What a trace says about the model that made it.
    pub fn info(&self) -> ModelInfo {
        ModelInfo {
            id: self.files.id.clone(),
            name: None,
            config: self.config.shape(),
            weights_sha256: self.weights_sha256.clone(),
            weights_dtype: self.weights_dtype.clone(),
        }
    }
}
