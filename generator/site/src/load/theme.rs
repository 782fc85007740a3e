//! `[theme]` in tracebook.toml: the accent (links, controls and figures) and the figures'
//! palettes, by name, from a set of colour-blind-safe ones.
//!
//! ```toml
//! [theme]
//! accent = "#b5472d"          # dark pages get a lighter colour of its hue, or accent_dark
//! sequential = "greens"       # blues (default), greens, purples, oranges, greys
//! diverging = "purple-orange" # blue-red (default), purple-orange, brown-teal, pink-green
//! ```

use crate::base::diagnostic::Diagnostics;
use crate::load::toml_doc::{entry, TomlDoc};
use tracebook_figures::{Accent, Colour, DivergingPalette, SequentialPalette, Theme};

pub const THEME_KEYS: &[&str] = &["accent", "accent_dark", "sequential", "diverging"];

/// The site's theme, every problem of `[theme]` reported at its value.
pub fn from_config(doc: &TomlDoc<'_>, out: &mut Diagnostics) -> Theme {
    let mut theme = Theme::default();
    let Some((_, section)) = entry(doc.table(), "theme") else {
        return theme;
    };
    let Some(table) = section.get_ref().as_table() else {
        out.push(
            doc.error(section.span(), "`theme` must be a table")
                .with_hint("write it as a [theme] section with accent, sequential and diverging"),
        );
        return theme;
    };
    let text = |key: &str, out: &mut Diagnostics| {
        let (_, value) = entry(table, key)?;
        match value.get_ref().as_str() {
            Some(text) => Some((text.to_string(), value.span())),
            None => {
                out.push(doc.error(value.span(), format!("`{key}` must be a string")));
                None
            }
        }
    };
    let colour = |key: &str, out: &mut Diagnostics| {
        let (value, span) = text(key, out)?;
        let parsed = Colour::parse_hex(&value);
        if parsed.is_none() {
            out.push(
                doc.error(
                    span,
                    format!("`{key}` must be a colour as #rrggbb, not {value:?}"),
                )
                .with_hint("e.g. accent = \"#b5472d\" (CSS names and rgb() are not read)"),
            );
        }
        parsed
    };
    let accent = colour("accent", out);
    let accent_dark = colour("accent_dark", out);
    theme.accent = match (accent, accent_dark) {
        (Some(light), dark) => Some(Accent::new(light, dark)),
        (None, Some(_)) => {
            let span = entry(table, "accent_dark").map_or(0..0, |(_, v)| v.span());
            out.push(
                doc.error(
                    span,
                    "`accent_dark` is the accent for dark pages, but there is no `accent`",
                )
                .with_hint("set `accent` too (the light pages' colour)"),
            );
            None
        }
        (None, None) => None,
    };
    if let Some((name, span)) = text("sequential", out) {
        let names: Vec<&str> = SequentialPalette::ALL.iter().map(|p| p.name()).collect();
        match SequentialPalette::from_name(&name) {
            Some(palette) => theme.sequential = palette,
            None => out.push(unknown(doc, span, "sequential", &name, &names)),
        }
    }
    if let Some((name, span)) = text("diverging", out) {
        let names: Vec<&str> = DivergingPalette::ALL.iter().map(|p| p.name()).collect();
        match DivergingPalette::from_name(&name) {
            Some(palette) => theme.diverging = palette,
            None => out.push(unknown(doc, span, "diverging", &name, &names)),
        }
    }
    theme
}

fn unknown(
    doc: &TomlDoc<'_>,
    span: std::ops::Range<usize>,
    key: &str,
    name: &str,
    names: &[&str],
) -> crate::base::diagnostic::Diagnostic {
    let hint =
        crate::suggest::hint(name, names, &format!("the {key} palettes are")).unwrap_or_default();
    doc.error(span, format!("there is no {key} palette {name:?}"))
        .with_hint(format!(
            "{hint} (each is colour-blind-safe; see Themes in docs/authoring.md)"
        ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::source::SourceFile;

    fn read(text: &str) -> (Theme, String) {
        let file = SourceFile::from_text("tracebook.toml", text);
        let doc = TomlDoc::parse(&file, 0..file.text.len()).unwrap();
        let mut out = Diagnostics::new();
        let theme = from_config(&doc, &mut out);
        (theme, out.to_string())
    }

    #[test]
    fn reads_the_accent_and_palettes_by_name() {
        let (theme, errors) = read(
            "[theme]\naccent = \"#b5472d\"\nsequential = \"greens\"\ndiverging = \"brown-teal\"\n",
        );
        assert_eq!(errors, "");
        assert_eq!(theme.accent.unwrap().light.hex(), "#b5472d");
        assert_eq!(theme.sequential, SequentialPalette::Greens);
        assert_eq!(theme.diverging, DivergingPalette::BrownTeal);
        assert!(read("").0.is_default());
    }

    #[test]
    fn bad_values_are_located_with_what_is_allowed() {
        let (_, errors) =
            read("[theme]\naccent = \"teal\"\nsequential = \"gren\"\ndiverging = \"rainbow\"\n");
        assert!(
            errors.contains(
                "tracebook.toml:2:10: error: `accent` must be a colour as #rrggbb, not \"teal\""
            ),
            "{errors}"
        );
        assert!(
            errors.contains("tracebook.toml:3:14: error: there is no sequential palette \"gren\""),
            "{errors}"
        );
        assert!(errors.contains("did you mean `greens`?"), "{errors}");
        assert!(errors.contains("the diverging palettes are: `blue-red`, `purple-orange`, `brown-teal`, `pink-green`"), "{errors}");
        let (_, errors) = read("[theme]\naccent_dark = \"#ffffff\"\n");
        assert!(errors.contains("there is no `accent`"), "{errors}");
    }
}
