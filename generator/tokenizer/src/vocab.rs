//! Token text → id over a whole vocabulary, without building the BPE tokenizer.
//!
//! `prob p " tired"` asks for the vocabulary token whose text is `" tired"`: a lookup, not an
//! encoding. A [`Vocab`] reads only `model.vocab` and `added_tokens` of a byte-level or
//! SentencePiece-style `tokenizer.json`, or the embedded r50k_base bytes, in a few
//! milliseconds; a [`crate::Tokenizer`] takes a few hundred to build (merges, pre-tokenizer). A token's text is its bytes read as UTF-8, so
//! tokens holding only part of a character cannot be named by text.
//!
//! Lookups scan the table (~50k short comparisons, well under a millisecond): a build asks
//! for a handful, and indexing the table up front cost more than all of them together.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use crate::byte_map::extend_with_entry_bytes;
use crate::error::TokenizerError;
use crate::pieces::{fallback_byte, piece_bytes};
use crate::r50k;
use crate::source::TokenizerSource;
use crate::tokenizer::tokenizer_json_in;
use crate::tokenizer_json::{AddedTokenJson, TokenizerJson};

/// Every token's bytes, in lookup order: where two tokens have the same bytes, the first wins.
pub struct Vocab {
    /// The bytes of all tokens; each [`TokenSpan`] points into it.
    bytes: Cow<'static, [u8]>,
    tokens: Vec<TokenSpan>,
    source: TokenizerSource,
}

/// One token: its id and where its bytes sit in [`Vocab::bytes`].
#[derive(Debug, Clone, Copy)]
struct TokenSpan {
    start: usize,
    end: usize,
    id: u32,
}

impl Vocab {
    /// GPT-2's vocabulary from the embedded r50k_base bytes (no file, no network): the ids
    /// [`crate::Tokenizer::builtin_gpt2`] uses.
    pub fn builtin_gpt2() -> Result<Vocab, TokenizerError> {
        let (table, ranges) = r50k::token_ranges()?;
        let tokens = ranges
            .into_iter()
            .zip(0u32..)
            .map(|(range, id)| TokenSpan {
                start: range.start,
                end: range.end,
                id,
            })
            .collect();
        Ok(Vocab {
            bytes: Cow::Borrowed(table),
            tokens,
            source: TokenizerSource::BuiltinGpt2,
        })
    }

    /// The vocabulary of a byte-level (GPT-2, Llama 3, Qwen) or SentencePiece-style (Llama 2,
    /// Mistral, Gemma: `▁the` is `" the"`) `tokenizer.json`: the ids
    /// [`crate::Tokenizer::from_file`] uses. Other tokenizers are a
    /// [`TokenizerError::NotByteLevel`] error.
    pub fn from_file(path: &Path) -> Result<Vocab, TokenizerError> {
        let json = std::fs::read(path).map_err(|source| TokenizerError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file: TokenizerJson<'_> =
            serde_json::from_slice(&json).map_err(|e| TokenizerError::Parse {
                path: path.to_owned(),
                message: format!("reading model.vocab of a byte-level BPE tokenizer: {e}"),
            })?;
        let (bytes, tokens) = match &file.decoder {
            Some(d) if d.kind == "ByteLevel" => file_tokens(&file.model.vocab, &file.added_tokens),
            Some(d) if d.reads_metaspace() => piece_tokens(&file),
            other => {
                return Err(TokenizerError::NotByteLevel {
                    path: path.to_owned(),
                    decoder: other
                        .as_ref()
                        .map_or_else(|| "none".to_owned(), |d| d.kind.clone()),
                })
            }
        };
        Ok(Vocab {
            bytes: Cow::Owned(bytes),
            tokens,
            source: TokenizerSource::File(path.to_owned()),
        })
    }

    /// `dir/tokenizer.json` when present, else GPT-2's built-in vocabulary, as
    /// [`crate::Tokenizer::for_model_dir`] chooses (and with its error for a folder with
    /// only a `tokenizer.model`).
    pub fn for_model_dir(dir: &Path) -> Result<Vocab, TokenizerError> {
        match tokenizer_json_in(dir)? {
            Some(file) => Vocab::from_file(&file),
            None => Vocab::builtin_gpt2(),
        }
    }

    /// The id of the token whose text is exactly `text` (e.g. `" tired"`), special tokens
    /// such as `<|endoftext|>` included.
    pub fn id(&self, text: &str) -> Option<u32> {
        let wanted = text.as_bytes();
        self.tokens
            .iter()
            .find(|t| t.end - t.start == wanted.len() && self.bytes_of(t) == wanted)
            .map(|t| t.id)
    }

    /// The text of token `id`, when it is valid UTF-8 on its own.
    pub fn text(&self, id: u32) -> Option<&str> {
        let token = self.tokens.iter().find(|t| t.id == id)?;
        std::str::from_utf8(self.bytes_of(token)).ok()
    }

    /// Every token text that [`Vocab::id`] finds, once each, in no particular order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        let mut seen = HashSet::new();
        self.tokens
            .iter()
            .filter_map(|t| std::str::from_utf8(self.bytes_of(t)).ok())
            .filter(move |text| !text.is_empty() && seen.insert(*text))
    }

