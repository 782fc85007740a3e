//! An article's markdown body as every stage reads it: the dialect's parser options, the
//! body's ranges mapped back to its file for located errors, and the `{#id}` label after a
//! display equation. The markdown renderer, cross-references and the claims report share
//! these, so they sit below all three.

use crate::base::diagnostic::Diagnostic;
use crate::base::source::{Location, SourceFile};
use pulldown_cmark::Options;
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
