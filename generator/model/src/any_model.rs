//! Whichever kind of model a folder holds, decoder-only or encoder-decoder, as its
//! config.json says: what `tracebook trace` loads and traces.

use crate::error::Result;
use crate::model::Model;
use crate::seq2seq::loaded::{seq2seq_config, Seq2SeqModel};
use crate::source::ModelFiles;
use crate::tracer::TraceRequest;
use tracebook_trace::Trace;

/// A decoder-only model or an encoder-decoder, as the folder's config.json says.
pub enum AnyModel {
    Decoder(Box<Model>),
    Seq2Seq(Box<Seq2SeqModel>),
}

impl AnyModel {
    /// Loads the model of `files`, whose weights hash to `weights_sha256`.
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
    pub fn load(files: ModelFiles) -> Result<AnyModel> {
        let sha = files.weights_sha256(&tracebook_trace::DigestCache::none())?;
        AnyModel::load_hashed(files, sha)
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
