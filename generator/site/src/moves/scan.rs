//! Where a markdown file names places: the byte span of each link destination (inline links
//! and images, reference definitions, raw HTML `href`/`src`) and of each `{{ ref ID }}`'s id,
//! read with the parser options the build reads articles with, code and math left out.

use crate::base::html_scan;
use crate::base::source::SourceFile;
use crate::load::body::{options, BodyRef};
use crate::load::front_matter;
use crate::render::markdown;
use crate::resolve::inline;
use pulldown_cmark::{Event, LinkType, Parser, Tag};
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// A path, relative to the file's folder (or external, absolute: the caller decides).
    Link,
    /// A `{{ ref }}` id: `attention#summary` names a page by its output name.
    Reference,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Into the whole file's text.
    pub span: Range<usize>,
    pub what: Destination,
}

/// Every destination of the file `name` (for messages) holding `text`.
pub fn destinations(name: &str, text: &str) -> Result<Vec<Found>, String> {
    let file = SourceFile::from_text(name, text);
    let parts = front_matter::split(&file).map_err(|d| format!("{name}: {}", d.message))?;
    let body = BodyRef::new(&file, parts.body.clone());
    let base = parts.body.start;
    let mut found = Vec::new();
    let mut link = |span: Option<Range<usize>>| {
        if let Some(span) = span {
            found.push(Found {
                span: base + span.start..base + span.end,
                what: Destination::Link,
            });
        }
    };
    let mut parser = Parser::new_ext(body.text, options()).into_offset_iter();
    for (event, range) in parser.by_ref() {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                ..
            })
            | Event::Start(Tag::Image {
                link_type,
                dest_url,
                ..
            }) if link_type == LinkType::Inline => {
                link(after_opener(body.text, &range, "](", &dest_url));
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                for span in html_destinations(body.text, &range, &html) {
                    link(Some(span));
                }
            }
            _ => {}
        }
    }
    for (_, def) in parser.reference_definitions().iter() {
        link(after_opener(body.text, &def.span, "]:", &def.dest));
    }
    let scanned = markdown::scan(&body);
    for directive in inline::find(body.text, |at| scanned.is_literal(at))
        .into_iter()
        .flatten()
    {
        if let Some(id) = ref_id(body.text, &directive) {
            found.push(Found {
                span: base + id.start..base + id.end,
                what: Destination::Reference,
            });
        }
    }
    found.sort_by_key(|f| f.span.start);
    Ok(found)
}

/// In `text[range]`, the span of `dest` as written after the last `opener` (`](` of an inline
/// link, `]:` of a definition), past blanks and an optional `<`; None when it is written
/// otherwise (escapes or entities in it: such a destination is left as it is).
fn after_opener(
    text: &str,
    range: &Range<usize>,
    opener: &str,
    dest: &str,
) -> Option<Range<usize>> {
    let written = text.get(range.clone())?;
    let mut starts: Vec<usize> = written.match_indices(opener).map(|(i, _)| i).collect();
    starts.reverse();
    starts.into_iter().find_map(|i| {
        let after = i + opener.len();
        let rest = &written[after..];
        let blank = rest.len() - rest.trim_start().len();
        let rest = &rest[blank..];
        let angle = usize::from(rest.starts_with('<'));
        (!dest.is_empty() && rest[angle..].starts_with(dest)).then(|| {
            let start = range.start + after + blank + angle;
            start..start + dest.len()
        })
    })
}

/// The spans of the `href` and `src` values of raw HTML `html`, found at `range` of `text`.
fn html_destinations(text: &str, range: &Range<usize>, html: &str) -> Vec<Range<usize>> {
    let Some(at) = text.get(range.clone()).and_then(|w| w.find(html)) else {
        return Vec::new();
    };
    html_scan::attributes(html)
        .into_iter()
        .filter(|a| a.name.eq_ignore_ascii_case("href") || a.name.eq_ignore_ascii_case("src"))
        .map(|a| {
            let start = range.start + at + a.offset;
            (start..start + a.value.len(), a.value)
        })
        // A value written with entities is left as it is.
        .filter(|(span, value)| !value.is_empty() && text.get(span.clone()) == Some(value))
        .map(|(span, _)| span)
        .collect()
}

/// The id's span in an inline directive `{{ ref ID }}` at `directive`, None for any other.
fn ref_id(text: &str, directive: &Range<usize>) -> Option<Range<usize>> {
    let inner = directive.start + 2..directive.end - 2;
    let words: Vec<(usize, &str)> = text[inner.clone()]
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    match words.as_slice() {
        [(_, "ref"), (at, id)] => Some(*at..*at + id.len()),
        _ => None,
    }
}
