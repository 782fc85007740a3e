//! An article's markdown body as every stage reads it: the dialect's parser options, the
//! body's ranges mapped back to its file for located errors, and the `{#id}` label after a
//! display equation, and the automatic id of a heading (a slug of its title, unique on its
//! page). The markdown renderer, cross-references and the claims report share these, so they
//! sit below all three.

use crate::base::diagnostic::Diagnostic;
use crate::base::source::{Location, SourceFile};
use pulldown_cmark::Options;
use std::collections::BTreeSet;
use std::ops::Range;

/// The markdown extensions articles may use.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_MATH
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_GFM
}

/// An article body: `text` is `file.text[base..]`, and ranges into it map back to the file.
#[derive(Clone, Copy)]
pub struct BodyRef<'a> {
    pub file: &'a SourceFile,
    pub base: usize,
    pub text: &'a str,
}

impl<'a> BodyRef<'a> {
    pub fn new(file: &'a SourceFile, range: Range<usize>) -> BodyRef<'a> {
        BodyRef {
            file,
            base: range.start,
            text: &file.text[range],
        }
    }

    /// An error at a body range.
    pub fn error(&self, range: Range<usize>, message: impl Into<String>) -> Diagnostic {
        self.file
            .error(self.base + range.start..self.base + range.end, message)
    }

    pub fn location(&self, range: Range<usize>) -> Location {
        self.file
            .location(self.base + range.start..self.base + range.end)
    }
}

/// `{#ID}` at the start of the text after a display equation (spaces before it allowed): the
/// id and the text after it.
pub fn equation_label(text: &str) -> Option<(String, String)> {
    let rest = text.trim_start().strip_prefix("{#")?;
    let end = rest.find('}')?;
    Some((rest[..end].trim().to_string(), rest[end + 1..].to_string()))
}
/// Lowercase letters and digits, words joined by `-`: "Self-attention, step 1" → "self-attention-step-1".
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if (c.is_whitespace() || c == '-' || c == '_')
            && !out.ends_with('-')
            && !out.is_empty()
        {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "section".to_string()
    } else {
        out
    }
}

/// `base`, or `base-1`, `base-2`... whichever is not `taken` yet on the page.
pub fn unique(base: String, taken: &BTreeSet<String>) -> String {
    if !taken.contains(&base) {
        return base;
    }
    (1..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken.contains(c))
        .expect("some suffix is free")
}
