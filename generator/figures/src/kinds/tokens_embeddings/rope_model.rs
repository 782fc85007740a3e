//! What `figure rope` draws, read from the trace: the angles each pair turned by, one pair at
//! each position, and the scores against distance. `rope.rs` reads them; `rope_panels.rs`
//! draws them.

use crate::options::{choice, Layer};

/// Positions panel c pairs up (the first ones), and the distances its curve runs to.
pub(super) const PAIRED: usize = 8;
pub(super) const DISTANCES: usize = 24;

choice! {
    /// Which vector panel b turns: the head's query or its key.
    pub(super) enum Of { Q = "q", K = "k" } default Q
}

/// What the three panels draw, read from one layer and head of the trace.
pub(super) struct Rope {
    pub layer: Layer,
    pub head: usize,
    /// The key/value head `head` reads.
    pub kv: usize,
    pub of: Of,
    pub pair: usize,
    pub token: usize,
    /// Pairs in a head (dh / 2).
    pub half: usize,
    pub turns: Turns,
    /// Panel b: pair `pair` of `of` at each position, before and after turning.
    pub arrows: Vec<((f64, f64), (f64, f64))>,
    /// Panel c: q·k/√dh against distance, and each pair of positions' own.
    pub scores: Scores,
    /// The config's rope_theta, for the formula's line.
    pub base: Option<f64>,
    /// The smallest total turn the stored values can show (radians).
    pub floor: f64,
}

/// The angles RoPE turned each pair by, read from the trace.
pub(super) struct Turns {
    /// `at[p][i]`: the angle pair i turned by at position p, in (−π, π].
    pub at: Vec<Vec<f64>>,
    /// θᵢ per position, unwrapped over the prompt's positions.
    pub theta: Vec<f64>,
    /// Whether pair i turned enough by the last position to be read from the stored values.
    pub resolved: Vec<bool>,
}

/// Panel c's scores.
pub(super) struct Scores {
    /// At distances 0..=[`DISTANCES`], turning by θᵢ × distance.
    pub curve: Vec<f64>,
    /// (m − n, score) for each m ≥ n of the first [`PAIRED`] positions, turned by the
    /// angles traced at m and n.
    pub dots: Vec<(usize, f64)>,
    /// The largest distance of a dot from the curve.
    pub worst: f64,
}
