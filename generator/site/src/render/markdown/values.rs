//! Puts computed inline values where their placeholders are: in text as a styled span,
//! in raw HTML and image descriptions as plain escaped text. A claim shows no text: in prose
//! it becomes a quiet marker whose title (shown on hover and, by the theme's CSS, on focus,
//! without JavaScript) says what was checked and the values that made it true.

use super::Spanned;
use crate::base::escape;
use crate::load::words::Words;
use crate::resolve::inline::{self, CheckedClaim, Outcome, Piece, Value};
use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

/// Places `values`; claims get a marker worded by `markers` (None: no marker).
/// A value shown as a span carries its directive (`sources`, by placeholder number) in
/// `data-tb-of`, so what a number is stays readable in the page (tests/relations.rs checks
/// the relations between numbers by it).
pub fn rewrite<'s>(
    events: Vec<Spanned<'s>>,
    values: &[Option<Value>],
    sources: &[String],
    markers: Option<&Words>,
) -> Vec<Spanned<'s>> {
    let mut out = Vec::with_capacity(events.len());
    let mut in_image = 0usize;
    for (event, range) in events {
        match event {
            Event::Start(Tag::Image { .. }) => {
                in_image += 1;
                out.push((event, range));
            }
            Event::End(TagEnd::Image) => {
                in_image = in_image.saturating_sub(1);
                out.push((event, range));
            }
            Event::Text(text) if inline::has_placeholder(&text) => {
                for piece in inline::expand(&text, values) {
                    match piece {
                        Piece::Text(t) => out.push((Event::Text(CowStr::from(t)), range.clone())),
                        Piece::Value(_, Value::Claim(claim)) => {
                            if let Some(words) = markers.filter(|_| in_image == 0) {
                                out.push((
                                    Event::InlineHtml(CowStr::from(marker(claim, words))),
                                    range.clone(),
                                ));
                            }
                        }
                        Piece::Value(_, Value::Ref { html, .. } | Value::Cite { html, .. })
                            if in_image == 0 =>
                        {
                            out.push((Event::InlineHtml(CowStr::from(html.clone())), range.clone()))
                        }
                        Piece::Value(_, v) if in_image > 0 => {
                            out.push((Event::Text(CowStr::from(v.text())), range.clone()))
                        }
                        Piece::Value(n, v) => {
                            let of = sources.get(n).map_or(String::new(), |s| {
                                format!(" data-tb-of=\"{}\"", escape::html(s))
                            });
                            let open = format!("<span class=\"{}\"{of}>", v.class());
                            out.push((Event::InlineHtml(CowStr::from(open)), range.clone()));
                            out.push((Event::Text(CowStr::from(v.text())), range.clone()));
                            out.push((Event::InlineHtml(CowStr::from("</span>")), range.clone()));
                        }
                    }
                }
            }
            Event::Html(html) if inline::has_placeholder(&html) => {
                out.push((
                    Event::Html(CowStr::from(expand_escaped(&html, values))),
                    range,
                ));
            }
            Event::InlineHtml(html) if inline::has_placeholder(&html) => {
                out.push((
                    Event::InlineHtml(CowStr::from(expand_escaped(&html, values))),
                    range,
                ));
            }
            other => out.push((other, range)),
        }
    }
    out
}

/// A value as inline HTML in markdown that another tool renders (an mdBook chapter): as
/// [`rewrite`] shows it, its text escaped for HTML and for markdown both, so that no `*`, `_`
/// or `$` of a token starts emphasis or math there. Claims without markers show nothing.
pub fn markdown_inline(
    n: usize,
    value: &Value,
    sources: &[String],
    markers: Option<&Words>,
) -> String {
    match value {
        Value::Claim(claim) => markers.map_or(String::new(), |words| marker(claim, words)),
        Value::Ref { html, .. } | Value::Cite { html, .. } => html.clone(),
        v => {
            let of = sources.get(n).map_or(String::new(), |s| {
                format!(" data-tb-of=\"{}\"", escape::html(s))
            });
            format!(
                "<span class=\"{}\"{of}>{}</span>",
                v.class(),
                markdown_text(&v.text())
            )
        }
    }
}

/// `text` for markdown: HTML-escaped, and markdown's punctuation as character references.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '$' | '~' | '|' | '!' | '#' | '{' | '}' => {
                out.push_str(&format!("&#{};", c as u32))
            }
            c => out.push_str(&escape::html(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

/// The marker of a checked claim: `✓` with what was checked as its title.
fn marker(claim: &CheckedClaim, words: &Words) -> String {
    let prompt = [("prompt", claim.prompt.as_str())];
    let (class, sign, title) = match &claim.outcome {
        Outcome::Holds(detail) => (
            "tb-claim",
            "✓",
            format!("{}: {detail}", words.fill("claim_checked", &prompt)),
        ),
        Outcome::Fails(detail) => (
            "tb-claim tb-claim-false",
            "✗",
            format!("{}: {detail}", words.fill("claim_false", &prompt)),
        ),
        Outcome::Unchecked(reason) => (
            "tb-claim tb-claim-unchecked",
            "?",
            format!("{}: {reason}", words.get("claim_unchecked")),
        ),
    };
    // The prompt and the expression let a live session ask the claim of the reader's text.
    format!(
        "<abbr class=\"{class}\" tabindex=\"0\" title=\"{}\" data-claim=\"{}\" data-claim-prompt=\"{}\">{sign}</abbr>",
        crate::base::escape::html(&title),
        crate::base::escape::html(&claim.source),
        crate::base::escape::html(&claim.prompt)
    )
}

fn expand_escaped(html: &str, values: &[Option<Value>]) -> String {
    inline::expand(html, values)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t,
            Piece::Value(_, v) => escape::html(&v.text()),
        })
        .collect()
}
