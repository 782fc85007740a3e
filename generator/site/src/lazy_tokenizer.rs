//! The model's vocabulary and tokenizer, each loaded only when an article's `prob` needs it.
//!
//! `prob` looks a token's text up in the [`Vocab`] (a few ms to load); the full [`Tokenizer`]
//! (a few hundred ms to build) is loaded only to explain a text that is not one token.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tracebook_tokenizer::{Tokenizer, Vocab};

/// The tokenizer of `[model] id`: the folder's tokenizer.json when the id is a folder of the
/// site that has one, else GPT-2's built-in one. Each part is loaded at most once per build.
pub struct LazyTokenizer {
    model_dir: PathBuf,
    vocab: OnceLock<Result<Vocab, String>>,
    tokenizer: OnceLock<Result<Tokenizer, String>>,
}

impl LazyTokenizer {
    pub fn new(model_dir: PathBuf) -> LazyTokenizer {
        LazyTokenizer {
            model_dir,
            vocab: OnceLock::new(),
            tokenizer: OnceLock::new(),
        }
    }

    /// Token text → id. An error here (a tokenizer.json that is not byte-level) still leaves
    /// [`LazyTokenizer::tokenizer`] to try.
    pub fn vocab(&self) -> Result<&Vocab, &str> {
        self.vocab
            .get_or_init(|| {
                self.local_dir()
                    .map_or_else(Vocab::builtin_gpt2, Vocab::for_model_dir)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }

    pub fn tokenizer(&self) -> Result<&Tokenizer, &str> {
        self.tokenizer
            .get_or_init(|| {
                self.local_dir()
                    .map_or_else(Tokenizer::builtin_gpt2, Tokenizer::for_model_dir)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }

    fn local_dir(&self) -> Option<&Path> {
        self.model_dir.is_dir().then_some(self.model_dir.as_path())
    }
}
