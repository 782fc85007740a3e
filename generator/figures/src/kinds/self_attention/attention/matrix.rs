//! The head's matrix for `figure attention`: the stage's tensor read from the trace, checked
//! against the prompt, and the part of it on show.

use super::stack::View;
use super::Stage;
use crate::error::FigureError;
use crate::options::{Head, Layer};
use crate::prompt::Prompt;

/// Prompts longer than this show their last tokens.
const MAX_TOKENS: usize = 24;

/// One head's matrix, queries × keys, with the part of it on show: T×T and causal for
/// self-attention (an encoder's with nothing masked), or any shape (a decoder's positions over the source's, for
/// cross-attention) with every key open to every query.
pub(in crate::kinds) struct Matrix {
    data: Vec<f32>,
    /// Queries (rows).
    pub(in crate::kinds) n: usize,
    /// Keys (columns).
    pub(in crate::kinds) cols: usize,
    /// First token shown, of rows and columns alike; prompts longer than `MAX_TOKENS` show
    /// their end (self-attention only).
    pub(in crate::kinds) first: usize,
    /// Whether query q sees only keys up to q (future cells are blank).
    pub(in crate::kinds) causal: bool,
}

impl Matrix {
    /// A `rows` × `cols` matrix, row-major, every cell on show and none in the future.
    pub(in crate::kinds) fn full(data: Vec<f32>, rows: usize, cols: usize) -> Matrix {
        debug_assert_eq!(data.len(), rows * cols);
        Matrix {
            data,
            n: rows,
            cols,
            first: 0,
            causal: false,
        }
    }

    pub(in crate::kinds) fn at(&self, query: usize, key: usize) -> f64 {
        f64::from(self.data[query * self.cols + key])
    }

    /// The rows on show.
    pub(in crate::kinds) fn shown(&self) -> std::ops::Range<usize> {
        self.first..self.n
    }

    /// The columns on show.
    pub(in crate::kinds) fn shown_cols(&self) -> std::ops::Range<usize> {
        self.first.min(self.cols)..self.cols
    }

    /// How many tokens are on show.
    pub(super) fn shown_len(&self) -> usize {
        self.n - self.first
    }

    /// Whether the cell is in query's future (blank in a causal pattern).
    pub(in crate::kinds) fn future(&self, query: usize, key: usize) -> bool {
        self.causal && key > query
    }

    /// The key on show that `query` rates highest (the earlier one on a tie).
    pub(in crate::kinds) fn top_key(&self, query: usize) -> Option<usize> {
        let open = self.shown_cols().filter(|&k| !self.future(query, k));
        open.max_by(|&a, &b| {
            self.at(query, a)
                .total_cmp(&self.at(query, b))
                .then(b.cmp(&a))
        })
    }
}

/// Reads the head's matrix for `stage` from `view`'s stack and checks its shape against the
/// stack's tokens.
pub(super) fn read_matrix(
    prompt: &Prompt<'_>,
    view: &View<'_>,
    (layer, head): (Layer, Head),
    stage: Stage,
) -> Result<Matrix, FigureError> {
    let name = match stage {
        Stage::Pattern => view.tensor(layer, "pattern"),
        Stage::Scores | Stage::Masked => view.tensor(layer, "scores"),
    };
    let tensor = prompt.tensor(&name, 3)?;
    let n = view.tokens.len();
    if n == 0 {
        return Err(prompt.broken(format!("the trace of \"{}\" has no tokens", prompt.name)));
    }
    let heads = view.n_head;
    if tensor.shape != [heads, n, n] {
        return Err(prompt.broken(format!(
            "`{name}` has shape {:?}; a prompt of {n} tokens needs [{heads}, {n}, {n}]",
            tensor.shape
        )));
    }
    if let Some(bad) = tensor.data.iter().position(|v| !v.is_finite()) {
        return Err(prompt.broken(format!("`{name}` holds a non-finite value at index {bad}")));
    }
    let data = tensor.data[head.0 * n * n..(head.0 + 1) * n * n].to_vec();
    Ok(Matrix {
        data,
        n,
        cols: n,
        first: n.saturating_sub(MAX_TOKENS),
        causal: view.causal(),
    })
}
