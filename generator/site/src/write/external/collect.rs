//! Where the site links to the web: every http(s) link of a published page (markdown links,
//! images, autolinks, the author's raw HTML) and of the site's own templates, with its place.

use crate::base::html_scan;
use crate::base::source::{Location, SourceFile};
use crate::load::site::Site;
use crate::render::markdown::{self, BodyRef};
use pulldown_cmark::{Event, Parser, Tag};
use std::ops::Range;
use std::path::Path;

/// An http(s) link as the author wrote it, and where.
#[derive(Debug, Clone)]
pub struct ExternalLink {
    pub written: String,
    pub location: Location,
}

impl ExternalLink {
    /// The address to ask for: no server ever sees the `#fragment`, so it is not checked.
    pub fn url(&self) -> &str {
        self.written.split('#').next().unwrap_or_default()
    }
}

/// Every external link of the published pages, then of `templates/`, in file order.
pub fn in_site(site: &Site) -> Vec<ExternalLink> {
    let mut out = Vec::new();
    for page in site.pages.iter().filter(|p| !p.meta.draft) {
        in_markdown(BodyRef::new(&page.source, page.body.clone()), &mut out);
    }
    in_templates(&site.root, &mut out);
    out
}

/// Parsed as the page is rendered, so a URL in a code block or a figure is not a link.
fn in_markdown(body: BodyRef<'_>, out: &mut Vec<ExternalLink>) {
    for (event, range) in Parser::new_ext(body.text, markdown::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. })
                if is_web(&dest_url) =>
            {
                out.push(ExternalLink {
                    written: dest_url.to_string(),
                    location: body.location(range),
                });
            }
            Event::Html(html) | Event::InlineHtml(html) => in_raw_html(body, &html, range, out),
            _ => {}
        }
    }
}

/// The `href`s and `src`s of raw HTML, each at its own line and column.
fn in_raw_html(body: BodyRef<'_>, html: &str, range: Range<usize>, out: &mut Vec<ExternalLink>) {
    let Some(at) = body.text.get(range.clone()).and_then(|w| w.find(html)) else {
        return;
    };
    for (value, offset) in web_attributes(html) {
        let start = range.start + at + offset;
        out.push(ExternalLink {
            location: body.location(start..start + value.len()),
            written: value,
        });
    }
}

/// Literal http(s) links in `templates/**/*.html` (those built from variables are left alone).
fn in_templates(root: &Path, out: &mut Vec<ExternalLink>) {
    let files = walkdir::WalkDir::new(root.join("templates"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "html"));
    for entry in files {
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        // An unreadable template is the offline check's to report.
        let Ok(file) = SourceFile::read(root, relative) else {
            continue;
        };
        for (value, offset) in web_attributes(&file.text) {
            out.push(ExternalLink {
                location: file.location(offset..offset + value.len()),
                written: value,
            });
        }
    }
}

/// `(value, offset of the value)` of every literal http(s) `href` and `src` in `html`.
fn web_attributes(html: &str) -> Vec<(String, usize)> {
    html_scan::attributes(html)
        .into_iter()
        .filter(|a| a.name.eq_ignore_ascii_case("href") || a.name.eq_ignore_ascii_case("src"))
        .filter(|a| is_web(&a.value) && !a.value.contains("{{") && !a.value.contains("{%"))
        .map(|a| (a.value, a.offset))
        .collect()
}

/// `http://...` or `https://...`, in any case (`mailto:` and the like are not asked for).
fn is_web(dest: &str) -> bool {
    ["http://", "https://"].iter().any(|scheme| {
        dest.get(..scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(markdown: &str) -> Vec<(String, String)> {
        let file = SourceFile::from_text("content/a.md", markdown);
        let mut out = Vec::new();
        in_markdown(BodyRef::new(&file, 0..markdown.len()), &mut out);
        out.into_iter()
            .map(|l| {
                let p = l.location.position;
                (l.written, format!("{}:{}", p.line, p.column))
            })
            .collect()
    }

    #[test]
    fn links_images_autolinks_and_raw_html_are_found_at_their_place() {
        let found = links(
            "See [a](https://a.example/x#y) and ![i](http://i.example/p.png).\n\
             <https://auto.example>\n\n<a href=\"https://raw.example/\">r</a>\n\n\
             `https://code.example` [local](b.md) [mail](mailto:a@b.c)\n",
        );
        let expected = [
            ("https://a.example/x#y", "1:5"),
            ("http://i.example/p.png", "1:36"),
            ("https://auto.example", "2:1"),
            ("https://raw.example/", "4:10"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(u, p)| (u.to_string(), p.to_string()))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn the_fragment_is_not_part_of_the_url() {
        let file = SourceFile::from_text("a.md", "x");
        let link = ExternalLink {
            written: "https://a.example/x#part".into(),
            location: file.location(0..1),
        };
        assert_eq!(link.url(), "https://a.example/x");
    }

    #[test]
    fn only_http_and_https_are_web_links() {
        assert!(is_web("HTTPS://A.example"));
        assert!(is_web("http://a"));
        assert!(!is_web("mailto:a@b.c"));
        assert!(!is_web("//cdn.example/x.js"));
        assert!(!is_web("httpx://a"));
    }
}
