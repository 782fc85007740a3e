//! The offline search index: every article's title, headings and plain text, written as a
//! script (`search-index.js` sets `window.TRACEBOOK_SEARCH`) so that it loads from `file://`,
//! where browsers refuse to fetch JSON; `tracebook-search.js` searches it in the page.

use crate::markdown::TocEntry;
use serde::Serialize;

/// The index, at the output root.
pub const INDEX_FILE: &str = "search-index.js";

/// The search box's script, written unless static/ has its own.
pub const SCRIPT: (&str, &str) = (
    "tracebook-search.js",
    include_str!("../defaults/static/tracebook-search.js"),
);

/// One article as the search box sees it.
#[derive(Debug, Clone, Serialize)]
pub struct SearchEntry {
    pub title: String,
    /// The page's path from the output root.
    pub url: String,
    /// `[id, title]` of every heading, in order.
    pub headings: Vec<(String, String)>,
    /// The body's words: tags, figures' SVG and math markup left out, whitespace collapsed.
    pub text: String,
}

impl SearchEntry {
    pub fn new(title: &str, url: &str, toc: &[TocEntry], body_html: &str) -> SearchEntry {
        let mut headings = Vec::new();
        flatten(toc, &mut headings);
        SearchEntry {
            title: title.to_string(),
            url: url.to_string(),
            headings,
            text: plain_text(body_html),
        }
    }
}

fn flatten(toc: &[TocEntry], out: &mut Vec<(String, String)>) {
    for entry in toc {
        out.push((entry.id.clone(), entry.title.clone()));
        flatten(&entry.children, out);
    }
}

/// The index script for `entries`, in series order.
pub fn index_script(entries: &[SearchEntry]) -> String {
    let json = serde_json::json!({ "pages": entries });
    format!("window.TRACEBOOK_SEARCH = {json};\n")
}

/// Elements whose content is not prose (pictures, math markup, scripts), and headings, which
/// the index lists apart.
const SKIPPED: &[&str] = &[
    "svg", "math", "script", "style", "h1", "h2", "h3", "h4", "h5", "h6",
];

/// Elements that separate words.
const BLOCKS: &[&str] = &[
    "p",
    "br",
    "li",
    "ul",
    "ol",
    "div",
    "figure",
    "figcaption",
    "table",
    "tr",
    "td",
    "th",
    "pre",
    "blockquote",
    "section",
    "header",
    "footer",
    "nav",
    "dt",
    "dd",
    "hr",
    "aside",
];

/// The text of an HTML fragment, entities decoded and whitespace collapsed.
fn plain_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len() / 2);
    let mut rest = html;
    let mut skipping: Option<&str> = None;
    while let Some(open) = rest.find('<') {
        if skipping.is_none() {
            text.push_str(&decode(&rest[..open]));
        }
        let Some(close) = rest[open..].find('>') else {
            break;
        };
        let tag = &rest[open + 1..open + close];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match skipping {
            Some(skipped) if tag.starts_with('/') && name == skipped => skipping = None,
            None => {
                if let Some(skipped) = SKIPPED.iter().find(|s| **s == name) {
                    if !tag.starts_with('/') && !tag.ends_with('/') {
                        skipping = Some(skipped);
                    }
                }
                if BLOCKS.contains(&name.as_str()) || skipping.is_some() {
                    text.push(' ');
                }
            }
            Some(_) => {}
        }
        rest = &rest[open + close + 1..];
    }
    if skipping.is_none() {
        text.push_str(&decode(rest));
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The entities pulldown-cmark and our escaping write, and numeric ones.
fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&n| n <= 10);
        let decoded = end.and_then(|end| entity(&rest[1..end]));
        match (end, decoded) {
            (Some(end), Some(c)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some(' '),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_leaves_out_markup_pictures_and_math() {
        let html = "<h2 id=\"a\">Scores <a href=\"#a\">#</a></h2>\n<p>One<em>two</em> &lt;three&gt;&#39;s</p>\
                    <figure><svg><text>12</text></svg><figcaption>The caption</figcaption></figure>\
                    <math><mi>x</mi></math>and<p>end</p>";
        assert_eq!(plain_text(html), "Onetwo <three>'s The caption and end");
    }

    #[test]
    fn the_index_is_a_script_assigning_a_global() {
        let entry = SearchEntry::new("Tokens", "tokens.html", &[], "<p>ids</p>");
        let script = index_script(&[entry]);
        assert!(
            script.starts_with("window.TRACEBOOK_SEARCH = {\"pages\":[{"),
            "{script}"
        );
        assert!(script.contains("\"text\":\"ids\""), "{script}");
    }
}
