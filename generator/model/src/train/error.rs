//! Errors of a training run: each names the file or the option at fault and says what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{path}: {problem}\n  hint: {hint}")]
    Corpus {
        path: PathBuf,
        problem: String,
        hint: String,
    },
    #[error("impossible model shape: {problem}\n  hint: {hint}")]
    Shape { problem: String, hint: String },
    #[error("invalid training setting: {problem}\n  hint: {hint}")]
    Setting { problem: String, hint: String },
    #[error("{path}: {problem}\n  hint: {hint}")]
    Checkpoint {
        path: PathBuf,
        problem: String,
        hint: String,
    },
    #[error("{path}: cannot write: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Model(#[from] crate::error::ModelError),
    #[error(transparent)]
    Tokenizer(#[from] tracebook_tokenizer::TokenizerError),
    #[error("training computation failed: {0}")]
    Candle(#[from] candle_core::Error),
}

pub type TrainResult<T> = std::result::Result<T, TrainError>;

impl TrainError {
    pub(crate) fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        TrainError::Write {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn setting(problem: impl Into<String>, hint: impl Into<String>) -> Self {
        TrainError::Setting {
            problem: problem.into(),
            hint: hint.into(),
        }
    }
}
