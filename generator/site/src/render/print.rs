//! `print.html`: the whole series on one page, in order (as mdBook's print page), for printing
//! or saving as one PDF. Each article's body is its page's HTML with every id given the
//! article's prefix (`attention--scores`), so ids stay unique on the one page, and links
//! rebased: to a place in the series they become in-page anchors, to other files they are
//! taken relative to the site's root, where print.html lives.

use crate::base::escape;
use crate::base::html_scan;
use crate::base::paths;
use serde::Serialize;
use std::collections::BTreeMap;

/// One article as print.html shows it.
#[derive(Debug, Clone, Serialize)]
pub struct PrintArticle {
    pub title: String,
    pub description: String,
    /// Its element id on print.html (the output path without `.html`, `/` as `-`).
    pub anchor: String,
    /// Its body, rebased (HTML).
    pub content: String,
    /// The part this article opens, with its introduction, printed before it.
    pub starts_part: Option<Box<PrintArticle>>,
}

/// The print anchor of an article's output path: `more/deep.html` → `more-deep`.
pub fn anchor(output: &str) -> String {
    output
        .strip_suffix(".html")
        .unwrap_or(output)
        .replace('/', "-")
}

/// Attributes that hold one id, or a space-separated list of ids.
const ID_LISTS: &[&str] = &[
    "aria-labelledby",
    "aria-describedby",
    "aria-controls",
    "for",
];

/// `html`, the body of the article at `output`, rebased for print.html; `articles` maps every
/// article's output path to its print anchor.
pub fn rebase(html: &str, output: &str, articles: &BTreeMap<String, String>) -> String {
    let own = &articles[output];
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for attribute in html_scan::attributes(html) {
        let name = attribute.name.to_ascii_lowercase();
        let value = &attribute.value;
        let new = if name == "id" {
            format!("{own}--{value}")
        } else if ID_LISTS.contains(&name.as_str()) {
            value
                .split_whitespace()
                .map(|id| format!("{own}--{id}"))
                .collect::<Vec<_>>()
                .join(" ")
        } else if name == "href" || name == "src" {
            match link(value, output, own, articles) {
                Some(new) => new,
                None => continue,
            }
        } else {
            continue;
        };
        edits.push((raw_span(html, attribute.offset), escape::html(&new)));
    }
    let mut out = html.to_string();
    for (span, text) in edits.into_iter().rev() {
        out.replace_range(span, &text);
    }
    out
}

/// The new target of a link written on the article at `output`, or None to keep it.
fn link(
    value: &str,
    output: &str,
    own: &str,
    articles: &BTreeMap<String, String>,
) -> Option<String> {
    if let Some(fragment) = value.strip_prefix('#') {
        return Some(format!("#{own}--{fragment}"));
    }
    let scheme = value
        .find(':')
        .is_some_and(|colon| !value[..colon].contains('/'));
    if scheme || value.starts_with("//") || value.starts_with('/') {
        return None;
    }
    let (path, fragment) = match value.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (value, None),
    };
    let target = paths::join(paths::parent(output), &paths::decode(path))?;
    Some(match (articles.get(&target), fragment) {
        (Some(anchor), Some(fragment)) => format!("#{anchor}--{fragment}"),
        (Some(anchor), None) => format!("#{anchor}"),
        (None, Some(fragment)) => format!("{}#{fragment}", paths::encode(&target)),
        (None, None) => paths::encode(&target),
    })
}

/// The raw text of an attribute value starting at `start` (after its opening quote, if any).
fn raw_span(html: &str, start: usize) -> std::ops::Range<usize> {
    let quote = html[..start]
        .chars()
        .next_back()
        .filter(|c| *c == '"' || *c == '\'');
    let end = match quote {
        Some(q) => html[start..].find(q).map_or(html.len(), |i| start + i),
        None => html[start..]
            .find(|c: char| c.is_ascii_whitespace() || c == '>')
            .map_or(html.len(), |i| start + i),
    };
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_get_the_article_prefix_and_links_become_anchors() {
        let articles: BTreeMap<String, String> = [
            ("a.html".to_string(), "a".to_string()),
            ("more/b.html".to_string(), "more-b".to_string()),
        ]
        .into();
        let html = "<h2 id=\"scores\">S</h2><svg aria-labelledby=\"t1 d1\"><title id=\"t1\">x</title></svg>\
                    <a href=\"#scores\">here</a> <a href=\"../a.html#scores\">a</a> <a href=\"b.html\">b</a>\
                    <img src=\"b.figure-1.svg\"> <a href=\"https://x.org/a.html\">out</a> <code>id=\"no\"</code>";
        let out = rebase(html, "more/b.html", &articles);
        assert_eq!(
            out,
            "<h2 id=\"more-b--scores\">S</h2><svg aria-labelledby=\"more-b--t1 more-b--d1\"><title id=\"more-b--t1\">x</title></svg>\
             <a href=\"#more-b--scores\">here</a> <a href=\"#a--scores\">a</a> <a href=\"#more-b\">b</a>\
             <img src=\"more/b.figure-1.svg\"> <a href=\"https://x.org/a.html\">out</a> <code>id=\"no\"</code>"
        );
    }
}
