//! First look at an article body: where code and math are (inline values are not looked for
//! there) and which code fences are never closed.

use super::{options, BodyRef};
use crate::base::diagnostic::Diagnostic;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};
use std::ops::Range;

/// What the first pass learned about a body.
#[derive(Debug, Default)]
pub struct Scan {
    /// Body ranges where `{{` is literal: code spans, code blocks, math.
    pub literal: Vec<Range<usize>>,
    /// Body offsets where a fenced block that is never closed starts.
    pub unclosed: Vec<usize>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Scan {
    /// Whether `offset` lies in code or math; a binary search, as a page may hold
    /// thousands of code spans and inline values.
    pub fn is_literal(&self, offset: usize) -> bool {
        let after = self.literal.partition_point(|r| r.start <= offset);
        after > 0 && self.literal[after - 1].contains(&offset)
    }
}

pub fn scan(body: &BodyRef<'_>) -> Scan {
    let mut out = Scan::default();
    for (event, range) in Parser::new_ext(body.text, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                if matches!(kind, CodeBlockKind::Fenced(_))
                    && !fence_is_closed(&body.text[range.clone()])
                {
                    out.diagnostics.push(unclosed(body, range.clone()));
                    out.unclosed.push(range.start);
                }
                out.literal.push(range);
            }
            Event::Code(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {
                out.literal.push(range)
            }
            _ => {}
        }
    }
    out.literal = disjoint(std::mem::take(&mut out.literal));
    out
}

/// The same offsets as `ranges`, as sorted ranges that do not overlap.
fn disjoint(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

fn unclosed(body: &BodyRef<'_>, range: Range<usize>) -> Diagnostic {
    let block = &body.text[range.clone()];
    let first_line = block.lines().next().unwrap_or_default();
    let fence: String = first_line
        .trim_start()
        .chars()
        .take_while(|c| *c == '`' || *c == '~')
        .collect();
    body.error(
        range.start..range.start + first_line.len(),
        "this code fence is never closed, so the rest of the file became part of it",
    )
    .with_hint(format!("add a closing line {fence} where the block ends"))
}

/// A fenced block is closed when it has a last line made of the opening fence character,
/// at least as many of them as the opening fence.
fn fence_is_closed(block: &str) -> bool {
    let lines: Vec<&str> = block.trim_end_matches(['\n', '\r']).lines().collect();
    let (Some(first), Some(last)) = (lines.first(), lines.last()) else {
        return false;
    };
    if lines.len() < 2 {
        return false;
    }
    let first = first.trim_start_matches([' ', '>']);
    let Some(fence_char) = first.chars().next() else {
        return false;
    };
    let width = first.chars().take_while(|c| *c == fence_char).count();
    let last = last.trim_start_matches([' ', '>']).trim_end();
    last.chars().all(|c| c == fence_char) && last.chars().count() >= width
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::source::SourceFile;

    fn scan_text(text: &str) -> (Scan, String) {
        let file = SourceFile::from_text("a.md", text);
        let body = BodyRef::new(&file, 0..text.len());
        let s = scan(&body);
        let errors = s.diagnostics.iter().map(|d| d.to_string()).collect();
        (s, errors)
    }

    #[test]
    fn code_and_math_are_literal() {
        let text = "a `{{ x }}` b $\\{{ y \\}}$ c {{ z }}\n\n```\n{{ w }}\n```\n";
        let (s, errors) = scan_text(text);
        assert!(errors.is_empty(), "{errors}");
        assert!(s.is_literal(text.find("{{ x").unwrap()));
        assert!(s.is_literal(text.find("{{ y").unwrap()));
        assert!(s.is_literal(text.find("{{ w").unwrap()));
        assert!(!s.is_literal(text.find("{{ z").unwrap()));
    }

    #[test]
    fn unclosed_fences_are_reported_at_the_opening_line() {
        let (_, errors) = scan_text("text\n\n```figure tokens\nprompt = \"a\"\n\nmore text\n");
        assert!(
            errors.starts_with("a.md:3:1: error: this code fence is never closed"),
            "{errors}"
        );
        assert!(
            errors.contains("add a closing line ``` where the block ends"),
            "{errors}"
        );
        let (_, errors) = scan_text("~~~~\ncode\n~~~\n");
        assert!(!errors.is_empty());
        let (_, errors) = scan_text("```\ncode\n````\n");
        assert!(errors.is_empty(), "{errors}");
        let (_, errors) = scan_text("```");
        assert!(!errors.is_empty());
    }
}
