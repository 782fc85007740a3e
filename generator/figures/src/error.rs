//! The one error a figure returns: what went wrong, which option key it concerns (so the
//! site can point at that key's `line:col` in the figure block), and how to fix it.

/// A figure could not be drawn from these options and traces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FigureError {
    /// The option key at fault, or `None` when the error concerns the block as a whole
    /// (an unknown kind, a trace that lacks data).
    pub key: Option<String>,
    /// What went wrong, in one sentence.
    pub message: String,
    /// How to fix it, e.g. "did you mean `layer`?".
    pub hint: Option<String>,
}

impl FigureError {
    /// An error about the figure block as a whole.
    pub fn new(message: impl Into<String>) -> Self {
        FigureError {
            key: None,
            message: message.into(),
            hint: None,
        }
    }

    /// An error about the option `key`.
    pub fn at(key: &str, message: impl Into<String>) -> Self {
        FigureError {
            key: Some(key.to_string()),
            message: message.into(),
            hint: None,
        }
    }

    /// The same error with a hint on how to fix it.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::FigureError;

    #[test]
    fn displays_its_message_and_keeps_key_and_hint() {
        let error =
            FigureError::at("layr", "unknown option `layr`").with_hint("did you mean `layer`?");
        assert_eq!(error.to_string(), "unknown option `layr`");
        assert_eq!(error.key.as_deref(), Some("layr"));
        assert_eq!(error.hint.as_deref(), Some("did you mean `layer`?"));
        assert_eq!(FigureError::new("x").key, None);
    }
}
