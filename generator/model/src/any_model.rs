//! Whichever kind of model a folder holds, decoder-only or encoder-decoder, as its
//! config.json says: what `tracebook trace` loads and traces, and what a live session runs
//! in the reader's page (from bytes).

use crate::error::Result;
use crate::model::{Model, ModelBytes};
#[cfg(feature = "native")]
use crate::seq2seq::loaded::seq2seq_config;
use crate::seq2seq::loaded::{seq2seq_config_text, Seq2SeqModel};
use crate::source::ModelFiles;
use crate::tracer::TraceRequest;
use std::path::Path;
use tracebook_tokenizer::Token;
use tracebook_trace::{Trace, TrainingSummary};

/// A decoder-only model or an encoder-decoder, as the folder's config.json says.
pub enum AnyModel {
    Decoder(Box<Model>),
    Seq2Seq(Box<Seq2SeqModel>),
}

impl AnyModel {
    /// Loads the model of `files`, whose weights hash to `weights_sha256`.
    #[cfg(feature = "native")]
    pub fn load_hashed(files: ModelFiles, weights_sha256: String) -> Result<AnyModel> {
        Ok(match seq2seq_config(&files.config)? {
            Some(config) => AnyModel::Seq2Seq(Box::new(Seq2SeqModel::load_hashed(
                files,
                weights_sha256,
                config,
            )?)),
            None => AnyModel::Decoder(Box::new(Model::load_hashed(files, weights_sha256)?)),
        })
    }

    /// As `load_hashed`, hashing the weights.
    #[cfg(feature = "native")]
    pub fn load(files: ModelFiles) -> Result<AnyModel> {
        let sha = files.weights_sha256(&tracebook_trace::DigestCache::none())?;
        AnyModel::load_hashed(files, sha)
    }

    /// A model whose files are in memory (see [`Model::from_bytes`]), of the kind its
    /// config.json says.
    pub fn from_bytes(bytes: &ModelBytes) -> Result<AnyModel> {
        let path = Path::new(bytes.id).join("config.json");
        Ok(match seq2seq_config_text(bytes.config_json, &path)? {
            Some(config) => AnyModel::Seq2Seq(Box::new(Seq2SeqModel::from_bytes(bytes, config)?)),
            None => AnyModel::Decoder(Box::new(Model::from_bytes(bytes)?)),
        })
    }

    /// The tokens the model reads for `text`: a decoder-only model's prompt (with special
    /// tokens read as such if `special`), an encoder-decoder's source with its `</s>`.
    pub fn tokenize(&self, text: &str, special: bool) -> Result<Vec<Token>> {
        match self {
            AnyModel::Decoder(m) => Ok(m.tokenizer.encode_as(text, special)?),
            AnyModel::Seq2Seq(m) => m.tokenizer.encode_source(text),
        }
    }

    /// The most positions a prompt and what is written after it may take.
    pub fn context(&self) -> usize {
        match self {
            AnyModel::Decoder(m) => m.config.n_positions(),
            AnyModel::Seq2Seq(m) => m.config.max_position_embeddings,
        }
    }

    /// Gives a decoder-only model the training summary its traces carry (`meta.training`);
    /// an encoder-decoder's traces carry none.
    pub fn set_training(&mut self, training: TrainingSummary) {
        if let AnyModel::Decoder(m) = self {
            m.training = Some(training);
        }
    }

    pub fn files(&self) -> &ModelFiles {
        match self {
            AnyModel::Decoder(m) => &m.files,
            AnyModel::Seq2Seq(m) => &m.files,
        }
    }

    /// The prompt's trace.
    pub fn trace(&self, request: &TraceRequest) -> Result<Trace> {
        match self {
            AnyModel::Decoder(m) => crate::tracer::trace(m, request),
            AnyModel::Seq2Seq(m) => crate::seq2seq::tracer::trace(m, request),
        }
    }
}
