//! One token of an encoded text: its id, what it reads as, and where it sits in the text.
//!
//! Stand-in for `tracebook_trace::Token` (same fields and derives) until that crate
//! defines it; then this module re-exports that type instead.

use serde::{Deserialize, Serialize};

/// A token of an encoded text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    /// Vocabulary id.
    pub id: u32,
    /// The token's bytes as (lossy) UTF-8.
    pub text: String,
    /// Byte offset of the token's first byte in the encoded text.
    pub start: usize,
    /// Byte offset just past the token's last byte.
    pub end: usize,
}

pub(crate) use Piece as Token;
