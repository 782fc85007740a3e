//! Errors for authors: `file:line:col: error: message`, the offending line with a caret, a hint.

use std::collections::BTreeMap;
use std::fmt;

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// One problem in the site, pointing at the author's text where it can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file at fault, relative to the site root (`content/attention.md`).
    pub file: String,
    /// Where in the file, when the problem has a place.
    pub position: Option<Position>,
    pub message: String,
    /// The line at fault and how many characters the caret underlines.
    pub snippet: Option<Box<Snippet>>,
    /// What to do about it (a did-you-mean, the command that fixes it, ...).
    pub hint: Option<String>,
    /// A warning is reported but does not stop a build.
    pub warning: bool,
}

/// The source line shown under a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    pub line: String,
    pub width: usize,
}

impl Diagnostic {
    /// A problem with a whole file (no line to point at).
    pub fn file(file: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            position: None,
            message: message.into(),
            snippet: None,
            hint: None,
            warning: false,
        }
    }

    /// The same problem as a warning: reported, but the build goes on.
    pub fn as_warning(mut self) -> Diagnostic {
        self.warning = true;
        self
    }

    /// A problem at a line and column, without a snippet.
    pub fn at(file: &str, position: Position, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            position: Some(position),
            ..Diagnostic::file(file, message)
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a hint only when there is one (a did-you-mean that found nothing adds nothing).
    pub fn with_optional_hint(mut self, hint: Option<String>) -> Diagnostic {
        if hint.is_some() {
            self.hint = hint;
        }
        self
    }

    pub fn with_snippet(mut self, snippet: Snippet) -> Diagnostic {
        self.snippet = Some(Box::new(snippet));
        self
    }

    fn sort_key(&self) -> (&str, Option<Position>, &str) {
        (&self.file, self.position, &self.message)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = if self.warning { "warning" } else { "error" };
        match self.position {
            Some(p) => writeln!(
                f,
                "{}:{}:{}: {level}: {}",
                self.file, p.line, p.column, self.message
            )?,
            None => writeln!(f, "{}: {level}: {}", self.file, self.message)?,
        }
        let gutter = self.position.map_or(1, |p| p.line.to_string().len());
        if let (Some(snippet), Some(p)) = (&self.snippet, self.position) {
            writeln!(f, "{:gutter$} |", "")?;
            writeln!(f, "{} | {}", p.line, snippet.line)?;
            let indent = " ".repeat(p.column - 1);
            writeln!(f, "{:gutter$} | {indent}{}", "", "^".repeat(snippet.width))?;
        }
        if let Some(hint) = &self.hint {
            writeln!(f, "{:gutter$} = hint: {hint}", "")?;
        }
        Ok(())
    }
}

/// Every problem a command found, sorted by file and position so the report is stable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics(Vec::new())
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.0.extend(other);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    /// `Ok(value)` when nothing was reported, else every diagnostic, sorted and deduplicated.
    pub fn into_result<T>(self, value: T) -> Result<T, Diagnostics> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self.finish())
        }
    }

    /// Sorted by file, then position, duplicates removed.
    pub fn finish(mut self) -> Diagnostics {
        self.0.sort_by(|a, b| {
            a.sort_key()
                .cmp(&b.sort_key())
                .then_with(|| a.hint.cmp(&b.hint))
        });
        self.0.dedup();
        self.fold_repeats();
        self
    }

    /// One problem repeated at several places of a file (a misspelt prompt in 29 figures) is
    /// told once, at its first place, with the count and the other lines.
    fn fold_repeats(&mut self) {
        let mut folded: Vec<(Diagnostic, Vec<usize>)> = Vec::new();
        // (file, message, hint, warning) of a placed problem → its entry in `folded`.
        let mut first: BTreeMap<(String, String, Option<String>, bool), usize> = BTreeMap::new();
        for diagnostic in std::mem::take(&mut self.0) {
            let Some(position) = diagnostic.position else {
                folded.push((diagnostic, Vec::new()));
                continue;
            };
            let key = (
                diagnostic.file.clone(),
                diagnostic.message.clone(),
                diagnostic.hint.clone(),
                diagnostic.warning,
            );
            match first.get(&key) {
                Some(&at) => folded[at].1.push(position.line),
                None => {
                    first.insert(key, folded.len());
                    folded.push((diagnostic, Vec::new()));
                }
            }
        }
        self.0 = folded
            .into_iter()
            .map(|(mut first, more)| {
                if !more.is_empty() {
                    first.message = format!("{} ({})", first.message, more_places(&more));
                }
                first
            })
            .collect();
    }
}

