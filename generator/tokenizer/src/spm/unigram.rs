//! The best segmentation of normalized text under a unigram model: sentencepiece's
//! `Model::EncodeOptimized` (unigram_model.cc), step for step so that ties and `f32` sums come
//! out the same. Pieces are tried shortest first at each position and replace an earlier path
//! only when strictly better; a character no single piece covers gets an unknown node scored
//! ten below the worst piece.

use std::collections::HashMap;

use super::proto::{PieceKind, ProtoPiece};

/// sentencepiece's `kUnkPenalty`.
const UNK_PENALTY: f32 = 10.0;

/// The normal pieces by text, with their ids and scores.
#[derive(Debug, Clone)]
pub(crate) struct Unigram {
    pieces: HashMap<String, (u32, f32)>,
    /// The longest piece, in bytes: no match can be longer.
    max_len: usize,
    unk_id: u32,
    unk_score: f32,
}

/// One piece of a segmentation: its bytes `[start, end)` in the normalized text and its id
/// (the unknown id for a character no piece covers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    pub start: usize,
    pub end: usize,
    pub id: u32,
}

/// The best path found so far that ends at a position.
#[derive(Debug, Clone, Copy)]
struct Best {
    score: f32,
    start: Option<usize>,
    id: u32,
}

impl Unigram {
    /// The model over `pieces` (indexed by id). Only normal pieces take part, as in
    /// sentencepiece: control and unknown pieces are never matched, unused ones are skipped.
    pub fn new(pieces: &[ProtoPiece], unk_id: u32) -> Unigram {
        let mut by_text = HashMap::with_capacity(pieces.len());
        let mut min_score = f32::MAX;
        for (id, piece) in (0u32..).zip(pieces) {
            if piece.kind == PieceKind::Normal {
                by_text.insert(piece.piece.clone(), (id, piece.score));
                min_score = min_score.min(piece.score);
            }
        }
        Unigram {
            max_len: by_text.keys().map(String::len).max().unwrap_or(0),
            pieces: by_text,
            unk_id,
            unk_score: min_score - UNK_PENALTY,
        }
    }

    /// The segmentation of `normalized` with the highest total score, in text order.
    pub fn encode(&self, normalized: &str) -> Vec<Segment> {
        let size = normalized.len();
        let unset = Best {
            score: 0.0,
            start: None,
            id: self.unk_id,
        };
        let mut best = vec![unset; size + 1];
        let mut start = 0;
        while let Some(first) = normalized[start..].chars().next() {
            let till_here = best[start].score;
            let char_len = first.len_utf8();
            let mut has_single = false;
            let mut end = start;
            for c in normalized[start..].chars() {
                end += c.len_utf8();
                if end - start > self.max_len {
                    break;
                }
                if let Some(&(id, score)) = self.pieces.get(&normalized[start..end]) {
                    offer(&mut best[end], score + till_here, start, id);
                    has_single |= end - start == char_len;
                }
            }
            if !has_single {
                let unk = self.unk_score + till_here;
                offer(&mut best[start + char_len], unk, start, self.unk_id);
            }
            start += char_len;
        }
        let mut segments = Vec::new();
        let mut end = size;
        while let Some(start) = best[end].start.filter(|_| end > 0) {
            segments.push(Segment {
                start,
                end,
                id: best[end].id,
            });
            end = start;
        }
        segments.reverse();
        segments
    }
}

/// Keeps the path ending at `node` through `start` with `score` if it is the first or better.
fn offer(node: &mut Best, score: f32, start: usize, id: u32) {
    if node.start.is_none() || score > node.score {
        *node = Best {
            score,
            start: Some(start),
            id,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(text: &str, score: f32, kind: PieceKind) -> ProtoPiece {
        ProtoPiece {
            piece: text.to_owned(),
            score,
            kind,
        }
    }

    fn model() -> Unigram {
        Unigram::new(
            &[
                piece("<unk>", 0.0, PieceKind::Unknown),
                piece("</s>", 0.0, PieceKind::Control),
                piece("a", -1.0, PieceKind::Normal),
                piece("b", -1.0, PieceKind::Normal),
                piece("ab", -1.5, PieceKind::Normal),
                piece("abc", -9.0, PieceKind::Normal),
                piece("c", -1.0, PieceKind::Normal),
                piece("ca", -3.0, PieceKind::Unused),
            ],
            0,
        )
    }

    fn ids(text: &str) -> Vec<u32> {
        model().encode(text).iter().map(|s| s.id).collect()
    }

    #[test]
    fn the_best_total_score_wins() {
        assert_eq!(ids("ab"), [4]);
        assert_eq!(ids("abc"), [4, 6], "ab + c (-2.5) beats abc (-9)");
        assert_eq!(ids("ca"), [6, 2], "unused pieces are never chosen");
        assert!(ids("").is_empty());
    }

    #[test]
    fn uncovered_characters_are_unknown_one_each() {
        let segments = model().encode("a\u{1F916}\u{1F916}</s>");
        let ids: Vec<u32> = segments.iter().map(|s| s.id).collect();
        // Control pieces are not matched: `</s>` is unknown characters and pieces.
        assert_eq!(ids, [2, 0, 0, 0, 0, 0, 0]);
        assert_eq!((segments[1].start, segments[1].end), (1, 5));
    }
}
