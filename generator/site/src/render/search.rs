//! The offline search index: every article's title, headings and plain text, and each
//! figure's caption, token labels and the other words drawn in its SVG (legends, axis titles,
//! notes), which the text leaves out,
//! written as a script (`search-index.js` sets `window.TRACEBOOK_SEARCH`) so that it loads from `file://`,
//! where browsers refuse to fetch JSON; `tracebook-search.js` searches it in the page.

use crate::render::markdown::TocEntry;
use serde::Serialize;

/// The index, at the output root.
pub const INDEX_FILE: &str = "search-index.js";

/// The search box's script, written unless static/ has its own.
pub const SCRIPT: (&str, &str) = (
    "tracebook-search.js",
    include_str!("../../defaults/static/tracebook-search.js"),
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
    /// `[id, text]` of every figure with an id: its caption, then the token labels its SVG
    /// draws and the other words it draws (each once, in order), so a search can find a figure
    /// by a token it shows or a word of its legend.
    pub figures: Vec<(String, String)>,
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
            figures: figure_texts(body_html),
        }
    }
}

/// The class of the groups that draw token text in figures (monospace labels and boxes).
const TOKEN_GROUP: &str = "<g class=\"tbf-m\"";

/// `[id, caption and token labels]` of every `<figure id=...>` of `html`.
fn figure_texts(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<figure") {
        let figure = &rest[start..];
        let end = figure
            .find("</figure>")
            .map_or(figure.len(), |e| e + "</figure>".len());
        let (figure, after) = (&figure[..end], &figure[end..]);
        rest = after;
        let Some(id) = attribute(figure, "id") else {
            continue;
        };
        let caption = figure
            .find("<figcaption")
            .map(|at| plain_text(&figure[at..]))
            .unwrap_or_default();
        let mut words: Vec<String> = Vec::new();
        let labels = token_labels(figure);
        let label_words = labels.iter().flat_map(|l| l.split_whitespace());
        for word in label_words.chain(drawn_words(figure).iter().map(String::as_str)) {
            if !words.iter().any(|w| w == word) {
                words.push(word.to_string());
            }
        }
        let text = format!("{caption} {}", words.join(" "));
        out.push((id, text.trim().to_string()));
    }
    out
}

/// The value of attribute `name` of the first tag of `html`.
fn attribute(html: &str, name: &str) -> Option<String> {
    let tag = &html[..html.find('>')?];
    let needle = format!(" {name}=\"");
    let at = tag.find(&needle)? + needle.len();
    let value = &tag[at..];
    Some(decode(&value[..value.find('"')?]))
}

/// The text of every token-label group of a figure's SVG, with the marks for invisible
/// characters (a space's `·`, a newline's `⏎`) read as spaces.
fn token_labels(figure: &str) -> Vec<String> {
    let mut labels = Vec::new();
    let mut rest = figure;
    while let Some(start) = rest.find(TOKEN_GROUP) {
        let group = &rest[start..];
        let end = group_end(group);
        // Each <text> is one label, and a <title> the whole of a cut one.
        let separated = group[..end]
            .replace("</text>", " </text>")
            .replace("<title>", " <title>");
        labels.push(plain_text(&separated).replace(['·', '⏎', '…'], " "));
        rest = &group[end..];
    }
    labels
}

/// The words of every `<text>` of a figure's SVG that have a letter in them (a legend's
/// "angles", a note's "hollow"), edge punctuation trimmed; its numbers are left out, since a
/// search for "0.43" would find every figure.
fn drawn_words(figure: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = figure;
    while let Some(start) = rest.find("<text") {
        let text = &rest[start..];
        let end = text
            .find("</text>")
            .map_or(text.len(), |e| e + "</text>".len());
        let plain = plain_text(&text[..end].replace("<title>", " <title>"));
        for word in plain.split_whitespace() {
            let word = word.trim_matches(|c: char| !c.is_alphanumeric());
            if word.chars().any(char::is_alphabetic) {
                words.push(word.to_string());
            }
        }
        rest = &text[end..];
    }
    words
}

/// Where the `<g>` that `group` starts with ends (after its `</g>`), nested groups counted.
fn group_end(group: &str) -> usize {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(next) = group[at..]
        .find("<g")
        .into_iter()
        .chain(group[at..].find("</g>"))
        .min()
    {
        let here = at + next;
        if group[here..].starts_with("</g>") {
            depth = depth.saturating_sub(1);
            at = here + "</g>".len();
            if depth == 0 {
                return at;
            }
        } else {
            let closes_itself = group[here..]
                .find('>')
                .is_some_and(|e| group[here..here + e].ends_with('/'));
            let is_g = group[here + 2..].starts_with([' ', '>']);
            if is_g && !closes_itself {
                depth += 1;
            }
            at = here + 2;
        }
    }
    group.len()
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
    fn figures_are_indexed_by_caption_and_token_labels_not_by_their_numbers() {
        let html = "<p>Prose.</p><figure class=\"tb-figure\" id=\"fig-a\"><div><svg>\
                    <g class=\"tbf-m\" font-size=\"15\"><text x=\"1\">The</text>\
                    <text x=\"2\"><tspan class=\"tbf-ws\">·</tspan>robots</text>\
                    <g><text>The</text></g></g>\
                    <g class=\"tbf-s tbf-dim\"><text>14193</text><text>98.0%</text></g></svg></div>\
                    <figcaption><span>Figure 1.</span> The prompt &amp; its tokens.</figcaption></figure>\
                    <figure id=\"figure-2\"><svg><g class=\"tbf-m\"><text>un<title>unbelievable</title></text>\
                    <text>believ…</text></g></svg></figure><figure><svg/></figure>";
        assert_eq!(
            figure_texts(html),
            [
                (
                    "fig-a".to_string(),
                    "Figure 1. The prompt & its tokens. The robots".to_string()
                ),
                ("figure-2".to_string(), "un unbelievable believ".to_string())
            ]
        );
        // The page's text keeps the caption and leaves the drawing out, as before.
        assert_eq!(
            plain_text(html),
            "Prose. Figure 1. The prompt & its tokens."
        );
    }

    #[test]
    fn a_figure_s_legend_and_note_words_are_indexed() {
        let html = "<figure id=\"fig-r\"><svg><g class=\"tbf-m\"><text>·bring</text></g>\
                    <text>angles (radians)</text><text>−0.43</text><text>hollow: negative, bring</text>\
                    </svg><figcaption>Rotations.</figcaption></figure>";
        assert_eq!(
            figure_texts(html),
            [(
                "fig-r".to_string(),
                "Rotations. bring angles radians hollow negative".to_string()
            )]
        );
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
