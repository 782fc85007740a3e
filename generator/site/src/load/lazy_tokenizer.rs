//! The model's vocabulary and tokenizer, each loaded only when an article's `prob` needs it.
//!
//! `prob` looks a token's text up in the [`Vocab`] (a few ms to load); the full [`Tokenizer`]
//! (a few hundred ms to build) is loaded only to explain a text that is not one token.
//! GPT-2's built-in ones never change, so they are built once per process and shared by every
//! build (`serve` rebuilds on each save); a model folder's are read again by each build.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use tracebook_tokenizer::{Tokenizer, Vocab};

type Loaded<T> = Result<Arc<T>, String>;

static BUILTIN_VOCAB: OnceLock<Loaded<Vocab>> = OnceLock::new();
static BUILTIN_TOKENIZER: OnceLock<Loaded<Tokenizer>> = OnceLock::new();

/// The value `slot` holds, loading it with `load` the first time.
fn load_once<T, E: ToString>(
    slot: &OnceLock<Loaded<T>>,
    load: impl FnOnce() -> Result<T, E>,
) -> Result<&T, &str> {
    slot.get_or_init(|| load().map(Arc::new).map_err(|e| e.to_string()))
        .as_deref()
        .map_err(String::as_str)
}

/// The tokenizer of `[model] id`: the folder's tokenizer.json when the id is a folder of the
/// site that has one, else GPT-2's built-in one. Each part is loaded at most once per build
/// (the built-in ones at most once per process).
pub struct LazyTokenizer {
    model_dir: PathBuf,
    vocab: OnceLock<Loaded<Vocab>>,
    tokenizer: OnceLock<Loaded<Tokenizer>>,
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
        match self.local_dir() {
            Some(dir) => load_once(&self.vocab, || Vocab::for_model_dir(dir)),
            None => load_once(&BUILTIN_VOCAB, Vocab::builtin_gpt2),
        }
    }

    pub fn tokenizer(&self) -> Result<&Tokenizer, &str> {
        match self.local_dir() {
            Some(dir) => load_once(&self.tokenizer, || Tokenizer::for_model_dir(dir)),
            None => load_once(&BUILTIN_TOKENIZER, Tokenizer::builtin_gpt2),
        }
    }

    fn local_dir(&self) -> Option<&Path> {
        self.model_dir.is_dir().then_some(self.model_dir.as_path())
    }
}

#[cfg(test)]
mod tests {
    use super::LazyTokenizer;

    /// Found by fuzzing (`page`): every build of a page whose `prob` names a text that is not
    /// one token rebuilt GPT-2's tokenizer, ~100 ms each time (10 s under AddressSanitizer).
    #[test]
    fn builds_share_the_builtin_tokenizer_and_vocabulary() {
        let first = LazyTokenizer::new("no-such-model-folder".into());
        let second = LazyTokenizer::new("another-missing-folder".into());
        assert!(std::ptr::eq(
            first.tokenizer().unwrap(),
            second.tokenizer().unwrap()
        ));
        assert!(std::ptr::eq(
            first.vocab().unwrap(),
            second.vocab().unwrap()
        ));
        assert_eq!(first.vocab().unwrap().id(" robots"), Some(14193));
    }
}
