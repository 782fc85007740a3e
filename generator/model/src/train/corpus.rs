//! The training text: read, checked, tokenized with GPT-2's tokenizer, split into train and
//! validation tokens (validation is the last `val_share` of the corpus).

use super::error::{TrainError, TrainResult};
use std::path::{Path, PathBuf};
use tracebook_tokenizer::Tokenizer;

/// A tokenized corpus and where it came from.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub path: PathBuf,
    pub sha256: String,
    pub bytes: usize,
    pub train: Vec<u32>,
    pub val: Vec<u32>,
}

impl Corpus {
    /// Read `path` and split it; fails, naming the file, when it cannot fill one context window
    /// of `context + 1` tokens on each side of the split.
    pub fn load(
        path: &Path,
        tokenizer: &Tokenizer,
        val_share: f64,
        context: usize,
    ) -> TrainResult<Corpus> {
        let text = read_text(path)?;
        let ids: Vec<u32> = tokenizer.encode(&text)?.iter().map(|t| t.id).collect();
        let val_len = (ids.len() as f64 * val_share).round() as usize;
        let (train, val) = ids.split_at(ids.len() - val_len);
        let window = context + 1;
        let too_short = train.len() < window || (val_share > 0.0 && val.len() < window);
        if too_short {
            let need = if val_share > 0.0 {
                (window as f64 / val_share.min(1.0 - val_share)).ceil() as usize
            } else {
                window
            };
            return Err(corpus_error(
                path,
                format!(
                    "the corpus has {} tokens, too few for one window of {window} tokens (--context {context}) \
                     in both the training part and the validation part (--val-share {val_share})",
                    ids.len()
                ),
                format!("use a corpus of at least {need} tokens, or a smaller --context"),
            ));
        }
        Ok(Corpus {
            path: path.to_path_buf(),
            sha256: sha256_hex(text.as_bytes()),
            bytes: text.len(),
            train: train.to_vec(),
            val: val.to_vec(),
        })
    }

    /// The corpus's lines before its held-out last `val_share` (by bytes), to train a
    /// tokenizer on without seeing the validation text.
    pub fn training_lines(path: &Path, val_share: f64) -> TrainResult<Vec<String>> {
        let text = read_text(path)?;
        let end = ((text.len() as f64) * (1.0 - val_share)) as usize;
        let end = (0..=end)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        let end = text[..end].rfind('\n').map_or(end, |i| i + 1);
        Ok(text[..end].lines().map(|l| format!("{l}\n")).collect())
    }

    pub fn tokens(&self) -> usize {
        self.train.len() + self.val.len()
    }
}

fn corpus_error(path: &Path, problem: String, hint: impl Into<String>) -> TrainError {
    TrainError::Corpus {
        path: path.to_path_buf(),
        problem,
        hint: hint.into(),
    }
}

/// The file as UTF-8 text, or an error that says what is wrong with it.
fn read_text(path: &Path) -> TrainResult<String> {
    let bytes = std::fs::read(path).map_err(|e| {
        let (problem, hint) = match e.kind() {
            std::io::ErrorKind::NotFound => (
                "the corpus file does not exist".to_string(),
                "pass --corpus a plain UTF-8 text file",
            ),
            std::io::ErrorKind::IsADirectory => (
                "the corpus is a folder, not a file".to_string(),
                "concatenate the texts into one UTF-8 file and pass that",
            ),
            _ => (
                format!("cannot read the corpus: {e}"),
                "check the path and its permissions",
            ),
        };
        corpus_error(path, problem, hint)
    })?;
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(corpus_error(
            path,
            "the corpus is empty".to_string(),
            "pass a file with the text to train on",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        corpus_error(
            path,
            format!("the corpus is not UTF-8 text: invalid byte at offset {offset} (line {line})"),
            "convert it to UTF-8, e.g. `iconv -f latin1 -t utf-8 IN > OUT`",
        )
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
