//! The theme's words in the site's language: every word the built-in templates, figures'
//! captions, callouts and claim markers show readers ("Contents", "Chapter 3 of 15", "Note",
//! "Download SVG"...). Built-in tables for English and German (defaults/words/*.toml); a site
//! picks one with `language = "de"` and changes any word under `[words]` in tracebook.toml. A
//! language without a built-in table must give every word.

use crate::base::diagnostic::Diagnostics;
use crate::load::toml_doc::{entry, TomlDoc};
use std::collections::BTreeMap;

/// The built-in tables: (language, TOML).
const BUILT_IN: &[(&str, &str)] = &[
    ("en", include_str!("../../defaults/words/en.toml")),
    ("de", include_str!("../../defaults/words/de.toml")),
];

/// The words of one language, by key.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Words {
    /// The page's `<html lang>`.
    pub language: String,
    #[serde(flatten)]
    table: BTreeMap<String, String>,
}

impl Default for Words {
    fn default() -> Self {
        Words::built_in("en").expect("English is built in")
    }
}

impl Words {
    /// A built-in table, or None for a language without one.
    pub fn built_in(language: &str) -> Option<Words> {
        let (_, text) = BUILT_IN.iter().find(|(l, _)| *l == language)?;
        let table = toml::from_str(text).expect("built-in words are valid TOML");
        Some(Words {
            language: language.to_string(),
            table,
        })
    }

    /// The keys every table has (the English table's).
    pub fn keys() -> Vec<String> {
        Words::default().table.into_keys().collect()
    }

    /// The word for `key` (a key of the English table).
    pub fn get(&self, key: &str) -> &str {
        self.table
            .get(key)
            .unwrap_or_else(|| panic!("no word `{key}`: every table has the English keys"))
    }

    /// The word for `key` as HTML (escaped), with each `{name}` replaced by an HTML fragment.
    pub fn fill_html(&self, key: &str, values: &[(&str, &str)]) -> String {
        fill_in(crate::base::escape::html(self.get(key)), values)
    }

    /// The word for `key` with each `{name}` replaced by its value.
    pub fn fill(&self, key: &str, values: &[(&str, &str)]) -> String {
        fill_in(self.get(key).to_string(), values)
    }
}

/// `text` with each `{name}` replaced by its value.
fn fill_in(text: String, values: &[(&str, &str)]) -> String {
    values.iter().fold(text, |text, (name, value)| {
        text.replace(&format!("{{{name}}}"), value)
    })
}

/// The site's words: `language` (default "en") and the `[words]` table of `doc`, checked (an
/// unknown key with a did-you-mean, a value that is not a string, a language without a built-in
/// table and words missing) with errors at their place in the file.
pub fn from_config(doc: &TomlDoc<'_>, out: &mut Diagnostics) -> Words {
    let language = match entry(doc.table(), "language") {
        Some((_, value)) => match value.get_ref().as_str() {
            Some(code) if is_language_tag(code) => code.to_string(),
            _ => {
                out.push(
                    doc.error(
                        value.span(),
                        "language must be a language tag such as \"en\" or \"de\"",
                    )
                    .with_hint(
                        "it becomes the pages' <html lang>; built-in words exist for en and de",
                    ),
                );
                "en".to_string()
            }
        },
        None => "en".to_string(),
    };
    let built_in = Words::built_in(&language);
    let mut words = built_in.clone().unwrap_or_else(|| Words {
        language: language.clone(),
        table: BTreeMap::new(),
    });
    let keys = Words::keys();
    let allowed: Vec<&str> = keys.iter().map(String::as_str).collect();
    let section = entry(doc.table(), "words");
    if let Some((_, value)) = section {
        match value.get_ref().as_table() {
            Some(table) => {
                doc.check_keys(table, &allowed, "[words]", out);
                for (key, value) in table.iter() {
                    match value.get_ref().as_str() {
                        Some(text) => {
                            words
                                .table
                                .insert(key.get_ref().to_string(), text.to_string());
                        }
                        None => out.push(
                            doc.error(
                                value.span(),
                                format!("the word `{}` must be a string", key.get_ref()),
                            )
                            .with_hint("write it in quotes, e.g. contents = \"Inhalt\""),
                        ),
                    }
                }
            }
            None => out.push(
                doc.error(value.span(), "[words] must be a table of words")
                    .with_hint("write [words] on its own line, then one `key = \"word\"` per line"),
            ),
        }
    }
    if built_in.is_none() {
        let missing: Vec<&str> = allowed
            .iter()
            .copied()
            .filter(|k| !words.table.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            let span = entry(doc.table(), "language").map_or(0..0, |(_, v)| v.span());
            out.push(
                doc.error(
                    span,
                    format!(
                        "tracebook has no built-in words for language \"{language}\", and [words] lacks {} of them: {}",
                        missing.len(),
                        missing.join(", ")
                    ),
                )
                .with_hint("built-in languages are en and de; give every word under [words] (docs/authoring.md lists them with the English ones)"),
            );
        }
    }
    words.table.retain(|k, _| keys.contains(k));
    words
}

