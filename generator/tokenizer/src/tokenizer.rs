//! The tokenizer tracebook runs prompts through: GPT-2's byte-level BPE built in, or any
//! `tokenizer.json` (Hugging Face format), with a byte span for every token. Byte-level BPE
//! (GPT-2, Llama 3, Qwen) and SentencePiece-style BPE with byte fallback (Llama 2, Mistral,
//! Gemma) give each token the bytes it stands for: `▁the` reads as `" the"`, a `<0xF0>` byte
//! token as that byte (U+FFFD when it is only part of a character), see `spans` and `pieces`.
//!
//! Prompt text is always ordinary text: a special token's spelling such as `<|endoftext|>`
//! inside a prompt is tokenized like any other characters, as tiktoken's `encode_ordinary`
//! does, so an author cannot inject control tokens by accident. The special tokens stay in
//! the vocabulary, so `decode` and `token_text` still spell them out. A prompt that means
//! them (`special_tokens = true`, to explain document boundaries) goes through `encode_as`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tokenizers::DecoderWrapper;

use crate::builtin;
use crate::byte_map::vocab_string_to_bytes;
use crate::error::TokenizerError;
use crate::pieces::{fallback_byte, metaspace_table};
use crate::replay::MergeTable;
use crate::source::TokenizerSource;
use crate::spans::{exact_spans, offset_spans, TokenBytes};
use tracebook_trace::{Token, WordMerges};

/// A tokenizer wrapping `tokenizers::Tokenizer`.
#[derive(Clone)]
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    source: TokenizerSource,
    /// The bytes behind every id, for byte-level and SentencePiece-style tokenizers; `None`
    /// for the others.
    token_bytes: Option<TokenBytes>,
    /// Whether the vocabulary is byte-level BPE (GPT-2 style), whose merges can be replayed.
    byte_level: bool,
    /// The merge rules by pair, read from the model the first time a replay needs them.
    merge_table: OnceLock<Option<MergeTable>>,
}

impl Tokenizer {
    /// GPT-2's tokenizer built in, from the r50k_base ranks embedded at build time: no file,
    /// no network. Building takes ~100 ms (recovering the merges); keep the value and reuse
    /// it, and use [`crate::Vocab`] when only a token's id is needed.
    pub fn builtin_gpt2() -> Result<Tokenizer, TokenizerError> {
        let built = builtin::gpt2()?;
        Ok(Tokenizer::wrap(
            built.tokenizer,
            TokenizerSource::BuiltinGpt2,
            Some(TokenBytes::new(built.token_bytes)),
            true,
        ))
    }

    /// A tokenizer saved as `tokenizer.json` (Hugging Face format).
    pub fn from_file(path: &Path) -> Result<Tokenizer, TokenizerError> {
        let json = std::fs::read_to_string(path).map_err(|source| TokenizerError::Read {
            path: path.to_owned(),
            source,
        })?;
        Tokenizer::from_json(&json, path)
    }

    /// A `tokenizer.json` already read into memory (the browser downloads it; no file), named
    /// `path` in messages and as its source.
    pub fn from_json(json: &str, path: &Path) -> Result<Tokenizer, TokenizerError> {
        let inner: tokenizers::Tokenizer = json.parse().map_err(|e| TokenizerError::Parse {
            path: path.to_owned(),
            message: format!("{e}"),
        })?;
        let byte_level = byte_level_table(&inner);
        let is_byte_level = byte_level.is_some();
        let token_bytes = byte_level.or_else(|| metaspace_table(&inner));
        Ok(Tokenizer::wrap(
            inner,
            TokenizerSource::File(path.to_owned()),
            token_bytes,
            is_byte_level,
        ))
    }

    /// `dir/tokenizer.json` when present, else the built-in GPT-2 tokenizer; a folder with
    /// only a SentencePiece `tokenizer.model` is an error saying how to convert it.
    pub fn for_model_dir(dir: &Path) -> Result<Tokenizer, TokenizerError> {
        match tokenizer_json_in(dir)? {
            Some(file) => Tokenizer::from_file(&file),
            None => Tokenizer::builtin_gpt2(),
        }
    }

