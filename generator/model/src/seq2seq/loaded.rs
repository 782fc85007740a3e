//! An encoder-decoder checkpoint loaded from its files for tracing: config.json (Marian or
//! BART), its safetensors weights (any stored float type, computed in f32) and its tokenizer:
//! Marian's `source.spm`, `target.spm` and `vocab.json` as opus-mt models ship them, else a
//! tokenizer.json (BART's, or the one `tracebook train --pairs` writes).

use super::Seq2Seq;
use crate::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use crate::error::{ModelError, Result};
use crate::model::ModelBytes;
use crate::source::ModelFiles;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;
use std::path::Path;
use tracebook_tokenizer::{MarianTokenizer, Token, Tokenizer};
use tracebook_trace::weights::tensor_values;
use tracebook_trace::{int4, int8, sha256_bytes, ModelInfo, WEIGHTS_FILE};

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
    seq2seq_config_text(&text, path)
}

/// [`seq2seq_config`] of the text of a config.json (`path` names it in messages).
pub fn seq2seq_config_text(text: &str, path: &Path) -> Result<Option<Seq2SeqConfig>> {
    let error = |message: String| ModelError::Config {
        path: path.to_path_buf(),
        message,
        hint: "tracebook traces Marian and BART checkpoints exactly as transformers runs them, \
               or not at all; use the config.json that came with the weights"
            .into(),
    };
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| error(e.to_string()))?;
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
    #[cfg(feature = "native")]
    pub fn load_hashed(
        files: ModelFiles,
        weights_sha256: String,
        config: Seq2SeqConfig,
    ) -> Result<Seq2SeqModel> {
        let tokenizer = Seq2SeqTokenizer::for_files(&files, &config)?;
        let mut tensors = HashMap::new();
        let mut stored = String::from("f32");
        for path in &files.weights {
            let bytes = std::fs::read(path).map_err(|e| ModelError::io(path, e))?;
            read_tensors(&bytes, path, &mut tensors, &mut stored)?;
        }
        let net = build(tensors, &config, &files)?;
        Ok(Seq2SeqModel {
            files,
            config,
            net,
            tokenizer,
            weights_sha256,
            weights_dtype: stored,
        })
    }

    /// A model whose files are in memory (a site's browser model, in the reader's page): the
    /// same config, weights and tokenizer.json checks as [`Seq2SeqModel::load_hashed`]; its
    /// `files` are names under `id`.
    pub fn from_bytes(bytes: &ModelBytes, config: Seq2SeqConfig) -> Result<Seq2SeqModel> {
        let dir = Path::new(bytes.id);
        let files = ModelFiles {
            id: bytes.id.to_string(),
            config: dir.join("config.json"),
            weights: vec![dir.join(WEIGHTS_FILE)],
            tokenizer: bytes.tokenizer_json.map(|_| dir.join("tokenizer.json")),
        };
        let tokenizer = match (bytes.tokenizer_json, &files.tokenizer) {
            (Some(json), Some(path)) => Seq2SeqTokenizer::Json(
                Box::new(Tokenizer::from_json(json, path)?),
                config.eos_token_id,
            ),
            _ => return Err(no_tokenizer(&files.id)),
        };
        let (mut tensors, mut stored) = (HashMap::new(), String::from("f32"));
        read_tensors(bytes.weights, &files.weights[0], &mut tensors, &mut stored)?;
        let net = build(tensors, &config, &files)?;
        Ok(Seq2SeqModel {
            weights_sha256: sha256_bytes(bytes.weights),
            files,
            config,
            net,
            tokenizer,
            weights_dtype: stored,
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

/// Every tensor of the safetensors `bytes` (of `path`) as f32, by name: float tensors, and
/// the int8 and int4 matrices of a site's browser model read back with their scales (which
/// are not tensors of the model); `stored` is set to how the shared token embedding was
/// stored (`f16`, `int8`, ...), as traces record the weights' dtype.
fn read_tensors(
    bytes: &[u8],
    path: &Path,
    tensors: &mut HashMap<String, Tensor>,
    stored: &mut String,
) -> Result<()> {
    let unreadable = |message: String| ModelError::Safetensors {
        path: path.to_path_buf(),
        message,
    };
    let parsed = SafeTensors::deserialize(bytes).map_err(|e| unreadable(e.to_string()))?;
    for (name, view) in parsed.tensors() {
        let companion = [int8::SCALE_SUFFIX, int4::CODE_SUFFIX, int4::UNIT_SUFFIX];
        if companion.iter().any(|suffix| name.ends_with(suffix)) {
            continue;
        }
        if name == "model.shared.weight" {
            *stored = match view.dtype() {
                Dtype::I8 => "int8".to_string(),
                Dtype::U8 => "int4".to_string(),
                other => format!("{other:?}").to_lowercase(),
            };
        }
        let values = tensor_values(&parsed, &name, &view).map_err(unreadable)?;
        let tensor = Tensor::from_vec(values, view.shape(), &Device::Cpu)?;
        tensors.insert(name, tensor);
    }
    Ok(())
}

/// The network from its tensors, or why they are not this config's.
fn build(
    tensors: HashMap<String, Tensor>,
    config: &Seq2SeqConfig,
    files: &ModelFiles,
) -> Result<Seq2Seq> {
    let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
    Seq2Seq::load(vb, config).map_err(|e| ModelError::Weights {
        path: files.weights.first().cloned().unwrap_or_default(),
        message: format!(
            "not the weights of this {} config: {e}",
            config.kind.model_type()
        ),
        hint: "use the model.safetensors that came with this config.json".into(),
    })
}

/// An encoder-decoder without a tokenizer of its own: its ids are its own vocabulary's.
fn no_tokenizer(id: &str) -> ModelError {
    ModelError::Source(format!(
        "model {id:?} is an encoder-decoder without its tokenizer: its ids are its own \
         vocabulary's\n  hint: put Marian's source.spm, target.spm and vocab.json, or a \
         tokenizer.json, beside its config.json"
    ))
}

/// An encoder-decoder's tokenizer: Marian's files, or a tokenizer.json.
pub enum Seq2SeqTokenizer {
    Marian(Box<MarianTokenizer>),
    /// With the `</s>` id the model appends to its source.
    Json(Box<Tokenizer>, u32),
}

impl Seq2SeqTokenizer {
    /// Marian's files where the folder has them, else its tokenizer.json.
    #[cfg(feature = "native")]
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
            None => Err(no_tokenizer(&files.id)),
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
