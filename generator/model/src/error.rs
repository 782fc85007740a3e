//! Errors of the model crate: each names the file at fault and says what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a config.json tracebook can trace: {message}\n  hint: {hint}")]
    Config {
        path: PathBuf,
        message: String,
        hint: String,
    },
    #[error("{path}: not a readable safetensors file: {message}\n  hint: the file may be truncated or corrupt; download it again or re-export it with `save_pretrained`")]
    Safetensors { path: PathBuf, message: String },
    #[error("{path}: {message}\n  hint: {hint}")]
    Weights {
        path: PathBuf,
        message: String,
        hint: String,
    },
    #[error("{0}")]
    Source(String),
    #[error("{0}")]
    Prompt(String),
    /// A prompt whose tokens and the ones it asks to generate do not fit the model's context.
    #[error(
        "{name} needs {} positions ({tokens} tokens + {generate} to generate), but model {model} has a context of {limit}\n  \
         hint: shorten the prompt or generate fewer tokens",
        .tokens + .generate
    )]
    TooLong {
        /// "prompt \"robots\"", or "the prompt" for an ad-hoc one.
        name: String,
        model: String,
        tokens: usize,
        generate: usize,
        limit: usize,
    },
    #[error(transparent)]
    Tokenizer(#[from] tracebook_tokenizer::TokenizerError),
    #[error(transparent)]
    Trace(#[from] tracebook_trace::TraceError),
    #[error("model computation failed: {0}")]
    Candle(#[from] candle_core::Error),
}

pub type Result<T> = std::result::Result<T, ModelError>;

impl ModelError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ModelError::Io {
            path: path.into(),
            source,
        }
    }
}