    /// Settings every tokenizer gets so that `encode` covers exactly the given text: special
    /// tokens' spellings read as ordinary text, no padding, no truncation (a tokenizer.json
    /// may ask for either).
    fn wrap(
        mut inner: tokenizers::Tokenizer,
        source: TokenizerSource,
        token_bytes: Option<TokenBytes>,
        byte_level: bool,
    ) -> Tokenizer {
        inner.set_encode_special_tokens(true);
        inner.with_padding(None);
        // Clearing truncation cannot fail; only setting a maximum length is validated.
        let _ = inner.with_truncation(None);
        Tokenizer {
            inner,
            source,
            token_bytes,
            byte_level,
            merge_table: OnceLock::new(),
        }
    }

    /// Where this tokenizer came from.
    pub fn source(&self) -> &TokenizerSource {
        &self.source
    }

    /// The tokens of `text`: id, text, and byte span `[start, end)` in `text`. No special
    /// tokens are added and none are recognised in the text (see the module docs).
    pub fn encode(&self, text: &str) -> Result<Vec<Token>, TokenizerError> {
        self.encode_as(text, false)
    }

    /// As `encode`, but with `special` the spellings of special tokens (`<|endoftext|>`) are
    /// read as those tokens, for a prompt that opts in (`special_tokens = true`).
    pub fn encode_as(&self, text: &str, special: bool) -> Result<Vec<Token>, TokenizerError> {
        let encoded = if special {
            let mut recognising = self.inner.clone();
            recognising.set_encode_special_tokens(false);
            recognising.encode(text, false)
        } else {
            self.inner.encode(text, false)
        };
        let encoding = encoded.map_err(|e| TokenizerError::Encode {
            message: format!("{e}"),
        })?;
        let ids = encoding.get_ids();
        let table = self.token_bytes.as_ref();
        let exact = table.and_then(|table| exact_spans(text, ids, table));
        Ok(exact.unwrap_or_else(|| offset_spans(text, ids, encoding.get_offsets(), table)))
    }

    /// How byte-pair encoding built `tokens` (the encoding of `text`), word by word: each
    /// word's bytes and the merges applied to them in order. Empty for tokenizers that are
    /// not byte-level BPE; a word whose replay does not give its tokens (a special token) is
    /// left out.
    pub fn merges(&self, text: &str, tokens: &[Token]) -> Vec<WordMerges> {
        let table = self.merge_table.get_or_init(|| {
            let bytes = self.token_bytes.as_ref().filter(|_| self.byte_level)?;
            MergeTable::of(self.inner.get_model(), bytes)
        });
        match (table, self.inner.get_pre_tokenizer()) {
            (Some(table), Some(pre_tokenizer)) => table.words(pre_tokenizer, text, tokens),
            _ => Vec::new(),
        }
    }

    /// The text `ids` stand for, special tokens spelled out. Ids outside the vocabulary are
    /// an error; bytes that do not form UTF-8 become U+FFFD.
    pub fn decode(&self, ids: &[u32]) -> Result<String, TokenizerError> {
        let vocab_size = self.vocab_size();
        if let Some(&id) = ids.iter().find(|&&id| self.inner.id_to_token(id).is_none()) {
            return Err(TokenizerError::UnknownId { id, vocab_size });
        }
        self.inner
            .decode(ids, false)
            .map_err(|e| TokenizerError::Decode {
                message: format!("{e}"),
            })
    }

    /// What one token reads as: its bytes as UTF-8, so `▁the` is `" the"` and `<0x0A>` is
    /// `"\n"`; a token holding part of a UTF-8 character shows U+FFFD for the partial bytes.
    /// Ids outside the vocabulary read as the empty string.
    pub fn token_text(&self, id: u32) -> String {
        match self.token_bytes.as_ref().and_then(|table| table.get(id)) {
            Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            None => self.inner.decode(&[id], false).unwrap_or_default(),
        }
    }

