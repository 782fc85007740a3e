//! Splits an article into its TOML front matter (between `+++` lines) and its markdown body.

use crate::base::diagnostic::Diagnostic;
use crate::base::source::SourceFile;
use std::ops::Range;

/// Byte ranges of an article's parts, into the whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    /// The TOML between the fences (without them).
    pub front_matter: Range<usize>,
    /// Everything after the closing fence line.
    pub body: Range<usize>,
}

const FENCE: &str = "+++";

/// Finds the front matter; an article must start with a `+++` line and close it with another.
pub fn split(file: &SourceFile) -> Result<Parts, Diagnostic> {
    let text = file.text.as_str();
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lines = line_ranges(text, start);
    let first = lines.next();
    if first
        .as_ref()
        .is_none_or(|r| text[r.clone()].trim_end() != FENCE)
    {
        let end = first.map_or(start, |r| r.end);
        return Err(file
            .error(
                start..end,
                "an article must start with front matter between `+++` lines",
            )
            .with_hint("begin the file with `+++`, a line `title = \"...\"`, and `+++`"));
    }
    let opening = first.expect("checked above");
    let fm_start = next_line_start(text, opening.end);
    for line in lines {
        if text[line.clone()].trim_end() == FENCE {
            return Ok(Parts {
                front_matter: fm_start..line.start,
                body: next_line_start(text, line.end)..text.len(),
            });
        }
    }
    Err(file
        .error(opening, "the front matter opened here is never closed")
        .with_hint("add a line `+++` after the front matter"))
}

/// Ranges of each line's content (without the line break), from `start`.
fn line_ranges(text: &str, start: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = start;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = at..end;
        at = end + 1;
        Some(line)
    })
}

fn next_line_start(text: &str, line_end: usize) -> usize {
    (line_end + 1).min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Result<(String, String), String> {
        let file = SourceFile::from_text("a.md", text);
        split(&file)
            .map(|p| (text[p.front_matter].to_string(), text[p.body].to_string()))
            .map_err(|d| d.to_string())
    }

    #[test]
    fn splits_front_matter_and_body() {
        let (fm, body) = parts("+++\ntitle = \"x\"\n+++\n\nHello\n").unwrap();
        assert_eq!(fm, "title = \"x\"\n");
        assert_eq!(body, "\nHello\n");
        let (fm, body) = parts("\u{feff}+++\r\na = 1\r\n+++\r\nbody").unwrap();
        assert_eq!(fm, "a = 1\r\n");
        assert_eq!(body, "body");
        assert_eq!(parts("+++\n+++").unwrap(), (String::new(), String::new()));
    }

    #[test]
    fn missing_or_unclosed_front_matter_is_an_error() {
        let err = parts("# Title\n").unwrap_err();
        assert!(
            err.starts_with("a.md:1:1: error: an article must start with front matter"),
            "{err}"
        );
        let err = parts("+++\ntitle = \"x\"\nbody\n").unwrap_err();
        assert!(
            err.starts_with("a.md:1:1: error: the front matter opened here is never closed"),
            "{err}"
        );
        assert!(parts("").is_err());
    }
}
