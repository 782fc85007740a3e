//! The model's tokenizer, built only when an article asks `prob` (it takes tens of ms).

use std::path::PathBuf;
use std::sync::OnceLock;
use tracebook_tokenizer::Tokenizer;

/// The tokenizer of `[model] id`: the folder's tokenizer.json when the id is a folder of the
/// site that has one, else GPT-2's built-in tokenizer. Built at most once per build.
pub struct LazyTokenizer {
    model_dir: PathBuf,
    cell: OnceLock<Result<Tokenizer, String>>,
}

impl LazyTokenizer {
    pub fn new(model_dir: PathBuf) -> LazyTokenizer {
        LazyTokenizer {
            model_dir,
            cell: OnceLock::new(),
        }
    }

    pub fn get(&self) -> Result<&Tokenizer, &str> {
        self.cell
            .get_or_init(|| {
                let made = if self.model_dir.is_dir() {
                    Tokenizer::for_model_dir(&self.model_dir)
                } else {
                    Tokenizer::builtin_gpt2()
                };
                made.map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }
}
