//! From serde's errors to a [`FigureError`] on the key at fault. The option types report
//! their own problems as a [`Problem`] (a message and a hint that say `{key}` where the key
//! goes, since a value does not know the name it was written under); serde's own errors (a
//! value of the wrong type for a `bool`, a string, a number) are reworded here, with the
//! value the author wrote.

use super::problems::{describe, missing};
use crate::error::FigureError;
use serde_path_to_error::{Error, Segment};
use std::fmt;
use toml::Table;

/// Marks a serialized [`Problem`] inside serde's error text.
const MARK: char = '\u{1}';

/// An option value's own complaint, carried through serde as its error text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    message: String,
    hint: String,
}

impl Problem {
    /// `message` and `hint` with `{key}` where the option's key goes.
    pub fn new(message: impl Into<String>, hint: impl Into<String>) -> Problem {
        Problem {
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// `value` is outside `lo..=hi`.
    pub fn out_of_range(
        value: impl fmt::Display,
        lo: impl fmt::Display,
        hi: impl fmt::Display,
    ) -> Problem {
        Problem::new(
            format!("{{key}} = {value} is out of range"),
            format!("{{key}} must be between {lo} and {hi}"),
        )
    }

    fn parse(text: &str) -> Option<Problem> {
        let rest = text.strip_prefix(MARK)?;
        let (message, hint) = rest.split_once(MARK)?;
        Some(Problem::new(message, hint))
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{MARK}{}{MARK}{}", self.message, self.hint)
    }
}

/// The error of deserializing `kind`'s options from `table`.
pub fn from_serde(kind: &str, error: Error<toml::de::Error>, table: &Table) -> FigureError {
    let key = match error.path().iter().next() {
        Some(Segment::Map { key }) => key.clone(),
        _ => String::new(),
    };
    let text = error.inner().message().to_string();
    if let Some(problem) = Problem::parse(&text) {
        let message = problem.message.replace("{key}", &key);
        let hint = problem.hint.replace("{key}", &key);
        return FigureError::at(&key, message).with_hint(hint);
    }
    if let Some(field) = text
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        return missing(field, kind, &format!("{field} = ..."));
    }
    let found = table.get(&key);
    match (text.split_once(", expected "), found) {
        (Some((_, expected)), Some(found)) => {
            let (expected, example) = plain(expected, &key);
            FigureError::at(
                &key,
                format!("`{key}` must be {expected}, not {}", describe(found)),
            )
            .with_hint(format!("write it as {example}"))
        }
        _ => FigureError::at(&key, format!("`{key}`: {text}")),
    }
}

/// serde's name for what a type expects, in the words of the docs, with an example.
fn plain(expected: &str, key: &str) -> (String, String) {
    match expected {
        "a boolean" => ("true or false".into(), format!("{key} = true")),
        "i64" | "u64" | "an integer" => ("an integer".into(), format!("{key} = 0")),
        "f64" | "a number" => ("a number".into(), format!("{key} = 1.0")),
        "a string" => ("a string".into(), format!("{key} = \"...\"")),
        "a sequence" => ("an array".into(), format!("{key} = [0.5, 1.0, 2.0]")),
        other => (other.to_string(), format!("{key} = ...")),
    }
}

impl Problem {
    /// `word` is none of `words`.
    pub fn not_a_choice(word: &str, words: &[&str]) -> Problem {
        let list = super::problems::quoted_list(words);
        let hint = match tracebook_trace::suggest::did_you_mean(word, words.iter().copied()) {
            Some(near) => format!("{near} {{key}} is one of {list}"),
            None => format!("{{key}} is one of {list}"),
        };
        Problem::new(format!("{{key}} = \"{word}\" is not a valid choice"), hint)
    }
}
