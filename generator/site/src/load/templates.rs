//! Tera templates: base.html, index.html, article.html, part.html, 404.html, print.html and the partials
//! (search box, model credit, footer, sidebar, a figure, a code block) are built in, and any
//! file in the site's templates/ replaces the built-in one of the same name or adds a partial.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::base::source::{display_name, SourceFile};
use std::collections::BTreeMap;
use std::path::Path;
use tera::{Context, ErrorKind, Tera};

/// The folder of the site's own templates.
pub const TEMPLATES_DIR: &str = "templates";

/// The built-in templates, by name.
pub const DEFAULTS: &[(&str, &str)] = &[
    (
        "base.html",
        include_str!("../../defaults/templates/base.html"),
    ),
    (
        "index.html",
        include_str!("../../defaults/templates/index.html"),
    ),
    (
        "article.html",
        include_str!("../../defaults/templates/article.html"),
    ),
    (
        "part.html",
        include_str!("../../defaults/templates/part.html"),
    ),
    (
        "404.html",
        include_str!("../../defaults/templates/404.html"),
    ),
    (
        "partials/search.html",
        include_str!("../../defaults/templates/partials/search.html"),
    ),
    (
        "partials/model-credit.html",
        include_str!("../../defaults/templates/partials/model-credit.html"),
    ),
    (
        "partials/footer.html",
        include_str!("../../defaults/templates/partials/footer.html"),
    ),
    (
        "print.html",
        include_str!("../../defaults/templates/print.html"),
    ),
    (
        "partials/sidebar.html",
        include_str!("../../defaults/templates/partials/sidebar.html"),
    ),
    (
        "partials/figure.html",
        include_str!("../../defaults/templates/partials/figure.html"),
    ),
    (
        "partials/code.html",
        include_str!("../../defaults/templates/partials/code.html"),
    ),
];

/// The templates of a site, ready to render.
pub struct Templates {
    tera: Tera,
    /// Template sources by name, to point errors at the right file and line.
    sources: BTreeMap<String, SourceFile>,
}

impl Templates {
    /// The built-in templates, replaced or extended by `root/templates/**/*.html`.
    pub fn load(root: &Path) -> Result<Templates, Diagnostics> {
        let mut sources: BTreeMap<String, SourceFile> = DEFAULTS
            .iter()
            .map(|(name, text)| {
                (
                    name.to_string(),
                    SourceFile::from_text(&format!("(built-in template) {name}"), text),
                )
            })
            .collect();
        let mut out = Diagnostics::new();
        for (name, file) in site_templates(root, &mut out) {
            sources.insert(name, file);
        }
        if !out.is_empty() {
            return Err(out);
        }
        let mut tera = Tera::new();
        let all = sources
            .iter()
            .map(|(name, file)| (name.as_str(), file.text.as_str()));
        let loaded = tera.add_raw_templates(all);
        let templates = Templates { tera, sources };
        match loaded {
            Ok(()) => Ok(templates),
            Err(err) => Err(templates.diagnostic(&err).into()),
        }
    }

    /// Renders template `name` with `context`.
    pub fn render(&self, name: &str, context: &Context) -> Result<String, Diagnostic> {
        self.tera
            .render(name, context)
            .map_err(|err| self.diagnostic(&err))
    }

    /// Whether a template other than those `except` names `variable` inside a tag (`{{ }}`
    /// or `{% %}`) as a whole word and not as an attribute (`x.variable`). Meant to skip
    /// building what no template reads: a false "yes" only costs time.
    pub fn mention(&self, variable: &str, except: &[&str]) -> bool {
        self.sources
            .iter()
            .filter(|(name, _)| !except.contains(&name.as_str()))
            .any(|(_, file)| tags(&file.text).any(|tag| names_word(tag, variable)))
    }

