//! GitHub-style callouts: a block quote that starts with `[!NOTE]`, `[!TIP]`, `[!IMPORTANT]`,
//! `[!WARNING]` or `[!CAUTION]` (recognised by pulldown-cmark's GFM option) becomes an
//! `<aside class="tb-callout tb-callout-note">` with its title in the site's language; the theme
//! styles each kind (light, dark, print). A block quote that starts with `[!SOMETHING]` else is
//! an error with the kinds there are, not a quote that silently shows "[!NOET]".

use super::Spanned;
use crate::base::problem::Problem;
use crate::load::words::Words;
use crate::suggest;
use pulldown_cmark::{BlockQuoteKind, CowStr, Event, Tag, TagEnd};

/// The kinds, as written after `[!`.
const KINDS: &[&str] = &["NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"];

pub fn rewrite<'s>(
    events: Vec<Spanned<'s>>,
    words: &Words,
    problems: &mut Vec<Problem>,
) -> Vec<Spanned<'s>> {
    let mut out = Vec::with_capacity(events.len());
    for (i, (event, range)) in events.iter().enumerate() {
        match event {
            Event::Start(Tag::BlockQuote(Some(kind))) => {
                let (class, word) = name(*kind);
                let html = format!(
                    "<aside class=\"tb-callout tb-callout-{class}\" role=\"note\">\n\
                     <p class=\"tb-callout-title\">{}</p>\n",
                    crate::base::escape::html(words.get(word))
                );
                out.push((Event::Html(CowStr::from(html)), range.clone()));
            }
            Event::End(TagEnd::BlockQuote(Some(_))) => {
                out.push((Event::Html(CowStr::from("</aside>\n")), range.clone()));
            }
            Event::Start(Tag::BlockQuote(None)) => {
                if let Some(problem) = unknown_kind(&events[i + 1..]) {
                    problems.push(problem);
                }
                out.push((event.clone(), range.clone()));
            }
            _ => out.push((event.clone(), range.clone())),
        }
    }
    out
}

/// The CSS class and the word key of a kind.
fn name(kind: BlockQuoteKind) -> (&'static str, &'static str) {
    match kind {
        BlockQuoteKind::Note => ("note", "note"),
        BlockQuoteKind::Tip => ("tip", "tip"),
        BlockQuoteKind::Important => ("important", "important"),
        BlockQuoteKind::Warning => ("warning", "warning"),
        BlockQuoteKind::Caution => ("caution", "caution"),
    }
}

/// A plain block quote whose first paragraph starts with `[!WORD]`: a callout of a kind that
/// does not exist. (The text arrives in pieces: `[` may open a link.)
fn unknown_kind(after: &[Spanned<'_>]) -> Option<Problem> {
    let mut rest = after.iter();
    let (Event::Start(Tag::Paragraph), _) = rest.next()? else {
        return None;
    };
    let mut text = String::new();
    let mut span = None::<std::ops::Range<usize>>;
    for (event, range) in rest {
        let Event::Text(piece) = event else { break };
        text.push_str(piece);
        let start = span.as_ref().map_or(range.start, |s| s.start);
        span = Some(start..range.end);
        if text.contains(']') || text.len() > 40 {
            break;
        }
    }
    let word = text.strip_prefix("[!")?.split_once(']')?.0;
    if word.is_empty() || !word.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let span = span?;
    let at = span.start..span.start + word.len() + 3;
    let hint = suggest::hint(&word.to_ascii_uppercase(), KINDS, "callout kinds are")
        .unwrap_or_else(|| format!("callout kinds are {}", suggest::quoted_list(KINDS)));
    Some(
        Problem::new(at, format!("unknown callout kind `[!{word}]`")).with_hint(format!(
            "{hint} (to show the text itself, write `\\[!{word}]`)"
        )),
    )
}
