//! Marian's tokenizer (Helsinki-NLP/opus-mt-* checkpoints), read from the files the Hugging Face
//! hub ships: `source.spm` and `target.spm` (SentencePiece unigram models) and `vocab.json`
//! (one vocabulary for both sides), with `tokenizer_config.json` naming the special tokens.
//!
//! It does what transformers' `MarianTokenizer` (5.24) does. Encoding: a language code that
//! starts the text (`>>fra<<`, up to the first `<<`) is one token; the rest goes through the
//! side's SentencePiece model; each piece's id is its `vocab.json` entry, `<unk>` when it has
//! none (Marian's vocabulary holds only the pieces seen in training, and a run of unknown
//! characters is one piece); `</s>` ends every text. Decoding: ids back to pieces, special
//! tokens spelled out (each followed by a space) or skipped, the pieces between them decoded by
//! SentencePiece, `▁` read as a space, the ends trimmed. With one vocabulary for both sides
//! `MarianTokenizer` decodes with source.spm, target ids included;
//! [`MarianTokenizer::decode_with`] picks the model.
//!
//! Spellings of special tokens (`</s>`) in a text are ordinary text, as for every tracebook
//! tokenizer (`split_special_tokens=True` in transformers). A token's text is what its id reads
//! as (`▁the` → `" the"`, `<unk>` for an unknown one); its span is the bytes of the text it came
//! from, sentencepiece's own offsets: the space SentencePiece puts in front is no byte of the
//! text, spaces it drops belong to no token or to the token after them, and `</s>` has an empty
//! span at the end.

mod files;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::TokenizerError;
use crate::spm::SentencePiece;
use files::{read_config, read_vocab};
use tracebook_trace::Token;

const SOURCE_SPM: &str = "source.spm";
const TARGET_SPM: &str = "target.spm";
const VOCAB: &str = "vocab.json";
const CONFIG: &str = "tokenizer_config.json";

/// Which side of a translation a text is: the model's input, or its output (`text_target`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarianSide {
    Source,
    Target,
}

/// A Marian checkpoint's tokenizer.
#[derive(Clone)]
pub struct MarianTokenizer {
    dir: PathBuf,
    source: SentencePiece,
    target: SentencePiece,
    vocab: HashMap<String, u32>,
    pieces: HashMap<u32, String>,
    special: Special,
}

/// The special tokens' spellings and ids.
#[derive(Debug, Clone)]
struct Special {
    eos: String,
    unk: String,
    pad: String,
    eos_id: u32,
    unk_id: u32,
    pad_id: Option<u32>,
}

impl MarianTokenizer {
    /// Whether `dir` holds a Marian tokenizer (`source.spm` and `vocab.json`). Such a folder
    /// has no tokenizer.json, so [`crate::Tokenizer::for_model_dir`] would fall back to GPT-2's.
    pub fn is_marian_dir(dir: &Path) -> bool {
        dir.join(SOURCE_SPM).is_file() && dir.join(VOCAB).is_file()
    }

    /// The tokenizer of the Marian checkpoint in `dir`.
    pub fn from_dir(dir: &Path) -> Result<MarianTokenizer, TokenizerError> {
        let config = read_config(&dir.join(CONFIG))?;
        let vocab_path = dir.join(VOCAB);
        let vocab = read_vocab(&vocab_path)?;
        let id = |token: &str| {
            vocab
                .get(token)
                .copied()
                .ok_or_else(|| TokenizerError::MarianFile {
                    path: vocab_path.clone(),
                    message: format!("the special token {token} has no id"),
                })
        };
        let special = Special {
            eos_id: id(&config.eos)?,
            unk_id: id(&config.unk)?,
            pad_id: vocab.get(&config.pad).copied(),
            eos: config.eos,
            unk: config.unk,
            pad: config.pad,
        };
        Ok(MarianTokenizer {
            dir: dir.to_owned(),
            source: SentencePiece::from_file(&dir.join(SOURCE_SPM))?,
            target: SentencePiece::from_file(&dir.join(TARGET_SPM))?,
            pieces: vocab
                .iter()
                .map(|(piece, &id)| (id, piece.clone()))
                .collect(),
            vocab,
            special,
        })
    }

    /// The folder the tokenizer was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The tokens of source text `text`, `</s>` last.
    pub fn encode_source(&self, text: &str) -> Vec<Token> {
        self.encode(text, MarianSide::Source)
    }

    /// The tokens of target text `text` (a translation), `</s>` last.
    pub fn encode_target(&self, text: &str) -> Vec<Token> {
        self.encode(text, MarianSide::Target)
    }

    /// The tokens of `text` as `side` reads it, `</s>` last (see the module docs).
    pub fn encode(&self, text: &str, side: MarianSide) -> Vec<Token> {
        let (code, rest) = split_language_code(text);
        let shift = text.len() - rest.len();
        let mut tokens = Vec::new();
        if let Some(code) = code {
            tokens.push(self.token(self.id_of(code), 0, code.len()));
        }
        for piece in self.model(side).encode(rest) {
            let id = self.id_of(&piece.text);
            tokens.push(self.token(id, shift + piece.start, shift + piece.end));
        }
        tokens.push(self.token(self.special.eos_id, text.len(), text.len()));
        tokens
    }

