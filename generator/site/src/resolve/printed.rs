//! What each inline value printed, kept from one build to the next in
//! `.tracebook/printed-values.json`: after a re-trace (or a switch of model) a build lists
//! every value whose printed text changed, at its file:line:col with the old and the new text,
//! so the author knows which sentences to reread. A sentence with a claim is checked by the
//! claim; one without ("One head looks back at ' server'" over "2.7%") only by the author.
//! A value is known across builds by its page, its directive as written and which occurrence
//! of that directive on the page it is, so edits elsewhere on the page do not confuse it; an
//! edited directive is a new value and is not reported.

use crate::base::diagnostic::{Diagnostic, Position};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// The record, relative to the site root.
pub const RECORD_FILE: &str = ".tracebook/printed-values.json";

/// Bumped when the file's meaning changes; a file of another version is ignored.
const VERSION: u32 = 1;

/// One inline value as a page printed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Printed {
    /// The article, as errors name it (`content/attention.md`).
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// The directive between the braces, spaces collapsed (`top_prob robots 1`).
    pub source: String,
    pub text: String,
}

#[derive(Serialize, Deserialize)]
struct Record {
    version: u32,
    values: Vec<Printed>,
}

/// The values the last build printed; None when there is no readable record of this version.
pub fn load(root: &Path) -> Option<Vec<Printed>> {
    let text = std::fs::read_to_string(root.join(RECORD_FILE)).ok()?;
    let record: Record = serde_json::from_str(&text).ok()?;
    (record.version == VERSION).then_some(record.values)
}

/// Keeps `values` for the next build.
pub fn save(root: &Path, values: &[Printed]) -> std::io::Result<()> {
    let record = Record {
        version: VERSION,
        values: values.to_vec(),
    };
    crate::base::cache_file::save(&root.join(RECORD_FILE), &record)
}

/// A warning for each value of `now` that printed another text in `before`.
pub fn changed(before: &[Printed], now: &[Printed]) -> Vec<Diagnostic> {
    let before: HashMap<(&str, &str, usize), &str> = keyed(before)
        .map(|(key, p)| (key, p.text.as_str()))
        .collect();
    keyed(now)
        .filter_map(|(key, p)| {
            let old = *before.get(&key)?;
            (old != p.text).then(|| {
                let position = Position {
                    line: p.line,
                    column: p.column,
                };
                Diagnostic::at(
                    &p.file,
                    position,
                    format!(
                        "`{{{{ {} }}}}` now prints {} (it printed {} before)",
                        p.source, p.text, old
                    ),
                )
                .with_hint("the traces changed: reread the sentence around it, whose words may no longer fit the number")
                .as_warning()
            })
        })
        .collect()
}

/// Each value with its key: page, directive, and the how-manieth of that directive on the page.
fn keyed(values: &[Printed]) -> impl Iterator<Item = ((&str, &str, usize), &Printed)> {
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    values.iter().map(move |p| {
        let n = seen
            .entry((p.file.as_str(), p.source.as_str()))
            .or_default();
        *n += 1;
        ((p.file.as_str(), p.source.as_str(), *n), p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(line: usize, source: &str, text: &str) -> Printed {
        Printed {
            file: "content/a.md".into(),
            line,
            column: 5,
            source: source.into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_changed_text_is_reported_at_its_new_place_and_an_edited_directive_is_not() {
        let before = vec![
            printed(3, "top_prob p 1", "12.4%"),
            printed(4, "top p 1", "\" the\""),
            printed(9, "top_prob p 1", "12.4%"),
            printed(10, "count p", "5"),
        ];
        let now = vec![
            printed(5, "top_prob p 1", "9.8%"),
            printed(6, "top p 1", "\" the\""),
            printed(11, "top_prob p 1", "9.8%"),
            printed(12, "count p 2", "6"),
        ];
        let warnings: Vec<String> = changed(&before, &now)
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(warnings[0].contains("content/a.md:5:5"), "{}", warnings[0]);
        assert!(
            warnings[0].contains("`{{ top_prob p 1 }}` now prints 9.8% (it printed 12.4% before)")
        );
        assert!(warnings[1].contains("content/a.md:11:5"), "{}", warnings[1]);
    }

    #[test]
    fn the_record_reads_back_and_another_version_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let values = vec![printed(3, "count p", "5")];
        save(dir.path(), &values).unwrap();
        assert_eq!(load(dir.path()), Some(values));
        assert!(dir.path().join(".tracebook/.gitignore").is_file());
        std::fs::write(
            dir.path().join(RECORD_FILE),
            "{\"version\": 99, \"values\": []}",
        )
        .unwrap();
        assert_eq!(load(dir.path()), None);
    }
}
