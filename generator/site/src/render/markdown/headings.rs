//! Heading ids (stable slugs, or `{#id}` as written), a link to each heading, and the table
//! of contents (levels 2 and 3).

use super::Spanned;
use crate::base::escape;
use crate::base::problem::Problem;
use crate::load::body::{slug, unique};
use pulldown_cmark::{CowStr, Event, HeadingLevel, Tag, TagEnd};
use serde::Serialize;
use std::collections::BTreeSet;

/// One entry of a page's table of contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TocEntry {
    pub level: u8,
    pub id: String,
    /// Plain text of the heading.
    pub title: String,
    /// Level-3 headings under a level-2 one.
    pub children: Vec<TocEntry>,
}

/// Gives every heading an id, unique on the page, and collects the table of contents.
pub fn rewrite<'s>(
    events: Vec<Spanned<'s>>,
    problems: &mut Vec<Problem>,
) -> (Vec<Spanned<'s>>, Vec<TocEntry>) {
    let mut out = Vec::with_capacity(events.len());
    let mut taken = BTreeSet::new();
    let mut toc: Vec<TocEntry> = Vec::new();
    let mut iter = events.into_iter();
    while let Some((event, range)) = iter.next() {
        let Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) = event
        else {
            out.push((event, range));
            continue;
        };
        let inner: Vec<Spanned<'s>> = iter
            .by_ref()
            .take_while(|(e, _)| !matches!(e, Event::End(TagEnd::Heading(_))))
            .collect();
        let title = plain_text(&inner);
        let id = heading_id(id.as_deref(), &title, &taken, &range, problems);
        taken.insert(id.clone());
        add_to_toc(&mut toc, level, &id, &title);
        out.push((
            Event::Start(Tag::Heading {
                level,
                id: Some(CowStr::from(id.clone())),
                classes,
                attrs,
            }),
            range.clone(),
        ));
        out.extend(inner);
        let anchor = format!(
            "<a class=\"tb-anchor\" href=\"#{}\" aria-hidden=\"true\" tabindex=\"-1\">#</a>",
            escape::html(&id)
        );
        out.push((Event::InlineHtml(CowStr::from(anchor)), range.clone()));
        out.push((Event::End(TagEnd::Heading(level)), range));
    }
    (out, toc)
}

/// The id written as `{#id}`, or a slug of the title made unique on the page.
fn heading_id(
    given: Option<&str>,
    title: &str,
    taken: &BTreeSet<String>,
    range: &std::ops::Range<usize>,
    problems: &mut Vec<Problem>,
) -> String {
    match given {
        Some(given) if taken.contains(given) => {
            let message = format!("heading id `{given}` is used twice on this page");
            problems.push(
                Problem::new(range.clone(), message).with_hint("give each heading its own {#id}"),
            );
            given.to_string()
        }
        Some(given) => given.to_string(),
        None => unique(slug(title), taken),
    }
}

fn add_to_toc(toc: &mut Vec<TocEntry>, level: HeadingLevel, id: &str, title: &str) {
    let entry = |level| TocEntry {
        level,
        id: id.to_string(),
        title: title.to_string(),
        children: Vec::new(),
    };
    match level {
        HeadingLevel::H2 => toc.push(entry(2)),
        HeadingLevel::H3 => match toc.last_mut() {
            Some(parent) => parent.children.push(entry(3)),
            None => toc.push(entry(3)),
        },
        _ => {}
    }
}

fn plain_text(events: &[Spanned<'_>]) -> String {
    events
        .iter()
        .filter_map(|(e, _)| match e {
            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_stable_and_readable() {
        assert_eq!(slug("Self-attention, step 1"), "self-attention-step-1");
        assert_eq!(slug("  What's  GPT-2?  "), "whats-gpt-2");
        assert_eq!(slug("Über größe"), "über-größe");
        assert_eq!(slug("!!!"), "section");
    }

    #[test]
    fn duplicates_get_suffixes() {
        let mut taken = BTreeSet::new();
        taken.insert("intro".to_string());
        taken.insert("intro-1".to_string());
        assert_eq!(unique("intro".into(), &taken), "intro-2");
    }
}
