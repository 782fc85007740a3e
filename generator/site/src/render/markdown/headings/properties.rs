//! Properties of heading ids: a slug depends only on its title and holds only characters
//! safe in a URL fragment; every heading of a page gets an id no other heading has, and
//! headings added later never change the ids of those before them.

use super::{rewrite, slug};
use crate::render::markdown::{options, Spanned};
use proptest::prelude::*;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Parser, Tag, TagEnd};

/// Headings with these titles, as the markdown parser emits them (no `{#id}` given).
fn headings(titles: &[String]) -> Vec<Spanned<'static>> {
    let mut events = Vec::new();
    for (i, title) in titles.iter().enumerate() {
        let level = if i % 3 == 2 {
            HeadingLevel::H3
        } else {
            HeadingLevel::H2
        };
        let start = Tag::Heading {
            level,
            id: None,
            classes: Vec::new(),
            attrs: Vec::new(),
        };
        events.push((Event::Start(start), i..i + 1));
        events.push((Event::Text(CowStr::from(title.clone())), i..i + 1));
        events.push((Event::End(TagEnd::Heading(level)), i..i + 1));
    }
    events
}

/// The ids the heading pass gives, in page order.
fn ids(events: Vec<Spanned<'_>>) -> Vec<String> {
    let mut problems = Vec::new();
    let (events, _) = rewrite(events, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    events
        .into_iter()
        .filter_map(|(event, _)| match event {
            Event::Start(Tag::Heading { id, .. }) => id.map(|id| id.to_string()),
            _ => None,
        })
        .collect()
}

/// No character that means something in a URL, in HTML, or that a browser would trim.
fn fragment_safe(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && id.chars().all(|c| c == '-' || c.is_alphanumeric())
}

/// Titles that collide often: few words, punctuation, case and spacing variants.
fn title() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "(Intro|intro|INTRO|1|-|_| |  |,|!|\\?|#|%|/|Über|日本| - |-1|\u{130}|\t){0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn a_slug_is_stable_and_fragment_safe(title in title()) {
        let first = slug(&title);
        prop_assert_eq!(&first, &slug(&title));
        prop_assert!(fragment_safe(&first), "{title:?} -> {first:?}");
    }

    #[test]
    fn ids_are_unique_on_a_page_and_never_move(
        titles in prop::collection::vec(title(), 0..24),
        more in prop::collection::vec(title(), 0..8),
    ) {
        let page = ids(headings(&titles));
        prop_assert_eq!(page.len(), titles.len());
        let distinct: std::collections::BTreeSet<&String> = page.iter().collect();
        prop_assert_eq!(distinct.len(), page.len(), "{:?}", page);
        for (id, title) in page.iter().zip(&titles) {
            prop_assert!(fragment_safe(id), "{title:?} -> {id:?}");
            // The slug of the title, or that slug with a number when it was taken.
            let base = slug(title);
            let numbered = id
                .strip_prefix(base.as_str())
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|n| n.parse::<u32>().is_ok());
            prop_assert!(*id == base || numbered, "{title:?} -> {id:?}");
        }
        // The first heading with a given slug always gets the bare slug.
        if let Some(first) = titles.first() {
            prop_assert_eq!(&page[0], &slug(first));
        }
        // Headings added after these leave their ids as they were.
        let longer: Vec<String> = titles.iter().chain(&more).cloned().collect();
        let grown = ids(headings(&longer));
        prop_assert_eq!(&grown[..page.len()], &page[..]);
    }

    #[test]
    fn ids_of_parsed_markdown_are_unique(titles in prop::collection::vec(title(), 0..16)) {
        let markdown: String = titles
            .iter()
            .map(|t| format!("## {}\n\n", t.replace(['\n', '\r', '{', '}'], " ")))
            .collect();
        let events: Vec<Spanned<'_>> =
            Parser::new_ext(&markdown, options()).into_offset_iter().collect();
        let page = ids(events);
        let distinct: std::collections::BTreeSet<&String> = page.iter().collect();
        prop_assert_eq!(distinct.len(), page.len(), "{:?}", page);
        prop_assert!(page.iter().all(|id| fragment_safe(id)), "{page:?}");
    }
}