    /// A tera error, placed at its template's line and column where tera knows them.
    fn diagnostic(&self, err: &tera::Error) -> Diagnostic {
        match err.kind() {
            ErrorKind::SyntaxError(report) | ErrorKind::RenderingError(report) => {
                let kind = if matches!(err.kind(), ErrorKind::SyntaxError(_)) {
                    "template syntax error"
                } else {
                    "template error"
                };
                let message = format!("{kind}: {}", report.message());
                match self.sources.get(report.filename()) {
                    Some(file) => file.error(report.span().range.clone(), message),
                    None => Diagnostic::file(report.filename(), message),
                }
                .with_hint("see the template syntax at https://keats.github.io/tera/docs/")
            }
            ErrorKind::MissingParent { current, parent } => Diagnostic::file(
                &self.file_name(current),
                format!("this template extends `{parent}`, which does not exist"),
            )
            .with_hint(format!("built-in templates are {}", names())),
            _ => Diagnostic::file(TEMPLATES_DIR, format!("template error: {err}")),
        }
    }

    fn file_name(&self, template: &str) -> String {
        self.sources
            .get(template)
            .map_or_else(|| template.to_string(), |f| f.name.clone())
    }
}

/// The insides of the `{{ ... }}` and `{% ... %}` tags of a template.
fn tags(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find("{{").into_iter().chain(rest.find("{%")).min()?;
        let close = if rest[start..].starts_with("{{") {
            "}}"
        } else {
            "%}"
        };
        let inner = &rest[start + 2..];
        let end = inner.find(close).unwrap_or(inner.len());
        rest = &inner[end..];
        Some(&inner[..end])
    })
}

/// `word` in `text` as an identifier of its own: not inside a longer name, not after a dot.
fn names_word(text: &str, word: &str) -> bool {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| is_name(c) || c == '.') && !after.is_some_and(is_name)
    })
}

fn names() -> String {
    DEFAULTS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `templates/**/*.html`, named by their path under templates/.
fn site_templates(root: &Path, out: &mut Diagnostics) -> Vec<(String, SourceFile)> {
    let dir = root.join(TEMPLATES_DIR);
    if !dir.is_dir() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                out.push(Diagnostic::file(
                    TEMPLATES_DIR,
                    format!("cannot read the folder: {err}"),
                ));
                continue;
            }
        };
        let is_html = entry.path().extension().is_some_and(|e| e == "html");
        if !entry.file_type().is_file() || !is_html {
            continue;
        }
        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let name = display_name(entry.path().strip_prefix(&dir).unwrap_or(entry.path()));
        match SourceFile::read(root, relative) {
            Ok(file) => found.push((name, file)),
            Err(diagnostic) => out.push(diagnostic),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_point_at_the_template_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("templates")).unwrap();
        std::fs::write(
            dir.path().join("templates/article.html"),
            "{% extends \"base.html\" %}\n{% block main %}\n{{ page.title }\n{% endblock main %}\n",
        )
        .unwrap();
        let err = Templates::load(dir.path()).err().unwrap().to_string();
        assert!(err.starts_with("templates/article.html:3:"), "{err}");
        assert!(err.contains("template syntax error"), "{err}");
    }

    #[test]
    fn built_in_templates_load() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Templates::load(dir.path()).is_ok());
    }

    #[test]
    fn a_variable_is_mentioned_only_as_a_name_inside_tags() {
        let mentioned = |text: &str| tags(text).any(|tag| names_word(tag, "pages"));
        assert!(mentioned("{% for p in pages %}"));
        assert!(mentioned("<p>{{ pages | length }}</p>"));
        assert!(mentioned("{%- if pages-%}"));
        assert!(!mentioned("<p>pages</p> {{ page.title }}"));
        assert!(!mentioned("{{ site.pages }} {{ all_pages }} {{ pages2 }}"));
        assert!(!mentioned("{# pages #}"));
    }

    #[test]
    fn the_built_in_article_templates_do_not_name_pages() {
        let dir = tempfile::tempdir().unwrap();
        let templates = Templates::load(dir.path()).unwrap();
        assert!(!templates.mention("pages", &["index.html", "404.html", "print.html"]));
        assert!(templates.mention("pages", &[]));
    }
}
