//! Where a tokenizer came from, so traces and error messages can say which one was used.

use std::fmt;
use std::path::PathBuf;

/// The origin of a [`crate::Tokenizer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenizerSource {
    /// A `tokenizer.json` file.
    File(PathBuf),
    /// GPT-2's tokenizer rebuilt from tiktoken-rs' embedded r50k_base ranks.
    BuiltinGpt2,
}

impl fmt::Display for TokenizerSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenizerSource::File(path) => write!(f, "{}", path.display()),
            TokenizerSource::BuiltinGpt2 => f.write_str("built-in GPT-2 tokenizer (r50k_base)"),
        }
    }
}
