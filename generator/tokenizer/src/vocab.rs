//! Token text → id over a whole vocabulary, without building the BPE tokenizer.
//!
//! `prob p " tired"` asks for the vocabulary token whose text is `" tired"`: a lookup, not an
//! encoding. A [`Vocab`] reads only `model.vocab` and `added_tokens` of a `tokenizer.json`,
//! or the embedded r50k_base bytes, in a few milliseconds; a [`crate::Tokenizer`] takes a few
//! hundred to build (merges, pre-tokenizer). A token's text is its bytes read as UTF-8, so
//! tokens holding only part of a character cannot be named by text and are left out.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use crate::byte_map::byte_level_entry_bytes;
use crate::error::TokenizerError;
use crate::r50k;
use crate::source::TokenizerSource;

/// The id of every token whose bytes are whole UTF-8 text, keyed by that text.
pub struct Vocab {
    ids: HashMap<Cow<'static, str>, u32>,
    source: TokenizerSource,
}

/// The parts of a `tokenizer.json` a lookup needs; serde skips the rest (merges included).
#[derive(Deserialize)]
struct TokenizerJson {
    model: ModelJson,
    decoder: Option<DecoderJson>,
    #[serde(default)]
    added_tokens: Vec<AddedTokenJson>,
}

#[derive(Deserialize)]
struct ModelJson {
    vocab: HashMap<String, u32>,
}

#[derive(Deserialize)]
struct DecoderJson {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct AddedTokenJson {
    id: u32,
    content: String,
}

impl Vocab {
    /// GPT-2's vocabulary from the embedded r50k_base bytes (no file, no network): the ids
    /// [`crate::Tokenizer::builtin_gpt2`] uses.
    pub fn builtin_gpt2() -> Result<Vocab, TokenizerError> {
        let tokens = r50k::token_bytes()?;
        let mut ids = HashMap::with_capacity(tokens.len());
        for (bytes, id) in tokens.into_iter().zip(0u32..) {
            if let Ok(text) = std::str::from_utf8(bytes) {
                ids.insert(Cow::Borrowed(text), id);
            }
        }
        Ok(Vocab {
            ids,
            source: TokenizerSource::BuiltinGpt2,
        })
    }

    /// The vocabulary of a byte-level (GPT-2 style) `tokenizer.json`: the ids
    /// [`crate::Tokenizer::from_file`] uses. Other tokenizers are a
    /// [`TokenizerError::NotByteLevel`] error.
    pub fn from_file(path: &Path) -> Result<Vocab, TokenizerError> {
        let json = std::fs::read(path).map_err(|source| TokenizerError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file: TokenizerJson =
            serde_json::from_slice(&json).map_err(|e| TokenizerError::Parse {
                path: path.to_owned(),
                message: format!("reading model.vocab of a byte-level BPE tokenizer: {e}"),
            })?;
        let decoder = file.decoder.map_or_else(|| "none".to_owned(), |d| d.kind);
        if decoder != "ByteLevel" {
            return Err(TokenizerError::NotByteLevel {
                path: path.to_owned(),
                decoder,
            });
        }
        Ok(Vocab {
            ids: file_ids(file.model.vocab, file.added_tokens),
            source: TokenizerSource::File(path.to_owned()),
        })
    }

    /// `dir/tokenizer.json` when present, else GPT-2's built-in vocabulary, as
    /// [`crate::Tokenizer::for_model_dir`] chooses.
    pub fn for_model_dir(dir: &Path) -> Result<Vocab, TokenizerError> {
        let file = dir.join("tokenizer.json");
        if file.is_file() {
            Vocab::from_file(&file)
        } else {
            Vocab::builtin_gpt2()
        }
    }

    /// The id of the token whose text is exactly `text` (e.g. `" tired"`), special tokens
    /// such as `<|endoftext|>` included.
    pub fn id(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// Every token text that [`Vocab::id`] knows, in no particular order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.ids.keys().map(|text| text.as_ref())
    }

    /// Where this vocabulary came from.
    pub fn source(&self) -> &TokenizerSource {
        &self.source
    }
}

/// Text → id from a byte-level file. Two entries can spell the same text when one is stored
/// as plain text (added tokens, or entries with characters outside the byte map); encoding
/// that text yields the byte-level entry, so byte-level entries win, then plain ones, then
/// added tokens.
fn file_ids(
    vocab: HashMap<String, u32>,
    added: Vec<AddedTokenJson>,
) -> HashMap<Cow<'static, str>, u32> {
    let mut byte_level = Vec::with_capacity(vocab.len());
    let mut plain = Vec::new();
    for (entry, id) in vocab {
        match byte_level_entry_bytes(&entry) {
            Some(bytes) => byte_level.push((bytes, id)),
            None => plain.push((entry.into_bytes(), id)),
        }
    }
    let added = added.into_iter().map(|t| (t.content.into_bytes(), t.id));
    let mut ids = HashMap::with_capacity(byte_level.len() + plain.len());
    for (bytes, id) in byte_level.into_iter().chain(plain).chain(added) {
        if let Ok(text) = String::from_utf8(bytes) {
            ids.entry(Cow::Owned(text)).or_insert(id);
        }
    }
    ids
}

impl fmt::Debug for Vocab {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vocab")
            .field("source", &self.source)
            .field("texts", &self.ids.len())
            .finish()
    }
}
