//! The option errors shared by all readers: a missing key, a value of the wrong type, a
//! prompt that has no trace.

use crate::error::FigureError;
use toml::Value;
use tracebook_trace::suggest::did_you_mean;

/// How many prompt names a hint lists before it says "and N more".
const MAX_LISTED: usize = 8;

/// A required key is absent; `example` shows how to write it.
pub fn missing(key: &str, kind: &str, example: &str) -> FigureError {
    FigureError::at(key, format!("figure `{kind}` needs `{key}`"))
        .with_hint(format!("add a line {example}"))
}

/// `key` holds a value of the wrong TOML type; `example` shows a right one.
pub fn wrong_type(key: &str, expected: &str, found: &Value, example: &str) -> FigureError {
    FigureError::at(
        key,
        format!("`{key}` must be {expected}, not {}", describe(found)),
    )
    .with_hint(format!("write it as {example}"))
}

/// No trace is known under `name`.
pub fn unknown_prompt(name: &str, names: &[String]) -> FigureError {
    let message = format!("unknown prompt \"{name}\"");
    let hint = if names.is_empty() {
        "no prompts are defined: add one under [prompts] in tracebook.toml \
         or in the article's front matter"
            .to_string()
    } else {
        let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        match did_you_mean(name, sorted.iter().copied()) {
            Some(near) => near,
            None if sorted.len() > MAX_LISTED => format!(
                "known prompts include {} and {} more",
                quoted_list(&sorted[..MAX_LISTED]),
                sorted.len() - MAX_LISTED
            ),
            None => format!("known prompts: {}", quoted_list(&sorted)),
        }
    };
    FigureError::at("prompt", message).with_hint(hint)
}

/// `"a", "b", "c"`.
pub fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|item| format!("\"{item}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("the string \"{s}\""),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the number {f}"),
        Value::Boolean(b) => format!("{b}"),
        Value::Datetime(d) => format!("the date {d}"),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}
