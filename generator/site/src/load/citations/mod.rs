//! Citations: a bibliography file named in tracebook.toml (BibTeX/BibLaTeX, or Hayagriva
//! YAML), `{{ cite KEY }}` in the prose, and at the end of each page the entries that page
//! cites, formatted by a CSL style from hayagriva's bundled archive. The file is read and the
//! style decoded once per build; each page then runs its own citation pass.

mod bibliography;
mod html;
mod settings;

pub use html::section;
pub use settings::{from_config, CitationSettings};

use crate::base::diagnostic::Diagnostics;
use crate::base::source::SourceFile;
use hayagriva::citationberg::{IndependentStyle, Locale, LocaleCode, Style};
use hayagriva::Library;
use std::path::Path;

/// The site's bibliography as far as the build could read it.
#[derive(Debug, Default)]
pub enum Citations {
    /// No `bibliography` in tracebook.toml: citing is an error.
    #[default]
    Off,
    /// The file is missing or does not parse (reported once): citations render as nothing,
    /// so each cite does not repeat the file's problem.
    Broken,
    /// Boxed: a style is a few kilobytes, and sites without citations carry only `Off`.
    Ready(Box<Bibliography>),
}

/// Every entry of the bibliography file, with the style and the locale to format them in.
pub struct Bibliography {
    /// The file's name, relative to the site root (for hints).
    pub file: String,
    library: Library,
    style: IndependentStyle,
    locale: LocaleCode,
    locales: Vec<Locale>,
}

impl std::fmt::Debug for Bibliography {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bibliography")
            .field("file", &self.file)
            .field("entries", &self.library.len())
            .field("locale", &self.locale)
            .finish_non_exhaustive()
    }
}

impl Bibliography {
    /// The entries of `library` in `settings`' style, in the words of `language` (a site
    /// language tag such as "en" or "de": "et al." becomes "u. a.").
    pub fn new(
        file: &str,
        library: Library,
        settings: &CitationSettings,
        language: &str,
    ) -> Bibliography {
        let style = match settings.style.get() {
            Style::Independent(style) => style,
            Style::Dependent(_) => unreachable!("hayagriva's archive holds independent styles"),
        };
        let locale = LocaleCode(language.to_string());
        // Keep the locales this site can use: its language's and the English fallback.
        let wanted = [locale.fallback(), Some(LocaleCode::en_us())];
        // Decoding all of the archive's locales took most of a build's load stage (60 of 65 ms
        // on a small site), so a locale is decoded only when the tag its bytes start with
        // (`@xml:lang`, read by `archived_tag`) is wanted; one without a readable tag is
        // decoded and checked.
        let is_wanted = |lang: &LocaleCode| wanted.contains(&Some(lang.clone())) || *lang == locale;
        let locales = hayagriva::archive::LOCALES
            .iter()
            .filter(|bytes| {
                archived_tag(bytes).is_none_or(|tag| is_wanted(&LocaleCode(tag.into())))
            })
            .filter_map(|bytes| ciborium::de::from_reader::<Locale, _>(*bytes).ok())
            .filter(|l| l.lang.as_ref().is_some_and(is_wanted))
            .collect();
        Bibliography {
            file: file.to_string(),
            library,
            style,
            locale,
            locales,
        }
    }

    pub fn contains(&self, key: &str) -> bool {
        self.library.get(key).is_some()
    }

    /// Every key, in the file's order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.library.keys()
    }
}

/// The language tag an archived locale (CBOR) names first, `@xml:lang` as a short text string
/// (a map key of 9 bytes, then the tag's header byte 0x60 + length); None for other layouts.
fn archived_tag(bytes: &[u8]) -> Option<&str> {
    const KEY: &[u8] = b"\x69@xml:lang";
    let start = bytes.get(..16)?.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let len = usize::from(bytes.get(start)?.checked_sub(0x60).filter(|&n| n < 24)?);
    std::str::from_utf8(bytes.get(start + 1..start + 1 + len)?).ok()
}

/// Reads the bibliography `settings` name (None: citations are off); problems go to `out`.
pub fn load(
    root: &Path,
    settings: &CitationSettings,
    language: &str,
    out: &mut Diagnostics,
) -> Citations {
    let Some(setting) = &settings.bibliography else {
        return Citations::Off;
    };
    if !root.join(&setting.path).is_file() {
        out.push(
            setting
                .declared
                .error(format!("there is no bibliography file {}", setting.path))
                .with_hint(
                    "the path is relative to the site folder, e.g. bibliography = \"references.bib\"",
                ),
        );
        return Citations::Broken;
    }
    let file = match SourceFile::read(root, Path::new(&setting.path)) {
        Ok(file) => file,
        Err(problem) => {
            out.push(problem);
            return Citations::Broken;
        }
    };
    match bibliography::parse(&file, setting.format) {
        Ok(library) => Citations::Ready(Box::new(Bibliography::new(
            &file.name, library, settings, language,
        ))),
        Err(problems) => {
            out.extend(problems);
            Citations::Broken
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_archived_locale_names_its_language_where_the_build_reads_it() {
        for bytes in hayagriva::archive::LOCALES {
            let decoded = ciborium::de::from_reader::<Locale, _>(*bytes).unwrap();
            let tag = archived_tag(bytes).map(|t| LocaleCode(t.to_string()));
            assert!(tag.is_some(), "a locale without a readable tag");
            assert_eq!(tag, decoded.lang);
        }
    }
}
