//! A loaded checkpoint: config, weights, tokenizer and the identity a trace records.

use crate::config::Gpt2Config;
use crate::error::{ModelError, Result};
use crate::gpt2::Gpt2;
use crate::source::ModelFiles;
use crate::weights::Weights;
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::{DigestCache, ModelInfo};

pub struct Model {
    pub files: ModelFiles,
    pub config: Gpt2Config,
    pub gpt2: Gpt2,
    pub tokenizer: Tokenizer,
    pub weights_sha256: String,
}

impl Model {
    /// Read config, weights and tokenizer (the model folder's tokenizer.json, else GPT-2's built in).
    pub fn load(files: ModelFiles) -> Result<Model> {
        let weights_sha256 = DigestCache::none()
            .sha256(&files.weights)
            .map_err(|e| ModelError::io(&files.weights, e))?;
        Model::load_hashed(files, weights_sha256)
    }

    /// As `load`, for a caller that already hashed the weights file.
    pub fn load_hashed(files: ModelFiles, weights_sha256: String) -> Result<Model> {
        let config = Gpt2Config::load(&files.config)?;
        let weights = Weights::load(&files.weights, &config)?;
        let gpt2 = Gpt2::new(&weights, &config)?;
        drop(weights);
        let tokenizer = match &files.tokenizer {
            Some(path) => Tokenizer::from_file(path)?,
            None => Tokenizer::builtin_gpt2()?,
        };
        Ok(Model {
            files,
            config,
            gpt2,
            tokenizer,
            weights_sha256,
        })
    }

    /// What a trace says about the model that made it.
    pub fn info(&self) -> ModelInfo {
        ModelInfo {
            id: self.files.id.clone(),
            config: self.config.shape(),
            weights_sha256: self.weights_sha256.clone(),
        }
    }
}
