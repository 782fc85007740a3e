//! A loaded checkpoint: config, weights, tokenizer and the identity a trace records.

use crate::config::Gpt2Config;
use crate::error::{ModelError, Result};
use crate::gpt2::Gpt2;
use crate::source::ModelFiles;
use crate::train::log::{TrainingLog, LOG_FILE};
use crate::weights::Weights;
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::{DigestCache, ModelInfo, TrainingSummary};

pub struct Model {
    pub files: ModelFiles,
    pub config: Gpt2Config,
    pub gpt2: Gpt2,
    pub tokenizer: Tokenizer,
    pub weights_sha256: String,
    /// How the weights were stored (`f32`, `f16`, `bf16`); tracing computes in f32.
    pub weights_dtype: String,
    /// The run that made the weights, from a `training_log.json` beside them.
    pub training: Option<TrainingSummary>,
}

impl Model {
    /// Read config, weights and tokenizer (the model folder's tokenizer.json, else GPT-2's built in).
    pub fn load(files: ModelFiles) -> Result<Model> {
        let weights_sha256 = files.weights_sha256(&DigestCache::none())?;
        Model::load_hashed(files, weights_sha256)
    }

    /// As `load`, for a caller that already hashed the weights file.
    pub fn load_hashed(files: ModelFiles, weights_sha256: String) -> Result<Model> {
        let config = Gpt2Config::load(&files.config)?;
        let weights = Weights::load(&files.weights, &config)?;
        let weights_dtype = weights.stored_dtype();
        let gpt2 = Gpt2::new(&weights, &config)?;
        drop(weights);
        let tokenizer = match &files.tokenizer {
            Some(path) => Tokenizer::from_file(path)?,
            None => Tokenizer::builtin_gpt2()?,
        };
        let training = training_summary(&files)?;
        Ok(Model {
            files,
            config,
            gpt2,
            tokenizer,
            weights_sha256,
            weights_dtype,
            training,
        })
    }

    /// What a trace says about the model that made it.
    pub fn info(&self) -> ModelInfo {
        ModelInfo {
            id: self.files.id.clone(),
            config: self.config.shape(),
            weights_sha256: self.weights_sha256.clone(),
            weights_dtype: self.weights_dtype.clone(),
        }
    }
}

/// The summary of the `training_log.json` beside the weights, if there is one; a log that
/// is there but unreadable is an error, not a silently missing figure.
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
