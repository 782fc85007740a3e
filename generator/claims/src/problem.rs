//! `Problem`: an error found inside an article body, before it is placed in the file.

use std::ops::Range;

/// What went wrong at a range of an article body, and how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Body-relative byte range the caret underlines.
    pub span: Range<usize>,
    pub message: String,
    pub hint: Option<String>,
}

impl Problem {
    pub fn new(span: Range<usize>, message: impl Into<String>) -> Problem {
        Problem {
            span,
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Problem {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_optional_hint(mut self, hint: Option<String>) -> Problem {
        self.hint = hint;
        self
    }
}