/// `en`, `de`, `pt-BR`, `zh-Hant`: letters, digits and hyphens, starting with 2–3 letters.
fn is_language_tag(code: &str) -> bool {
    let mut parts = code.split('-');
    let first = parts.next().unwrap_or("");
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts
            .all(|p| !p.is_empty() && p.len() <= 8 && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::source::SourceFile;

    fn words(text: &str) -> Result<Words, String> {
        let file = SourceFile::from_text("tracebook.toml", text);
        let doc = TomlDoc::parse(&file, 0..file.text.len()).map_err(|d| d.to_string())?;
        let mut out = Diagnostics::new();
        let words = from_config(&doc, &mut out);
        out.into_result(words).map_err(|d| d.to_string())
    }

    #[test]
    fn every_built_in_table_has_every_word_and_its_placeholders() {
        let english = Words::default();
        for (language, _) in BUILT_IN {
            let table = Words::built_in(language).unwrap();
            assert_eq!(
                table.table.keys().collect::<Vec<_>>(),
                english.table.keys().collect::<Vec<_>>(),
                "{language}"
            );
            for (key, word) in &english.table {
                let names = |text: &str| -> Vec<String> {
                    text.split('{')
                        .skip(1)
                        .filter_map(|s| s.split_once('}').map(|p| p.0.to_string()))
                        .collect()
                };
                let mut want = names(word);
                let mut got = names(table.get(key));
                want.sort();
                got.sort();
                assert_eq!(got, want, "{language}: `{key}` has other placeholders");
            }
        }
    }

    #[test]
    fn the_authoring_guide_lists_every_word() {
        let guide = include_str!("../../../../docs/authoring.md");
        for key in Words::keys() {
            assert!(
                guide.contains(&format!("| `{key}` |")),
                "docs/authoring.md lacks the word `{key}`"
            );
        }
    }

    #[test]
    fn a_site_picks_a_language_and_changes_words() {
        let de = words("language = \"de\"\n[words]\ncontents = \"Übersicht\"\n").unwrap();
        assert_eq!(de.language, "de");
        assert_eq!(de.get("contents"), "Übersicht");
        assert_eq!(
            de.fill("part", &[("n", "2"), ("total", "5")]),
            "Kapitel 2 von 5"
        );
        assert_eq!(words("").unwrap().get("note"), "Note");
    }

    #[test]
    fn bad_tables_are_errors_in_place() {
        let err = words("[words]\ncontent = \"x\"\nnote = 3\n").unwrap_err();
        assert!(
            err.contains("tracebook.toml:2:1: error: unknown key `content` in [words]"),
            "{err}"
        );
        assert!(err.contains("did you mean `contents`?"), "{err}");
        assert!(
            err.contains("tracebook.toml:3:8: error: the word `note` must be a string"),
            "{err}"
        );
        let err = words("language = \"fr\"\n[words]\ncontents = \"Sommaire\"\n").unwrap_err();
        assert!(
            err.contains(
                "tracebook.toml:1:12: error: tracebook has no built-in words for language \"fr\""
            ),
            "{err}"
        );
        assert!(err.contains("skip"), "{err}");
        let err = words("language = \"English\"\n").unwrap_err();
        assert!(err.contains("language must be a language tag"), "{err}");
    }
}
