//! An encoder-decoder checkpoint loaded from its files for tracing: config.json (Marian or
//! BART), its safetensors weights (any stored float type, computed in f32) and its tokenizer:
//! Marian's `source.spm`, `target.spm` and `vocab.json` as opus-mt models ship them, else a
//! tokenizer.json (BART's, or the one `tracebook train --pairs` writes).

use super::Seq2Seq;
use crate::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use crate::error::{ModelError, Result};
use crate::source::ModelFiles;
use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use std::collections::HashMap;
use std::path::Path;
use tracebook_tokenizer::{MarianTokenizer, Token, Tokenizer};
use tracebook_trace::ModelInfo;

/// A Marian or BART model ready to trace.
pub struct Seq2SeqModel {
    pub files: ModelFiles,
    pub config: Seq2SeqConfig,
    pub net: Seq2Seq,
    pub tokenizer: Seq2SeqTokenizer,
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
        let tokenizer = Seq2SeqTokenizer::for_files(&files, &config)?;
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

/// An encoder-decoder's tokenizer: Marian's files, or a tokenizer.json.
pub enum Seq2SeqTokenizer {
    Marian(Box<MarianTokenizer>),
    /// With the `</s>` id the model appends to its source.
    Json(Box<Tokenizer>, u32),
}

impl Seq2SeqTokenizer {
    /// Marian's files where the folder has them, else its tokenizer.json.
    fn for_files(files: &ModelFiles, config: &Seq2SeqConfig) -> Result<Seq2SeqTokenizer> {
        if let Some(dir) = files.dir().filter(|d| MarianTokenizer::is_marian_dir(d)) {
            return Ok(Seq2SeqTokenizer::Marian(Box::new(
                MarianTokenizer::from_dir(dir)?,
            )));
        }
        match &files.tokenizer {
            Some(path) => Ok(Seq2SeqTokenizer::Json(
                Box::new(Tokenizer::from_file(path)?),
                config.eos_token_id,
            )),
            None => Err(ModelError::Source(format!(
                "model {:?} is an encoder-decoder without its tokenizer: its ids are its own \
                 vocabulary's\n  hint: put Marian's source.spm, target.spm and vocab.json, or \
                 a tokenizer.json, beside its config.json",
                files.id
            ))),
        }
    }

    /// The source text's tokens, ending with `</s>` (an empty span at the end of the text).
    pub fn encode_source(&self, text: &str) -> Result<Vec<Token>> {
        Ok(match self {
            Seq2SeqTokenizer::Marian(m) => m.encode_source(text),
            Seq2SeqTokenizer::Json(t, eos) => {
                let mut tokens = t.encode(text)?;
                tokens.push(Token {
                    id: *eos,
                    text: t.token_text(*eos),
                    start: text.len(),
                    end: text.len(),
                });
                tokens
            }
        })
    }

    pub fn token_text(&self, id: u32) -> String {
        match self {
            Seq2SeqTokenizer::Marian(m) => m.token_text(id),
            Seq2SeqTokenizer::Json(t, _) => t.token_text(id),
        }
    }

    /// The text of target ids, special tokens left out.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        Ok(match self {
            Seq2SeqTokenizer::Marian(m) => m.decode(ids, true)?,
            Seq2SeqTokenizer::Json(t, _) => t.decode(ids)?,
        })
    }
}