    /// Where this vocabulary came from.
    pub fn source(&self) -> &TokenizerSource {
        &self.source
    }

    fn bytes_of(&self, token: &TokenSpan) -> &[u8] {
        &self.bytes[token.start..token.end]
    }
}

/// The bytes and lookup order of a byte-level file's tokens. Two entries can have the same
/// bytes when one is stored as plain text (added tokens, or entries with characters outside
/// the byte map); encoding that text yields the byte-level entry, so byte-level entries come
/// first, then plain ones, then added tokens.
fn file_tokens(
    vocab: &[(Cow<'_, str>, u32)],
    added: &[AddedTokenJson],
) -> (Vec<u8>, Vec<TokenSpan>) {
    let mut bytes = Vec::with_capacity(vocab.len() * 8);
    let mut tokens = Vec::with_capacity(vocab.len() + added.len());
    let mut plain = Vec::new();
    for (entry, id) in vocab {
        let start = bytes.len();
        if extend_with_entry_bytes(&mut bytes, entry) {
            tokens.push(TokenSpan {
                start,
                end: bytes.len(),
                id: *id,
            });
        } else {
            plain.push((entry.as_ref(), *id));
        }
    }
    let added = added.iter().map(|t| (t.content.as_str(), t.id));
    for (text, id) in plain.into_iter().chain(added) {
        let start = bytes.len();
        bytes.extend_from_slice(text.as_bytes());
        tokens.push(TokenSpan {
            start,
            end: bytes.len(),
            id,
        });
    }
    (bytes, tokens)
}

/// The bytes and lookup order of a SentencePiece-style file's tokens: pieces first, then
/// `<0xHH>` byte tokens (so `"\n"` finds a `\n` piece before `<0x0A>`), then added tokens, as
/// [`crate::Tokenizer::single_token`] prefers them.
fn piece_tokens(file: &TokenizerJson<'_>) -> (Vec<u8>, Vec<TokenSpan>) {
    let byte_fallback = file.model.byte_fallback;
    let is_byte = |piece: &str| byte_fallback && fallback_byte(piece).is_some();
    let pieces = file.model.vocab.iter().filter(|(p, _)| !is_byte(p));
    let byte_tokens = file.model.vocab.iter().filter(|(p, _)| is_byte(p));
    let vocab = pieces
        .chain(byte_tokens)
        .map(|(piece, id)| (piece_bytes(piece, byte_fallback), *id));
    let added = file
        .added_tokens
        .iter()
        .map(|t| (t.content.as_bytes().to_vec(), t.id));
    let mut bytes = Vec::new();
    let mut tokens = Vec::new();
    for (token, id) in vocab.chain(added) {
        let start = bytes.len();
        bytes.extend_from_slice(&token);
        tokens.push(TokenSpan {
            start,
            end: bytes.len(),
            id,
        });
    }
    (bytes, tokens)
}

impl fmt::Debug for Vocab {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vocab")
            .field("source", &self.source)
            .field("tokens", &self.tokens.len())
            .finish()
    }
}
