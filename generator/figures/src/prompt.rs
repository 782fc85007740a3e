//! [`Prompt`]: the prompt a figure draws, with its trace, and tensor access whose errors
//! say which prompt's trace lacks what and how to rewrite it.

use crate::error::FigureError;
use tracebook_trace::{Tensor, Trace};

/// A prompt named by a figure's `prompt` option, with its trace.
#[derive(Debug, Clone)]
pub struct Prompt<'t> {
    pub name: String,
    pub trace: &'t Trace,
}

impl Prompt<'_> {
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

    /// An error about the trace's contents, pointing at the `prompt` key.
    pub fn broken(&self, message: String) -> FigureError {
        FigureError::at("prompt", message).with_hint(format!(
            "re-run `tracebook trace --only {}` to rewrite the trace",
            self.name
        ))
    }
}
