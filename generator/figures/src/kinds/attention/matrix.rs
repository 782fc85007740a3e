//! The head's matrix for `figure attention`: the stage's tensor read from the trace, checked
//! against the prompt, and the part of it on show.

use super::Stage;
use crate::error::FigureError;
use crate::options::{Head, Layer};
use crate::prompt::Prompt;

/// Prompts longer than this show their last tokens.
const MAX_TOKENS: usize = 24;

/// One head's T×T matrix, with the part of it on show.
pub(super) struct Matrix {
    data: Vec<f32>,
    pub(super) n: usize,
    /// First token shown; prompts longer than `MAX_TOKENS` show their end.
    pub(super) first: usize,
}

impl Matrix {
    pub(super) fn at(&self, query: usize, key: usize) -> f64 {
        f64::from(self.data[query * self.n + key])
    }

    pub(super) fn shown(&self) -> std::ops::Range<usize> {
        self.first..self.n
    }

    /// How many tokens are on show.
    pub(super) fn shown_len(&self) -> usize {
        self.n - self.first
    }

    /// The key on show that `query` rates highest (the earlier one on a tie).
    pub(super) fn top_key(&self, query: usize) -> Option<usize> {
        self.shown().filter(|&k| k <= query).max_by(|&a, &b| {
            self.at(query, a)
                .total_cmp(&self.at(query, b))
                .then(b.cmp(&a))
        })
    }
}

/// Reads the head's matrix for `stage` and checks its shape against the prompt.
pub(super) fn read_matrix(
    prompt: &Prompt<'_>,
    layer: Layer,
    head: Head,
    stage: Stage,
) -> Result<Matrix, FigureError> {
    let name = match stage {
        Stage::Pattern => format!("blocks.{}.attn.pattern", layer.0),
        Stage::Scores | Stage::Masked => format!("blocks.{}.attn.scores", layer.0),
    };
    let tensor = prompt.tensor(&name, 3)?;
    let n = prompt.trace.meta.tokens.len();
    if n == 0 {
        return Err(prompt.broken(format!("the trace of \"{}\" has no tokens", prompt.name)));
    }
    let heads = prompt.trace.meta.model.config.n_head;
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
        first: n.saturating_sub(MAX_TOKENS),
    })
}