    /// The text `ids` stand for, as `MarianTokenizer.decode` gives it: with one vocabulary
    /// for both sides, decoded by source.spm, target ids included. `skip_special_tokens` drops
    /// `</s>`, `<unk>` and `<pad>`; otherwise each is spelled out and followed by a space.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> Result<String, TokenizerError> {
        self.decode_with(ids, skip_special_tokens, MarianSide::Source)
    }

    /// As [`MarianTokenizer::decode`], with the SentencePiece model of `side`
    /// (`use_source_tokenizer=False` is `MarianSide::Target`). The two differ only next to
    /// special tokens, where a piece one model lacks keeps its leading space.
    pub fn decode_with(
        &self,
        ids: &[u32],
        skip_special_tokens: bool,
        side: MarianSide,
    ) -> Result<String, TokenizerError> {
        let model = self.model(side);
        let mut text = String::new();
        let mut run: Vec<&str> = Vec::new();
        for &id in ids {
            if skip_special_tokens && self.is_special_id(id) {
                continue;
            }
            let piece = self.piece(id, model).ok_or(TokenizerError::UnknownId {
                id,
                vocab_size: self.vocab_size(),
            })?;
            if self.is_special(piece) {
                text.push_str(&model.decode_pieces(&run));
                text.push_str(piece);
                text.push(' ');
                run.clear();
            } else {
                run.push(piece);
            }
        }
        text.push_str(&model.decode_pieces(&run));
        Ok(python_strip(&text.replace('\u{2581}', " ")).to_owned())
    }

    /// What token `id` reads as: its piece with `▁` as a space; special tokens spelled out;
    /// the empty string for an id outside the vocabulary.
    pub fn token_text(&self, id: u32) -> String {
        self.piece(id, &self.source)
            .map(|piece| piece.replace('\u{2581}', " "))
            .unwrap_or_default()
    }

    /// The id of the vocabulary entry spelled `piece` (`▁the`, `>>fra<<`, `</s>`).
    pub fn token_id(&self, piece: &str) -> Option<u32> {
        self.vocab.get(piece).copied()
    }

    /// The language codes the vocabulary holds (`>>fra<<`), in id order: a multilingual
    /// model's source text starts with one to say which language to translate into.
    pub fn language_codes(&self) -> Vec<&str> {
        let mut codes: Vec<(&str, u32)> = self
            .vocab
            .iter()
            .filter(|(piece, _)| piece.starts_with(">>") && piece.ends_with("<<"))
            .map(|(piece, &id)| (piece.as_str(), id))
            .collect();
        codes.sort_by_key(|&(_, id)| id);
        codes.into_iter().map(|(code, _)| code).collect()
    }

    /// Number of entries in vocab.json (`MarianTokenizer.vocab_size`).
    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    /// The id of `</s>`, which ends every encoded text.
    pub fn eos_id(&self) -> u32 {
        self.special.eos_id
    }

    /// The id of `<unk>`, for pieces the vocabulary lacks.
    pub fn unk_id(&self) -> u32 {
        self.special.unk_id
    }

    /// The id of `<pad>`, when the vocabulary has it (opus-mt's has it last).
    pub fn pad_id(&self) -> Option<u32> {
        self.special.pad_id
    }

    fn model(&self, side: MarianSide) -> &SentencePiece {
        match side {
            MarianSide::Source => &self.source,
            MarianSide::Target => &self.target,
        }
    }

    fn id_of(&self, piece: &str) -> u32 {
        self.vocab
            .get(piece)
            .copied()
            .unwrap_or(self.special.unk_id)
    }

    fn token(&self, id: u32, start: usize, end: usize) -> Token {
        Token {
            id,
            text: self.token_text(id),
            start,
            end,
        }
    }

    /// The piece of `id`: its vocab.json entry, else (as `MarianTokenizer` falls back) the
    /// SentencePiece model's piece of that number.
    fn piece<'a>(&'a self, id: u32, model: &'a SentencePiece) -> Option<&'a str> {
        self.pieces
            .get(&id)
            .map(String::as_str)
            .or_else(|| model.id_to_piece(id))
    }

    fn is_special(&self, piece: &str) -> bool {
        let s = &self.special;
        piece == s.eos || piece == s.unk || piece == s.pad
    }

    fn is_special_id(&self, id: u32) -> bool {
        let s = &self.special;
        id == s.eos_id || id == s.unk_id || s.pad_id == Some(id)
    }
}

impl fmt::Debug for MarianTokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MarianTokenizer")
            .field("dir", &self.dir)
            .field("vocab_size", &self.vocab_size())
            .field("special", &self.special)
            .finish()
    }
}

/// A leading language code (`>>fra<<`: the text starts with `>>`, the code runs to the first
/// `<<`) and the rest of the text, as `MarianTokenizer.remove_language_code` splits them.
fn split_language_code(text: &str) -> (Option<&str>, &str) {
    match text.find("<<").filter(|_| text.starts_with(">>")) {
        Some(at) => (Some(&text[..at + 2]), &text[at + 2..]),
        None => (None, text),
    }
}

/// `text` without the characters Python's `str.strip()` removes at its ends: Unicode
/// whitespace and the four separators U+001C–U+001F.
fn python_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_code_runs_from_the_start_to_the_first_closing_mark() {
        assert_eq!(split_language_code(">>fra<< Hi"), (Some(">>fra<<"), " Hi"));
        assert_eq!(
            split_language_code(">> a << b <<"),
            (Some(">> a <<"), " b <<")
        );
        assert_eq!(split_language_code(">>fra"), (None, ">>fra"));
        assert_eq!(split_language_code(" >>fra<<"), (None, " >>fra<<"));
        assert_eq!(split_language_code("<<>>"), (None, "<<>>"));
    }

    #[test]
    fn strip_removes_what_python_does() {
        assert_eq!(python_strip(" \u{1f}\u{a0}a b\u{3000}\n"), "a b");
        assert_eq!(python_strip("\u{200b}a"), "\u{200b}a");
    }
}
