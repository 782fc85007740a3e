//! A SentencePiece model read straight from its `.spm`/`.model` file, encoding and decoding as
//! the `sentencepiece` library does: normalize (see `normalizer`), segment (see `unigram`),
//! merge runs of unknown characters into one piece, and give each piece its span of the input.
//!
//! Only what Marian (opus-mt) checkpoints use is read: unigram models without byte fallback,
//! user-defined pieces or a denormalizer. Any other file is refused by name, saying why, rather
//! than encoded differently from the library.

mod normalizer;
mod proto;
mod unigram;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use crate::error::TokenizerError;
use normalizer::{Normalizer, SPACE};
use proto::{ModelProto, ModelType, PieceKind, ProtoPiece};
use unigram::Unigram;

/// A unigram SentencePiece model.
#[derive(Debug, Clone)]
pub(crate) struct SentencePiece {
    /// Every piece, by id.
    pieces: Vec<ProtoPiece>,
    /// Every piece's id, by text (`PieceToId`).
    ids: HashMap<String, u32>,
    normalizer: Normalizer,
    unigram: Unigram,
    unk_id: u32,
    unk_surface: String,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
}

/// One piece of an encoded text: its text (the normalized characters, `▁` for a space; an
/// unknown piece is the characters themselves, a run of them merged) and its byte span in the
/// input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub text: String,
    pub unknown: bool,
    pub start: usize,
    pub end: usize,
}

impl SentencePiece {
    /// The model in file `path`.
    pub fn from_file(path: &Path) -> Result<SentencePiece, TokenizerError> {
        let bytes = std::fs::read(path).map_err(|source| TokenizerError::MarianRead {
            path: path.to_owned(),
            source,
        })?;
        SentencePiece::from_bytes(&bytes, path)
    }

