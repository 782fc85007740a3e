//! The claim language's tokens, each with its byte range in the article body.

use crate::problem::Problem;
use std::ops::Range;

/// One token of a claim.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Num(f64),
    Str(String),
    /// A word: a function, a variable, a keyword, or a dotted tensor name (`blocks.1.attn.pattern`).
    Name(String),
    /// One of `( ) [ ] , : + - * / == != < <= > >=`.
    Punct(&'static str),
}

/// A token and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    pub tok: Tok,
    pub span: Range<usize>,
}

const PUNCTS: [&str; 16] = [
    "==", "!=", "<=", ">=", "(", ")", "[", "]", ",", ":", "+", "-", "*", "/", "<", ">",
];

/// The tokens of `text[range]`; spans are offsets into `text`.
pub fn lex(text: &str, range: Range<usize>) -> Result<Vec<Spanned>, Problem> {
    let mut out = Vec::new();
    let mut i = range.start;
    let end = range.end;
    while i < end {
        let rest = &text[i..end];
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
        } else if c == '"' {
            let (s, next) = string(text, i, end)?;
            out.push(Spanned {
                tok: Tok::Str(s),
                span: i..next,
            });
            i = next;
        } else if c.is_ascii_digit()
            || (c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            let len = number_len(rest);
            let value = rest[..len].parse::<f64>().map_err(|_| {
                Problem::new(i..i + len, format!("`{}` is not a number", &rest[..len]))
            })?;
            out.push(Spanned {
                tok: Tok::Num(value),
                span: i..i + len,
            });
            i += len;
        } else if c.is_alphabetic() || c == '_' {
            let len = name_len(rest);
            out.push(Spanned {
                tok: Tok::Name(rest[..len].to_string()),
                span: i..i + len,
            });
            i += len;
        } else if let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            out.push(Spanned {
                tok: Tok::Punct(p),
                span: i..i + p.len(),
            });
            i += p.len();
        } else {
            let hint = match c {
                '=' => "compare with `==`",
                '&' => "write `and`",
                '|' => "write `or`",
                '!' => "write `not`, or `!=` for \"differs from\"",
                '\'' => "text is written in double quotes: \" the\"",
                _ => "claims use numbers, \"text\", names, ( ) [ ] , : and + - * / == != < <= > >=",
            };
            return Err(
                Problem::new(i..i + c.len_utf8(), format!("unexpected `{c}` in a claim"))
                    .with_hint(hint),
            );
        }
    }
    Ok(out)
}

/// `12`, `0.5`, `.5`, `1e-3`: digits, one dot, an exponent.
fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}

/// A word, with dots between its parts (`blocks.1.attn.pattern`).
fn name_len(s: &str) -> usize {
    let mut len = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let part = c.is_alphanumeric() || c == '_';
        let dot = c == '.'
            && chars
                .peek()
                .is_some_and(|(_, n)| n.is_alphanumeric() || *n == '_');
        if !(part || dot) {
            break;
        }
        len = i + c.len_utf8();
    }
    len
}

/// A double-quoted string at `start`; `\"`, `\\`, `\n`, `\t` are escapes.
fn string(text: &str, start: usize, end: usize) -> Result<(String, usize), Problem> {
    let mut value = String::new();
    let mut chars = text[start + 1..end].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, start + 1 + i + 1)),
            '\\' => match chars.next().map(|(_, c)| c) {
                Some('n') => value.push('\n'),
                Some('t') => value.push('\t'),
                Some(other) => value.push(other),
                None => break,
            },
            c => value.push(c),
        }
    }
    Err(
        Problem::new(start..end, "this quoted text has no closing `\"`")
            .with_hint("close the quotes before `}}`"),
    )
}
