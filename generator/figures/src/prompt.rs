//! [`Prompt`]: the prompt a figure draws, with its trace, and tensor access whose errors
//! say which prompt's trace lacks what and how to rewrite it.

use crate::error::FigureError;
use crate::options::Layer;
use tracebook_trace::{ModelShape, Tensor, Token, Trace};

/// A prompt named by a figure's `prompt` option, with its trace.
#[derive(Debug, Clone)]
pub struct Prompt<'t> {
    pub name: String,
    pub trace: &'t Trace,
}

/// A tensor checked to have the shape a figure expects and only finite values.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl Checked {
    /// The innermost row at `index` (all but the last dimension), as f64.
    pub fn row(&self, index: &[usize]) -> Vec<f64> {
        let cols = *self.shape.last().unwrap_or(&1);
        let mut offset = 0;
        for (i, dim) in index.iter().zip(&self.shape) {
            offset = offset * dim + i;
        }
        self.data[offset * cols..(offset + 1) * cols]
            .iter()
            .map(|&v| f64::from(v))
            .collect()
    }

    /// The value at `index` (all dimensions), as f64.
    pub fn at(&self, index: &[usize]) -> f64 {
        let mut offset = 0;
        for (i, dim) in index.iter().zip(&self.shape) {
            offset = offset * dim + i;
        }
        f64::from(self.data[offset])
    }
}

impl Prompt<'_> {
    /// The model's sizes.
    pub fn config(&self) -> &ModelShape {
        &self.trace.meta.model.config
    }

    /// The prompt's tokens, which a figure needs at least one of.
    pub fn tokens(&self) -> Result<&[Token], FigureError> {
        let tokens = &self.trace.meta.tokens;
        if tokens.is_empty() {
            return Err(self.broken(format!("the trace of \"{}\" has no tokens", self.name)));
        }
        Ok(tokens)
    }

    /// The tensor `name`, checked to have `rank` dimensions.
    pub fn tensor(&self, name: &str, rank: usize) -> Result<Tensor, FigureError> {
        let tensor = self.trace.tensor(name).map_err(|e| {
            self.broken(format!(
                "cannot read `{name}` from the trace of \"{}\": {e}",
                self.name
            ))
        })?;
        if tensor.shape.len() != rank {
            return Err(self.broken(format!(
                "`{name}` in the trace of \"{}\" has shape {:?}, expected {rank} dimensions",
                self.name, tensor.shape
            )));
        }
        Ok(tensor)
    }

    /// The tensor `name`, checked to have exactly `shape` and finite values.
    pub fn shaped(&self, name: &str, shape: &[usize]) -> Result<Checked, FigureError> {
        let tensor = self.tensor(name, shape.len())?;
        if tensor.shape != shape {
            return Err(self.broken(format!(
                "`{name}` in the trace of \"{}\" has shape {:?}; this prompt and model need {shape:?}",
                self.name, tensor.shape
            )));
        }
        if let Some(bad) = tensor.data.iter().position(|v| !v.is_finite()) {
            return Err(self.broken(format!("`{name}` holds a non-finite value at index {bad}")));
        }
        Ok(Checked {
            shape: tensor.shape,
            data: tensor.data,
        })
    }

    /// A T×`cols` activation of block `layer`, e.g. `block(layer, "resid_pre", d)`.
    pub fn block(&self, layer: Layer, what: &str, cols: usize) -> Result<Checked, FigureError> {
        let n = self.tokens()?.len();
        self.shaped(&format!("blocks.{}.{what}", layer.0), &[n, cols])
    }

    /// A per-head H×T×dh activation of block `layer`: `attn.q`, `.k`, `.v` or `.z`.
    pub fn heads(&self, layer: Layer, what: &str) -> Result<Checked, FigureError> {
        let n = self.tokens()?.len();
        let config = self.config();
        let dh = config.n_embd / config.n_head.max(1);
        let name = format!("blocks.{}.{what}", layer.0);
        self.shaped(&name, &[config.n_head, n, dh])
    }

    /// An error about the trace's contents, pointing at the `prompt` key.
    pub fn broken(&self, message: String) -> FigureError {
        FigureError::at("prompt", message).with_hint(format!(
            "re-run `tracebook trace --only {}` to rewrite the trace",
            self.name
        ))
    }
}
