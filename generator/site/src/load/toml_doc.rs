//! TOML read with positions: syntax errors, unknown keys (did-you-mean) and type errors
//! all point at the author's text, even when the TOML sits inside a markdown file.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::base::source::SourceFile;
use crate::suggest;
use serde::de::DeserializeOwned;
use std::ops::Range;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

/// A TOML document that is `file.text[offset..offset + text.len()]`.
pub struct TomlDoc<'a> {
    pub file: &'a SourceFile,
    pub offset: usize,
    pub root: Spanned<DeValue<'a>>,
}

impl<'a> TomlDoc<'a> {
    /// Parse the TOML held in `file.text[range]`.
    pub fn parse(file: &'a SourceFile, range: Range<usize>) -> Result<TomlDoc<'a>, Diagnostic> {
        let offset = range.start;
        let text = &file.text[range];
        match DeTable::parse(text) {
            Ok(table) => {
                let span = table.span();
                let root = Spanned::new(span, DeValue::Table(table.into_inner()));
                Ok(TomlDoc { file, offset, root })
            }
            Err(err) => Err(error_at(file, offset, &err, text.len())),
        }
    }

    /// The top-level table.
    pub fn table(&self) -> &DeTable<'a> {
        self.root
            .get_ref()
            .as_table()
            .expect("a parsed TOML document is a table")
    }

    /// An error pointing at a span of this document.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        self.file
            .error(self.offset + span.start..self.offset + span.end, message)
    }

    /// Reports every key of `table` that is not in `allowed`, with a did-you-mean hint.
    pub fn check_keys(
        &self,
        table: &DeTable<'_>,
        allowed: &[&str],
        section: &str,
        out: &mut Diagnostics,
    ) {
        for key in table.keys() {
            let name = key.get_ref().as_ref();
            if !allowed.contains(&name) {
                let hint = suggest::hint(name, allowed, &format!("allowed keys in {section}"));
                out.push(
                    self.error(key.span(), format!("unknown key `{name}` in {section}"))
                        .with_optional_hint(hint),
                );
            }
        }
    }

    /// Deserializes one value of this document, reporting a type error at its position.
    pub fn deserialize<T: DeserializeOwned>(
        &self,
        value: &Spanned<DeValue<'a>>,
    ) -> Result<T, Diagnostic> {
        T::deserialize(ValueDeserializer::from(value.clone()))
            .map_err(|err| error_at(self.file, self.offset, &err, value.span().end))
    }
}

/// A toml error as a diagnostic; errors without a span point at `fallback` (document-relative).
pub fn error_at(
    file: &SourceFile,
    offset: usize,
    err: &toml::de::Error,
    fallback: usize,
) -> Diagnostic {
    let span = err.span().unwrap_or(fallback..fallback);
    let message = plain_words(&err.message().trim().replace('\n', "; "));
    let at = offset + span.start..offset + span.end;
    // A bare word (`weight = twenty`) reads to the TOML parser as a misspelt `true` or `false`
    // ("invalid boolean") or a misspelt number; say what it is instead.
    let word =
        bare_word(&file.text[offset + span.start..]).filter(|_| message.starts_with("invalid"));
    if let Some(word) = word.filter(|w| !matches!(*w, "true" | "false")) {
        return file
            .error(at, format!("`{word}` is not a TOML value"))
            .with_hint(format!(
                "write a number (weight = 20), true or false, or text in quotes (\"{word}\")"
            ));
    }
    file.error(at, message)
}

/// The bare word (letters, digits, `_`, `-`, starting with a letter) at the start of `text`,
/// when the word is what a TOML value cannot be.
fn bare_word(text: &str) -> Option<&str> {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(text.len());
    let word = &text[..end];
    let first = word.chars().next()?;
    (first.is_alphabetic() && !matches!(word, "inf" | "nan")).then_some(word)
}

/// serde's type names in words authors use.
fn plain_words(message: &str) -> String {
    let mut text = message.replacen("invalid type: ", "wrong type: ", 1);
    for (rust, words) in [
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected usize", "expected a whole number ≥ 0"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        text = text.replace(rust, words);
    }
    text
}

/// The key/value pair named `key` in `table`, if present.
pub fn entry<'t, 'a>(
    table: &'t DeTable<'a>,
    key: &str,
) -> Option<(
    &'t Spanned<toml::de::DeString<'a>>,
    &'t Spanned<DeValue<'a>>,
)> {
    table.iter().find(|(k, _)| k.get_ref().as_ref() == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_word_is_called_one_not_an_invalid_boolean() {
        let file = SourceFile::from_text("a.md", "+++\nweight = twenty\n+++\n");
        let err = TomlDoc::parse(&file, 4..20).err().unwrap().to_string();
        assert!(err.contains("`twenty` is not a TOML value"), "{err}");
        assert!(
            err.contains("weight = 20") && err.contains("\"twenty\""),
            "{err}"
        );
        assert!(!err.contains("boolean"), "{err}");
        let file = SourceFile::from_text("a.md", "+++\nweight = 2x\n+++\n");
        let err = TomlDoc::parse(&file, 4..16).err().unwrap().to_string();
        assert!(
            !err.contains("not a TOML value"),
            "a number's typo keeps TOML's words: {err}"
        );
    }

    #[test]
    fn syntax_errors_point_into_the_embedded_document() {
        let file = SourceFile::from_text("a.md", "+++\ntitle = \"x\nweight = 3\n+++\n");
        let err = TomlDoc::parse(&file, 4..26).err().unwrap();
        assert_eq!(err.position.unwrap().line, 2, "{err}");
        assert!(err.to_string().contains("title = \"x"), "{err}");
    }

    #[test]
    fn unknown_keys_get_a_did_you_mean() {
        let file = SourceFile::from_text("t.toml", "titel = \"x\"\n");
        let doc = TomlDoc::parse(&file, 0..file.text.len()).ok().unwrap();
        let mut out = Diagnostics::new();
        doc.check_keys(
            doc.table(),
            &["title", "description"],
            "tracebook.toml",
            &mut out,
        );
        let text = out.to_string();
        assert!(
            text.starts_with("t.toml:1:1: error: unknown key `titel` in tracebook.toml"),
            "{text}"
        );
        assert!(text.contains("did you mean `title`?"), "{text}");
    }

    #[test]
    fn type_errors_point_at_the_value() {
        let file = SourceFile::from_text("t.toml", "a = 1\nweight = \"heavy\"\n");
        let doc = TomlDoc::parse(&file, 0..file.text.len()).ok().unwrap();
        let (_, value) = entry(doc.table(), "weight").unwrap();
        let err = doc.deserialize::<i64>(value).unwrap_err();
        assert_eq!(err.position.unwrap().line, 2);
        assert_eq!(err.position.unwrap().column, 10);
    }
}
