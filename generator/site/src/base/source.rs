//! A loaded source file (config, article, template) and byte-offset to line:column mapping.

use crate::base::diagnostic::{Diagnostic, Position, Snippet};
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

/// A text file of the site, read as UTF-8, named by its path relative to the site root.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the site root, with `/` separators (how errors name the file).
    pub name: String,
    /// The whole file.
    pub text: String,
    /// Byte offsets where each line starts, built on first use: positions are looked up for
    /// every link and value, so counting lines from the top each time would be quadratic.
    line_starts: OnceLock<Vec<usize>>,
}

impl SourceFile {
    /// Read `root/relative` as UTF-8; invalid UTF-8 is reported at the first bad byte.
    pub fn read(root: &Path, relative: &Path) -> Result<SourceFile, Diagnostic> {
        let path = root.join(relative);
        let name = display_name(relative);
        let bytes = std::fs::read(&path).map_err(|err| {
            Diagnostic::file(&name, format!("cannot read the file: {err}"))
                .with_hint("check that the file exists and is readable")
        })?;
        let text = String::from_utf8(bytes).map_err(|err| invalid_utf8(&name, &err))?;
        Ok(SourceFile {
            name,
            text,
            line_starts: OnceLock::new(),
        })
    }

    /// A source file from text already in memory (tests, embedded defaults).
    pub fn from_text(name: &str, text: &str) -> SourceFile {
        SourceFile {
            name: name.to_string(),
            text: text.to_string(),
            line_starts: OnceLock::new(),
        }
    }

    /// The line and column of a byte offset (clamped to the file, snapped to a char boundary).
    pub fn position(&self, offset: usize) -> Position {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let line = starts.partition_point(|&start| start <= offset);
        let line_start = starts[line - 1];
        Position {
            line,
            column: self.text[line_start..offset].chars().count() + 1,
        }
    }

    /// The place `span` (byte offsets into the whole file) points at.
    pub fn location(&self, span: Range<usize>) -> Location {
        let diagnostic = self.error(span, "");
        Location {
            file: diagnostic.file,
            position: diagnostic
                .position
                .expect("errors from spans have a position"),
            snippet: diagnostic
                .snippet
                .map(|s| *s)
                .expect("errors from spans have a snippet"),
        }
    }

    /// An error pointing at `span` (byte offsets into the whole file), with the line and a caret.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        let start = floor_char_boundary(&self.text, span.start.min(self.text.len()));
        let position = self.position(start);
        let line_start = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let line = self.text[line_start..line_end].trim_end_matches('\r');
        let end = floor_char_boundary(&self.text, span.end.clamp(start, line_end));
        let width = self.text[start..end].chars().count().max(1);
        Diagnostic::at(&self.name, position, message).with_snippet(Snippet {
            line: line.replace('\t', " "),
            width,
        })
    }
}

/// A place in a source file, kept after the file itself is gone (where a prompt was declared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub position: Position,
    pub snippet: Snippet,
}

impl Location {
    /// An error pointing here.
    pub fn error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(&self.file, self.position, message).with_snippet(self.snippet.clone())
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            self.file, self.position.line, self.position.column
        )
    }
}

/// The name errors use for a path relative to the site root.
pub fn display_name(relative: &Path) -> String {
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn invalid_utf8(name: &str, err: &std::string::FromUtf8Error) -> Diagnostic {
    let bytes = err.as_bytes();
    let good = err.utf8_error().valid_up_to();
    let valid = std::str::from_utf8(&bytes[..good]).unwrap_or_default();
    let line = valid.matches('\n').count() + 1;
    let column = valid[valid.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    Diagnostic::at(
        name,
        Position { line, column },
        format!("the file is not valid UTF-8 (byte 0x{:02x})", bytes[good]),
    )
    .with_hint("save the file with UTF-8 encoding")
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let file = SourceFile::from_text("a.md", "ab\nçd ef\n");
        assert_eq!(file.position(0), Position { line: 1, column: 1 });
        assert_eq!(file.position(3), Position { line: 2, column: 1 });
        // 'ç' is two bytes but one column.
        assert_eq!(file.position(6), Position { line: 2, column: 3 });
        assert_eq!(file.position(999), Position { line: 3, column: 1 });
    }

    #[test]
    fn error_snippet_holds_the_line_and_caret_width() {
        let file = SourceFile::from_text("a.md", "first\nsay {{ count robts }} now\n");
        let start = file.text.find("robts").unwrap();
        let diagnostic = file.error(start..start + 5, "unknown prompt");
        let text = diagnostic.to_string();
        assert!(
            text.starts_with("a.md:2:14: error: unknown prompt"),
            "{text}"
        );
        assert!(text.contains("2 | say {{ count robts }} now"), "{text}");
        assert!(text.contains("  |              ^^^^^\n"), "{text}");
    }

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.md"), b"ok\nab\xffc").unwrap();
        let err = SourceFile::read(dir.path(), Path::new("x.md")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.md:2:3: error: the file is not valid UTF-8 (byte 0xff)\n  = hint: save the file with UTF-8 encoding\n"
        );
    }
}
