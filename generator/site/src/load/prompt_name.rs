//! `PromptName`: a prompt's name, which is also the file name of its trace.

use std::fmt;
use std::path::{Path, PathBuf};

/// Longest name allowed (trace file names stay short on every file system).
pub const MAX_LEN: usize = 64;

/// A validated prompt name: lowercase ASCII letters, digits, `-` and `_`, starting with a
/// letter or digit. It names the trace file `traces/<name>.json`, so it must be safe as a file
/// name on every system (no separators, no dots, no case-only differences).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PromptName(String);

impl PromptName {
    /// Checks `name`, explaining the rule when it is broken.
    pub fn new(name: &str) -> Result<PromptName, InvalidPromptName> {
        let first_ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        let rest_ok = name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if first_ok && rest_ok && name.len() <= MAX_LEN {
            Ok(PromptName(name.to_string()))
        } else {
            Err(InvalidPromptName {
                name: name.to_string(),
            })
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `traces/<name>.json` relative to the site root.
    pub fn trace_file(&self) -> PathBuf {
        Path::new("traces").join(format!("{}.json", self.0))
    }
}

impl fmt::Display for PromptName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A name that cannot be a prompt name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidPromptName {
    pub name: String,
}

impl InvalidPromptName {
    pub fn message(&self) -> String {
        format!(
            "`{}` cannot be a prompt name: a prompt's name is the file name of its trace \
             (traces/NAME.json), so it may hold only lowercase letters a-z, digits, `-` and `_`, \
             start with a letter or digit, and be at most {MAX_LEN} characters",
            self.name
        )
    }

    /// A name that follows the rule, to suggest.
    pub fn suggestion(&self) -> Option<String> {
        let mut out = String::new();
        for c in self.name.chars() {
            match c {
                'a'..='z' | '0'..='9' | '-' | '_' => out.push(c),
                'A'..='Z' => out.push(c.to_ascii_lowercase()),
                _ if !out.is_empty() && !out.ends_with('_') => out.push('_'),
                _ => {}
            }
        }
        let trimmed: String = out
            .trim_start_matches(['-', '_'])
            .trim_end_matches('_')
            .chars()
            .take(MAX_LEN)
            .collect();
        (!trimmed.is_empty()).then(|| format!("rename it, for example to `{trimmed}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_safe_names() {
        for ok in ["robots", "a", "cats-2", "the_animal", "0day"] {
            assert!(PromptName::new(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            PromptName::new("cats").unwrap().trace_file(),
            Path::new("traces/cats.json")
        );
    }

    #[test]
    fn rejects_unsafe_names_with_a_suggestion() {
        for bad in [
            "",
            "Robots",
            "../x",
            "a b",
            "a.b",
            "-x",
            "ü",
            &"x".repeat(65),
        ] {
            assert!(PromptName::new(bad).is_err(), "{bad:?}");
        }
        let err = PromptName::new("My Prompt").unwrap_err();
        assert!(err.message().contains("traces/NAME.json"));
        assert_eq!(
            err.suggestion().unwrap(),
            "rename it, for example to `my_prompt`"
        );
        assert_eq!(PromptName::new("../..").unwrap_err().suggestion(), None);
    }
}
