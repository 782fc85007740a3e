//! `bibliography` and `citation_style` in tracebook.toml, checked where they are written.

use crate::base::diagnostic::Diagnostics;
use crate::base::source::Location;
use crate::load::toml_doc::{entry, TomlDoc};
use crate::suggest;
use hayagriva::archive::ArchivedStyle;

/// How the site cites: which file, in which style.
#[derive(Debug, Clone, PartialEq)]
pub struct CitationSettings {
    pub bibliography: Option<BibliographySetting>,
    /// A style of hayagriva's archive (default APA, an author-year style).
    pub style: ArchivedStyle,
}

impl Default for CitationSettings {
    fn default() -> Self {
        CitationSettings {
            bibliography: None,
            style: DEFAULT_STYLE,
        }
    }
}

const DEFAULT_STYLE: ArchivedStyle = ArchivedStyle::AmericanPsychologicalAssociation;

/// `bibliography = "references.bib"`: the path (relative to the site folder), how it is read,
/// and where it was written (a missing file is reported there).
#[derive(Debug, Clone, PartialEq)]
pub struct BibliographySetting {
    pub path: String,
    pub format: BibFormat,
    pub declared: Location,
}

/// How a bibliography file is read, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BibFormat {
    /// `.bib`: BibTeX or BibLaTeX.
    BibLaTeX,
    /// `.yml` / `.yaml`: Hayagriva's YAML.
    Yaml,
}

/// Styles named when a style is not known and no name is close.
const SOME_STYLES: &str = "author-year: `apa` (the default), `chicago-author-date`, \
    `harvard-cite-them-right`, `mla`; numbered: `ieee`, `nature`, `vancouver`";

/// Reads `bibliography` and `citation_style` from the top of `doc`.
pub fn from_config(doc: &TomlDoc<'_>, out: &mut Diagnostics) -> CitationSettings {
    let mut settings = CitationSettings::default();
    if let Some((_, value)) = entry(doc.table(), "citation_style") {
        match value.get_ref().as_str() {
            Some(name) => match ArchivedStyle::by_name(name) {
                Some(style) => settings.style = style,
                None => {
                    let names: Vec<&str> = ArchivedStyle::all()
                        .iter()
                        .flat_map(|s| s.names().iter().copied())
                        .collect();
                    let hint = suggest::did_you_mean(name, names.iter().copied())
                        .unwrap_or_else(|| format!("styles include {SOME_STYLES}"));
                    out.push(
                        doc.error(value.span(), format!("unknown citation style `{name}`"))
                            .with_hint(hint),
                    );
                }
            },
            None => out.push(
                doc.error(
                    value.span(),
                    "citation_style must be a style's name in quotes",
                )
                .with_hint(format!(
                    "for example citation_style = \"apa\"; {SOME_STYLES}"
                )),
            ),
        }
    }
    if let Some((_, value)) = entry(doc.table(), "bibliography") {
        let span = value.span();
        let declared = doc
            .file
            .location(doc.offset + span.start..doc.offset + span.end);
        let path = value.get_ref().as_str().unwrap_or_default();
        let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        let format = match extension.as_deref() {
            Some("bib" | "bibtex") => Some(BibFormat::BibLaTeX),
            Some("yml" | "yaml") => Some(BibFormat::Yaml),
            _ => None,
        };
        match format {
            Some(format) => {
                settings.bibliography = Some(BibliographySetting {
                    path: path.to_string(),
                    format,
                    declared,
                })
            }
            None => out.push(
                declared
                    .error("bibliography must name a .bib file (BibTeX or BibLaTeX) or a .yml file (Hayagriva YAML)")
                    .with_hint("for example bibliography = \"references.bib\", relative to the site folder"),
            ),
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::source::SourceFile;

    fn read(text: &str) -> (CitationSettings, String) {
        let file = SourceFile::from_text("tracebook.toml", text);
        let doc = TomlDoc::parse(&file, 0..text.len()).unwrap();
        let mut out = Diagnostics::new();
        let settings = from_config(&doc, &mut out);
        (settings, out.to_string())
    }

    #[test]
    fn defaults_to_apa_without_a_bibliography() {
        let (settings, problems) = read("title = \"T\"\n");
        assert_eq!(settings, CitationSettings::default());
        assert_eq!(
            settings.style,
            ArchivedStyle::AmericanPsychologicalAssociation
        );
        assert_eq!(problems, "");
    }

    #[test]
    fn reads_the_file_and_style() {
        let (settings, problems) =
            read("bibliography = \"refs/papers.bib\"\ncitation_style = \"chicago-author-date\"\n");
        assert_eq!(problems, "");
        assert_eq!(settings.style, ArchivedStyle::ChicagoAuthorDate);
        let file = settings.bibliography.unwrap();
        assert_eq!(file.path, "refs/papers.bib");
        assert_eq!(file.format, BibFormat::BibLaTeX);
        assert_eq!(file.declared.to_string(), "tracebook.toml:1:16");
        let (settings, _) = read("bibliography = \"refs.yaml\"\n");
        assert_eq!(settings.bibliography.unwrap().format, BibFormat::Yaml);
    }

    #[test]
    fn unknown_styles_and_formats_are_errors_at_their_value() {
        let (_, problems) = read("citation_style = \"chicago-autor-date\"\n");
        assert!(
            problems.starts_with("tracebook.toml:1:18: error: unknown citation style"),
            "{problems}"
        );
        assert!(
            problems.contains("did you mean `chicago-author-date`?"),
            "{problems}"
        );
        let (_, problems) = read("citation_style = \"klingon\"\n");
        assert!(
            problems.contains("styles include author-year: `apa`"),
            "{problems}"
        );
        let (settings, problems) = read("bibliography = \"refs.txt\"\n");
        assert!(settings.bibliography.is_none());
        assert!(problems.contains("must name a .bib file"), "{problems}");
    }
}
