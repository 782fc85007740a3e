//! Markdown to HTML: pulldown-cmark with the project's options, then small event rewriters
//! (figures, math, inline values, links, heading ids) and the table of contents.

mod scan;

use crate::diagnostic::Diagnostic;
use crate::source::{Location, SourceFile};
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