    /// A model already read into memory, named `path` in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<SentencePiece, TokenizerError> {
        let broken = |message: String| TokenizerError::SentencePiece {
            path: path.to_owned(),
            message,
        };
        let model = ModelProto::parse(bytes).map_err(broken)?;
        if let Some(reason) = unsupported(&model) {
            return Err(TokenizerError::UnsupportedSentencePiece {
                path: path.to_owned(),
                reason,
            });
        }
        let mut ids = HashMap::with_capacity(model.pieces.len());
        for (id, piece) in (0u32..).zip(&model.pieces) {
            if piece.piece.is_empty() {
                return Err(broken(format!("piece {id} is empty")));
            }
            if ids.insert(piece.piece.clone(), id).is_some() {
                return Err(broken(format!("the piece {:?} appears twice", piece.piece)));
            }
        }
        let mut unknown = (0u32..)
            .zip(&model.pieces)
            .filter(|(_, p)| p.kind == PieceKind::Unknown);
        let unk_id = match (unknown.next(), unknown.next()) {
            (Some((id, _)), None) => id,
            _ => {
                return Err(broken(
                    "it needs exactly one unknown piece (<unk>)".to_owned(),
                ))
            }
        };
        if !model.pieces.iter().any(|p| p.kind == PieceKind::Normal) {
            return Err(broken("it has no normal pieces".to_owned()));
        }
        let spec = &model.normalizer;
        let normalizer = Normalizer::new(
            &spec.precompiled_charsmap,
            spec.add_dummy_prefix,
            spec.remove_extra_whitespaces,
            spec.escape_whitespaces,
        )
        .map_err(broken)?;
        Ok(SentencePiece {
            unigram: Unigram::new(&model.pieces, unk_id),
            ids,
            normalizer,
            unk_id,
            unk_surface: model.trainer.unk_surface.clone(),
            add_dummy_prefix: spec.add_dummy_prefix,
            remove_extra_whitespaces: spec.remove_extra_whitespaces,
            pieces: model.pieces,
        })
    }

    /// The pieces of `text`, as `encode(text, out_type=str)` gives them, with byte spans: a
    /// run of unknown characters is one piece; characters the normalizer drops belong to no
    /// piece, or to the piece around them.
    pub fn encode(&self, text: &str) -> Vec<Piece> {
        let normalized = self.normalizer.normalize(text);
        let mut pieces: Vec<Piece> = Vec::new();
        let mut prev_unknown = false;
        for segment in self.unigram.encode(&normalized.text) {
            let unknown = segment.id == self.unk_id;
            let piece = &normalized.text[segment.start..segment.end];
            let end = normalized.to_input[segment.end];
            match pieces.last_mut() {
                Some(last) if prev_unknown && unknown => {
                    last.text.push_str(piece);
                    last.end = end;
                }
                _ => pieces.push(Piece {
                    text: piece.to_owned(),
                    unknown,
                    start: normalized.to_input[segment.start],
                    end,
                }),
            }
            prev_unknown = unknown;
        }
        pieces
    }

    /// The text `pieces` spell, as `decode_pieces` gives it: `▁` read as a space, the first
    /// one(s) dropped, control pieces silent, pieces this model lacks kept as they are.
    pub fn decode_pieces(&self, pieces: &[&str]) -> String {
        let mut text = String::new();
        let mut at_start = true;
        let mut start_space_seen = false;
        for piece in pieces {
            if start_space_seen || !text.is_empty() {
                at_start = false;
            }
            let (decoded, seen) = self.decode_piece(piece, at_start);
            start_space_seen = seen;
            text.push_str(&decoded);
        }
        text
    }

    /// One piece of `decode_pieces`, and whether it consumed the text's leading space.
    fn decode_piece<'a>(&'a self, piece: &'a str, at_start: bool) -> (Cow<'a, str>, bool) {
        let id = self.ids.get(piece).copied().unwrap_or(self.unk_id);
        match self.pieces[id as usize].kind {
            PieceKind::Control => return (Cow::Borrowed(""), false),
            PieceKind::Unknown if self.pieces[id as usize].piece == piece => {
                return (Cow::Borrowed(&self.unk_surface), false)
            }
            PieceKind::Unknown => return (Cow::Borrowed(piece), false),
            _ => {}
        }
        let mut piece = piece;
        let mut seen = false;
        if at_start && (self.add_dummy_prefix || self.remove_extra_whitespaces) {
            if let Some(rest) = piece.strip_prefix(SPACE) {
                piece = rest;
                // With extra whitespace removed, every leading space goes, not only the first.
                seen = !self.remove_extra_whitespaces;
            }
        }
        (Cow::Owned(piece.replace(SPACE, " ")), seen)
    }

    /// The text of piece `id` (`IdToPiece`).
    pub fn id_to_piece(&self, id: u32) -> Option<&str> {
        self.pieces.get(id as usize).map(|p| p.piece.as_str())
    }
}

/// Why tracebook cannot encode with `model` as sentencepiece would, if it cannot.
fn unsupported(model: &ModelProto) -> Option<String> {
    let trainer = &model.trainer;
    if trainer.model_type != ModelType::Unigram {
        return Some(format!(
            "it is a {:?} model (trainer_spec.model_type), and tracebook reads unigram models \
             only",
            trainer.model_type
        ));
    }
    if trainer.byte_fallback || model.pieces.iter().any(|p| p.kind == PieceKind::Byte) {
        return Some("it falls back to bytes for unknown characters (byte_fallback)".to_owned());
    }
    if trainer.treat_whitespace_as_suffix {
        return Some("it puts spaces after words (treat_whitespace_as_suffix)".to_owned());
    }
    if let Some(piece) = model
        .pieces
        .iter()
        .find(|p| p.kind == PieceKind::UserDefined)
    {
        return Some(format!("it has user-defined pieces ({:?})", piece.piece));
    }
    if model
        .denormalizer
        .as_ref()
        .is_some_and(|d| !d.precompiled_charsmap.is_empty())
    {
        return Some("it has denormalization rules (denormalizer_spec)".to_owned());
    }
    None
}
