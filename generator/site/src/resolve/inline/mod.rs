//! Inline values `{{ function prompt args }}`: found in the body, computed from traces, and
//! swapped for placeholders of the same byte length, so markdown offsets stay those of the file.

mod eval;
mod format;
mod parse;

pub use eval::{EvalContext, Refs};
pub use format::{significant, CheckedClaim, Outcome, Value};
pub use parse::find;

use crate::base::problem::Problem;

const START: char = '\u{2}';
const FILL: char = '\u{1f}';
const END: char = '\u{3}';

/// A body with its inline values replaced by placeholders, and the values by placeholder number
/// (None where the value could not be computed; the build fails then anyway).
pub struct Substituted {
    pub text: String,
    pub values: Vec<Option<Value>>,
    /// Each value's directive as written between the braces (`value robots embed[0,1]`).
    pub sources: Vec<String>,
    /// Each value's `{{ ... }}` in the body.
    pub ranges: Vec<std::ops::Range<usize>>,
    /// Values the trace cannot answer (a token they name by text is not in the prompt, a
    /// position past its end), printed as "?": prose that no longer fits a re-traced prompt,
    /// which the site's claims policy makes errors or warnings, as it does false claims.
    pub unfit: Vec<Problem>,
}

/// Finds, parses and computes every inline value of `text` outside `literal` ranges.
pub fn substitute(
    text: &str,
    literal: impl Fn(usize) -> bool,
    cx: &EvalContext<'_>,
    problems: &mut Vec<Problem>,
) -> Substituted {
    let mut out = Substituted {
        text: text.to_string(),
        values: Vec::new(),
        sources: Vec::new(),
        ranges: Vec::new(),
        unfit: Vec::new(),
    };
    for found in parse::find(text, literal) {
        let range = match found {
            Ok(range) => range,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let value =
            match parse::parse(text, range.clone()).and_then(|call| eval::evaluate(&call, cx)) {
                Ok(value) => value,
                Err(problem) if problem.cause.is_some() => {
                    out.unfit.push(problem);
                    Some(Value::Text("?".to_string()))
                }
                Err(problem) => {
                    problems.push(problem);
                    None
                }
            };
        let source = text[range.clone()].trim_matches(['{', '}']).trim();
        out.sources
            .push(source.split_whitespace().collect::<Vec<_>>().join(" "));
        out.ranges.push(range.clone());
        if let Some(placeholder) = placeholder(out.values.len(), range.len()) {
            out.text.replace_range(range, &placeholder);
        }
        out.values.push(value);
    }
    out
}

/// `START n FILL* END`, exactly `len` bytes; None if `len` is too short to hold `n`.
fn placeholder(n: usize, len: usize) -> Option<String> {
    let digits = n.to_string();
    let fill = len.checked_sub(digits.len() + 2)?;
    Some(format!(
        "{START}{digits}{}{END}",
        FILL.to_string().repeat(fill)
    ))
}

/// A piece of text after placeholders are expanded.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece<'v> {
    Text(String),
    /// The value of the page's placeholder number `usize`.
    Value(usize, &'v Value),
}

/// Splits `text` at placeholders; values that failed expand to nothing.
pub fn expand<'v>(text: &str, values: &'v [Option<Value>]) -> Vec<Piece<'v>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(START) {
        let Some(end) = rest[start..].find(END).map(|e| start + e) else {
            break;
        };
        if start > 0 {
            pieces.push(Piece::Text(rest[..start].to_string()));
        }
        let number: String = rest[start + 1..end]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Some((n, Some(value))) = number
            .parse::<usize>()
            .ok()
            .and_then(|n| Some((n, values.get(n)?)))
        {
            pieces.push(Piece::Value(n, value));
        }
        rest = &rest[end + END.len_utf8()..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    pieces
}

/// Every placeholder of `text`: its value's number and its byte range.
pub fn placeholders(text: &str) -> Vec<(usize, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(start) = text[from..].find(START).map(|s| from + s) {
        let Some(end) = text[start..].find(END).map(|e| start + e + END.len_utf8()) else {
            break;
        };
        let number: String = text[start + 1..end]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Ok(n) = number.parse() {
            out.push((n, start..end));
        }
        from = end;
    }
    out
}

/// Whether `text` holds a placeholder.
pub fn has_placeholder(text: &str) -> bool {
    text.contains(START)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_keep_the_length_and_expand_back() {
        let p = placeholder(12, 15).unwrap();
        assert_eq!(p.len(), 15);
        assert!(placeholder(123, 4).is_none());
        let values = vec![
            Some(Value::Integer(7)),
            None,
            Some(Value::Token(" tired".into())),
        ];
        let text = format!(
            "a {} b {}{} c",
            placeholder(0, 13).unwrap(),
            placeholder(1, 6).unwrap(),
            placeholder(2, 9).unwrap()
        );
        let found = placeholders(&text);
        assert_eq!(found.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(found[0].1, 2..15);
        assert_eq!(found[2].1.len(), 9);
        assert_eq!(
            expand(&text, &values),
            vec![
                Piece::Text("a ".into()),
                Piece::Value(0, &values[0].clone().unwrap()),
                Piece::Text(" b ".into()),
                Piece::Value(2, &values[2].clone().unwrap()),
                Piece::Text(" c".into())
            ]
        );
    }
}
