//! A loaded checkpoint: config, weights, tokenizer and the identity a trace records.

use crate::config::ModelConfig;
#[cfg(feature = "native")]
use crate::error::ModelError;
use crate::error::Result;
use crate::source::ModelFiles;
#[cfg(feature = "native")]
use crate::train::log::{TrainingLog, LOG_FILE};
use crate::transformer::Transformer;
use crate::weights::Weights;
use std::path::Path;
use tracebook_tokenizer::Tokenizer;
#[cfg(feature = "native")]
use tracebook_trace::DigestCache;
use tracebook_trace::{sha256_bytes, ModelInfo, TrainingSummary, WEIGHTS_FILE};

pub struct Model {
    pub files: ModelFiles,
    pub config: ModelConfig,
    /// The forward pass.
    pub net: Transformer,
    pub tokenizer: Tokenizer,
    pub weights_sha256: String,
    /// How the weights were stored (`f32`, `f16`, `bf16`); tracing computes in f32.
    pub weights_dtype: String,
    /// The run that made the weights, from a `training_log.json` beside them.
    pub training: Option<TrainingSummary>,
}

/// A model's files already in memory, as the browser downloads them.
pub struct ModelBytes<'a> {
    /// How traces name the model (the site's model id); messages name its files under it.
    pub id: &'a str,
    /// The text of `config.json`.
    pub config_json: &'a str,
    /// One `model.safetensors` file.
    pub weights: &'a [u8],
    /// The text of `tokenizer.json`, if the model has one; otherwise GPT-2's built-in tokenizer.
    pub tokenizer_json: Option<&'a str>,
    /// The run that made the weights, as a trace of the model records it.
    pub training: Option<TrainingSummary>,
}

impl Model {
    /// Read config, weights and tokenizer (the model folder's tokenizer.json, else GPT-2's built in).
    #[cfg(feature = "native")]
    pub fn load(files: ModelFiles) -> Result<Model> {
        let weights_sha256 = files.weights_sha256(&DigestCache::none())?;
        Model::load_hashed(files, weights_sha256)
    }

    /// As `load`, for a caller that already hashed the weights file.
    #[cfg(feature = "native")]
    pub fn load_hashed(files: ModelFiles, weights_sha256: String) -> Result<Model> {
        let config = ModelConfig::load(&files.config)?;
        let tokenizer = match &files.tokenizer {
            Some(path) => Tokenizer::from_file(path)?,
            None => builtin_tokenizer(&config, &files.id)?,
        };
        let weights = Weights::load(&files.weights, &config)?;
        let weights_dtype = weights.stored_dtype();
        let net = Transformer::new(&weights, &config)?;
        drop(weights);
        let training = training_summary(&files)?;
        Ok(Model {
            files,
            config,
            net,
            tokenizer,
            weights_sha256,
            weights_dtype,
            training,
        })
    }

    /// A model from files in memory: the same checks as `load` (config, every tensor's shape
    /// and dtype), the same f32 weights, and the weights' identity as `load` gives it for a
    /// file holding the same bytes. Its `files` are names under `id` (there are no files).
    pub fn from_bytes(bytes: &ModelBytes) -> Result<Model> {
        let dir = Path::new(bytes.id);
        let files = ModelFiles {
            id: bytes.id.to_string(),
            config: dir.join("config.json"),
            weights: vec![dir.join(WEIGHTS_FILE)],
            tokenizer: bytes.tokenizer_json.map(|_| dir.join("tokenizer.json")),
        };
        let config = ModelConfig::parse(bytes.config_json, &files.config)?;
        let weights = Weights::from_safetensors(bytes.weights, &files.weights[0], &config)?;
        let weights_dtype = weights.stored_dtype();
        let net = Transformer::new(&weights, &config)?;
        drop(weights);
        let tokenizer = match (bytes.tokenizer_json, &files.tokenizer) {
            (Some(json), Some(path)) => Tokenizer::from_json(json, path)?,
            _ => builtin_tokenizer(&config, &files.id)?,
        };
        Ok(Model {
            weights_sha256: sha256_bytes(bytes.weights),
            files,
            config,
            net,
            tokenizer,
            weights_dtype,
            training: bytes.training.clone(),
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

/// The summary of the `training_log.json` beside the weights, if there is one; a log that
/// is there but unreadable is an error, not a silently missing figure.
#[cfg(feature = "native")]
fn training_summary(files: &ModelFiles) -> Result<Option<TrainingSummary>> {
    let Some(path) = files.dir().map(|dir| dir.join(LOG_FILE)) else {
        return Ok(None);
    };
    if !path.is_file() {
        return Ok(None);
    }
    let log = TrainingLog::load(&path).map_err(|e| ModelError::Weights {
        path: path.clone(),
        message: match e {
            crate::train::TrainError::Checkpoint { problem, .. } => {
                format!("not a training log tracebook can read: {problem}")
            }
            other => other.to_string(),
        },
        hint: format!("remove {LOG_FILE} if it does not belong to these weights, or write it again with `tracebook train`"),
    })?;
    Ok(Some(log.summary()))
}

/// GPT-2's built-in tokenizer for a GPT-2 checkpoint that ships none; any other model's ids
/// mean other tokens, so a checkpoint of the Llama family without its tokenizer.json is an
/// error rather than a trace of the wrong text.
fn builtin_tokenizer(config: &ModelConfig, id: &str) -> Result<Tokenizer> {
    if config.gpt2().is_some() {
        return Ok(Tokenizer::builtin_gpt2()?);
    }
    Err(crate::error::ModelError::Source(format!(
        "model {id:?} is a {} model without a tokenizer.json: its token ids are not GPT-2's, so \
         tracebook will not tokenize with GPT-2's built-in tokenizer\n  hint: add the model's \
         tokenizer.json beside its config.json; if it has only a SentencePiece tokenizer.model, \
         convert it with `pip install transformers sentencepiece protobuf` and `python -c \
         \"from transformers import AutoTokenizer; \
         AutoTokenizer.from_pretrained('DIR').save_pretrained('DIR')\"`",
        config.model_type()
    )))
}

#[cfg(all(test, feature = "native"))]
mod tokenizer_tests {
    use super::Model;
    use crate::config::Family;
    use crate::testmodel::{write_test_model, TestModelSpec};

    /// A Llama-family checkpoint without its tokenizer.json is refused, naming the model and
    /// the fix; a GPT-2 checkpoint without one still gets GPT-2's built-in tokenizer.
    #[test]
    fn only_gpt2_falls_back_to_the_builtin_tokenizer() {
        let dir = tempfile::tempdir().unwrap();
        let llama = dir.path().join("llama");
        write_test_model(&llama, &TestModelSpec::family(Family::Llama)).unwrap();
        std::fs::remove_file(llama.join("tokenizer.json")).unwrap();
        let files = crate::source::from_dir("my-llama", &llama).unwrap();
        let err = Model::load(files)
            .err()
            .expect("no tokenizer for a llama model");
        let text = err.to_string();
        assert!(
            text.contains("\"my-llama\" is a llama model without a tokenizer.json"),
            "{text}"
        );
        assert!(text.contains("save_pretrained"), "{text}");

        let gpt2 = dir.path().join("gpt2");
        write_test_model(&gpt2, &TestModelSpec::tiny()).unwrap();
        std::fs::remove_file(gpt2.join("tokenizer.json")).unwrap();
        let files = crate::source::from_dir("my-gpt2", &gpt2).unwrap();
        assert!(Model::load(files).is_ok());
    }
}