    /// The id of the token whose text is exactly `text`, e.g. `" tired"`: a lookup in the
    /// vocabulary where the tokens' bytes are known (for Llama 2, `" tired"` is `▁tired`,
    /// which encoding `" tired"` does not give: it adds a space). Special tokens are not
    /// found by their spelling, as prompts do not read it as them; where several tokens have
    /// the same bytes, an ordinary piece wins over a `<0xHH>` byte token. Other tokenizers:
    /// the text's one token when it encodes to one.
    pub fn single_token(&self, text: &str) -> Option<u32> {
        if text.is_empty() {
            return None;
        }
        let Some(table) = self.token_bytes.as_ref() else {
            return match self.encode(text).ok()?.as_slice() {
                [token] if token.start == 0 && token.end == text.len() => Some(token.id),
                _ => None,
            };
        };
        let added = self.inner.get_added_tokens_decoder();
        table
            .ids_of(text.as_bytes())
            .filter(|id| !added.get(id).is_some_and(|token| token.special))
            .min_by_key(|&id| {
                let byte_token = !self.byte_level
                    && self
                        .inner
                        .id_to_token(id)
                        .is_some_and(|piece| fallback_byte(&piece).is_some());
                (byte_token, id)
            })
    }

    /// The id of the special token spelled `text` (`</s>`, `<|endoftext|>`), if it is one.
    pub fn special_token(&self, text: &str) -> Option<u32> {
        let added = self.inner.get_added_tokens_decoder();
        let id = self.inner.token_to_id(text)?;
        added.get(&id).is_some_and(|t| t.special).then_some(id)
    }

    /// Number of ids, special tokens included (50257 for GPT-2, `<|endoftext|>` = 50256).
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// This tokenizer as a `tokenizer.json`, to save beside a checkpoint.
    pub fn to_json(&self) -> Result<String, TokenizerError> {
        self.inner
            .to_string(false)
            .map_err(|e| TokenizerError::Serialize {
                message: format!("{e}"),
            })
    }
}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokenizer")
            .field("source", &self.source)
            .field("vocab_size", &self.vocab_size())
            .field("byte_level", &self.byte_level)
            .field("token_bytes", &self.token_bytes.is_some())
            .finish()
    }
}

/// The `tokenizer.json` of model folder `dir`: `None` when it has none (GPT-2's built-in
/// tokenizer serves), an error when it has only a SentencePiece `tokenizer.model`, which the
/// `tokenizers` crate cannot read (the error gives the command that converts it).
pub fn tokenizer_json_in(dir: &Path) -> Result<Option<PathBuf>, TokenizerError> {
    let json = dir.join("tokenizer.json");
    if json.is_file() {
        return Ok(Some(json));
    }
    if dir.join("tokenizer.model").is_file() {
        return Err(TokenizerError::SentencePieceOnly {
            dir: dir.to_owned(),
        });
    }
    Ok(None)
}

/// The bytes behind every id when `inner` decodes byte-level (GPT-2 style) vocabularies.
fn byte_level_table(inner: &tokenizers::Tokenizer) -> Option<TokenBytes> {
    if !matches!(inner.get_decoder(), Some(DecoderWrapper::ByteLevel(_))) {
        return None;
    }
    let vocab = inner.get_vocab(true);
    let len = vocab.values().max().map_or(0, |&max| max as usize + 1);
    let mut by_id = vec![Vec::new(); len];
    for (entry, id) in &vocab {
        by_id[*id as usize] = vocab_string_to_bytes(entry);
    }
    for (id, added) in inner.get_added_tokens_decoder() {
        by_id[id as usize] = added.content.into_bytes();
    }
    Some(TokenBytes::new(by_id))
}