/// "and 2 more times in this file, at lines 9 and 13" (the first 8 lines named).
fn more_places(lines: &[usize]) -> String {
    const NAMED: usize = 8;
    let mut named: Vec<String> = lines.iter().take(NAMED).map(|l| l.to_string()).collect();
    if lines.len() > NAMED {
        named.push("…".to_string());
    }
    let list = match named.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => named.join(""),
    };
    let (times, at) = match lines.len() {
        1 => ("time", "line"),
        _ => ("times", "lines"),
    };
    format!(
        "and {} more {times} in this file, at {at} {list}",
        lines.len()
    )
}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Diagnostics {
        Diagnostics(vec![diagnostic])
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, diagnostic) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_level_errors_have_no_position() {
        let d = Diagnostic::file("tracebook.toml", "not found").with_hint("run `tracebook init`");
        assert_eq!(
            d.to_string(),
            "tracebook.toml: error: not found\n  = hint: run `tracebook init`\n"
        );
    }

    #[test]
    fn gutter_grows_with_line_number() {
        let d = Diagnostic::at(
            "a.md",
            Position {
                line: 120,
                column: 3,
            },
            "bad",
        )
        .with_snippet(Snippet {
            line: "x yz".into(),
            width: 2,
        });
        assert_eq!(
            d.to_string(),
            "a.md:120:3: error: bad\n    |\n120 | x yz\n    |   ^^\n"
        );
    }

    #[test]
    fn diagnostics_sort_by_file_then_position_and_dedup() {
        let mut all = Diagnostics::new();
        let at = |file: &str, line| {
            Diagnostic::at(file, Position { line, column: 1 }, format!("m{line}"))
        };
        all.push(at("b.md", 1));
        all.push(at("a.md", 9));
        all.push(at("a.md", 2));
        all.push(at("a.md", 2));
        let sorted = all.finish();
        let order: Vec<_> = sorted
            .iter()
            .map(|d| (d.file.as_str(), d.position.unwrap().line))
            .collect();
        assert_eq!(order, vec![("a.md", 2), ("a.md", 9), ("b.md", 1)]);
    }

    #[test]
    fn one_problem_at_many_places_of_a_file_is_told_once_with_the_count() {
        let mut all = Diagnostics::new();
        let unknown = |file: &str, line| {
            Diagnostic::at(file, Position { line, column: 1 }, "unknown prompt `q`")
                .with_hint("did you mean `p`?")
        };
        for line in [13, 6, 9, 30, 31, 32, 33, 34, 35, 36, 37] {
            all.push(unknown("a.md", line));
        }
        all.push(unknown("b.md", 4));
        all.push(unknown("a.md", 40).with_hint("another hint"));
        let told: Vec<String> = all.finish().iter().map(|d| d.message.clone()).collect();
        assert_eq!(
            told,
            [
                "unknown prompt `q` (and 10 more times in this file, at lines 9, 13, 30, 31, \
                 32, 33, 34, 35 and …)",
                "unknown prompt `q`",
                "unknown prompt `q`",
            ]
        );
        let mut two = Diagnostics::new();
        two.push(unknown("a.md", 2));
        two.push(unknown("a.md", 5));
        let once = two.finish();
        assert_eq!(once.len(), 1);
        assert_eq!(
            once.iter().next().unwrap().message,
            "unknown prompt `q` (and 1 more time in this file, at line 5)"
        );
    }
}
