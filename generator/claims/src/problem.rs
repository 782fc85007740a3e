//! `Problem`: an error found inside an article body, before it is placed in the file.

use std::ops::Range;

/// What went wrong at a range of an article body, and how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Body-relative byte range the caret underlines.
    pub span: Range<usize>,
    pub message: String,
    pub hint: Option<String>,
    /// What stopped the evaluation, for a caller that acts on it rather than printing it.
    pub cause: Option<Cause>,
}

/// Why a claim could not be asked of a prompt, where another prompt might answer it (live
/// mode tells a reader which of these kept the sentence from being re-checked on theirs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// A position or index past the end of the prompt, or of one of a tensor's dimensions.
    OutOfRange,
    /// `earlier(q)` where the prompt says the token at q only once; the token's text.
    NotRepeated(String),
    /// `pos(text)` or `wrote(text)` where the prompt (or translation) holds that token's text
    /// not at all, or more than once; the text.
    NotOnce(String),
}

impl Problem {
    /// The message with its hint, as one line: what a claim's verdict says when the prompt
    /// cannot answer it.
    pub fn with_hint_inline(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}; {hint}", self.message),
            None => self.message.clone(),
        }
    }
}

impl Problem {
    pub fn new(span: Range<usize>, message: impl Into<String>) -> Problem {
        Problem {
            span,
            message: message.into(),
            hint: None,
            cause: None,
        }
    }

    pub fn with_cause(mut self, cause: Cause) -> Problem {
        self.cause = Some(cause);
        self
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
