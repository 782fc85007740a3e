//! Reads a bibliography file with hayagriva: BibTeX/BibLaTeX (errors at the byte range the
//! biblatex parser gives) or Hayagriva YAML (errors at serde_yaml's line and column).

use super::settings::BibFormat;
use crate::base::diagnostic::Diagnostic;
use crate::base::source::SourceFile;
use hayagriva::io::BibLaTeXError;
use hayagriva::types::{EntryType, Publisher};
use hayagriva::Library;

/// Every entry of `file`, or every problem found in it.
pub fn parse(file: &SourceFile, format: BibFormat) -> Result<Library, Vec<Diagnostic>> {
    match format {
        BibFormat::BibLaTeX => hayagriva::io::from_biblatex_str(&file.text)
            .map(institutions_publish)
            .map_err(|errors| errors.iter().map(|e| biblatex_error(file, e)).collect()),
        BibFormat::Yaml => hayagriva::io::from_yaml_str(&file.text).map_err(|e| {
            let place = e.location().map(|l| (l.line(), l.column()));
            vec![yaml_error(file, &e.to_string(), place)]
        }),
    }
}

/// A BibTeX `@techreport`'s `institution` is who published the report: hayagriva (0.10)
/// reads it as the entry's organization, which CSL styles show as the authority, if at all
/// (APA prints none), so it becomes the publisher where the entry names no other.
fn institutions_publish(library: Library) -> Library {
    let mut out = Library::new();
    for entry in library.iter() {
        let mut entry = entry.clone();
        let unpublished = entry.publisher().and_then(Publisher::name).is_none();
        if *entry.entry_type() == EntryType::Report && unpublished {
            if let Some(organization) = entry.organization().cloned() {
                let location = entry.publisher().and_then(Publisher::location).cloned();
                entry.set_publisher(Publisher::new(Some(organization), location));
            }
        }
        out.push(&entry);
    }
    out
}

fn biblatex_error(file: &SourceFile, error: &BibLaTeXError) -> Diagnostic {
    match error {
        BibLaTeXError::Parse(e) => file
            .error(
                e.span.clone(),
                format!("this BibTeX does not parse: {}", e.kind),
            )
            .with_hint(
                "an entry reads @article{key, title = {...}, author = {A and B}, year = {2020}}: \
                 check the braces, quotes and commas here and just before",
            ),
        BibLaTeXError::Type(e) => file
            .error(
                e.span.clone(),
                format!("this BibTeX field is malformed: {}", e.kind),
            )
            .with_hint("dates read year = {2017} or date = {2017-06-12}; page ranges 1--10"),
    }
}

/// serde_yaml's error: its message and (1-based) line and column.
fn yaml_error(file: &SourceFile, message: &str, place: Option<(usize, usize)>) -> Diagnostic {
    // serde_yaml ends its message with the place, which the diagnostic already shows.
    let message = message.split(" at line ").next().unwrap_or(message);
    let hint = "entries read `key:` then indented `type: article`, `title: ...`, \
                `author: [\"Last, First\"]`, `date: 2017`";
    let Some((line, column)) = place else {
        return Diagnostic::file(
            &file.name,
            format!("this Hayagriva YAML does not parse: {message}"),
        )
        .with_hint(hint);
    };
    let offset = offset_of(&file.text, line, column);
    file.error(
        offset..offset + 1,
        format!("this Hayagriva YAML does not parse: {message}"),
    )
    .with_hint(hint)
}

/// The byte offset of a 1-based line and column (in characters).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = &text[start.min(text.len())..];
    start
        + rest
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIB: &str = "@article{vaswani2017,\n  title = {Attention Is All You Need},\n  \
                       author = {Vaswani, Ashish and Shazeer, Noam},\n  year = {2017},\n}\n";

    fn errors(name: &str, text: &str, format: BibFormat) -> String {
        let file = SourceFile::from_text(name, text);
        parse(&file, format)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn reads_bibtex_and_yaml() {
        let library = parse(&SourceFile::from_text("r.bib", BIB), BibFormat::BibLaTeX).unwrap();
        let entry = library.get("vaswani2017").unwrap();
        assert_eq!(entry.date().unwrap().year, 2017);
        let yaml = "gelu:\n  type: article\n  title: Gaussian Error Linear Units\n  \
                    author: [\"Hendrycks, Dan\"]\n  date: 2016\n";
        let library = parse(&SourceFile::from_text("r.yml", yaml), BibFormat::Yaml).unwrap();
        assert!(library.get("gelu").is_some());
    }

    #[test]
    fn bad_files_are_errors_at_their_place() {
        let broken = "@article{a,\n  title = {Open\n";
        let text = errors("refs.bib", broken, BibFormat::BibLaTeX);
        assert!(text.starts_with("refs.bib:"), "{text}");
        assert!(text.contains("this BibTeX does not parse"), "{text}");
        let text = errors(
            "refs.yml",
            "a:\n  type: article\n title: x\n",
            BibFormat::Yaml,
        );
        assert!(text.starts_with("refs.yml:3:"), "{text}");
        assert!(!text.contains(" at line "), "{text}");
    }

    #[test]
    fn offsets_count_characters_within_the_line() {
        let text = "ab\nčd\n";
        assert_eq!(offset_of(text, 2, 2), 5);
        assert_eq!(offset_of(text, 1, 1), 0);
    }
}
