//! What can go wrong in a live session, worded for the reader who typed the prompt or the
//! author whose page asked for the figure.

use tracebook_figures::FigureError;
use tracebook_model::ModelError;

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The model's files, the forward pass or the tokenizer failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The reader's prompt cannot be traced (empty, only whitespace, too long).
    #[error("{0}")]
    Prompt(String),
    /// Options the page passed are not what the session reads.
    #[error("{what} is not valid {format}: {message}")]
    Options {
        what: &'static str,
        format: &'static str,
        message: String,
    },
    /// The figure could not be drawn from these options.
    #[error("{}{}", .0.message, .0.hint.as_deref().map(|h| format!("\n  hint: {h}")).unwrap_or_default())]
    Figure(#[from] FigureError),
}
