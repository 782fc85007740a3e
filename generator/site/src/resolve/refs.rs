//! Cross-references: every figure block with an `id`, every heading with an explicit id
//! (`## Scores {#scores}`) and every display equation with one (`$$ ... $$ {#eq-softmax}`) of
//! every page, collected before the pages render, so that
//! `{{ ref ID }}` on any page can say "Figure 3" (same page) or "Figure 2 of *Attention*"
//! (another page) and link there. Figure numbers follow the page's order, as the captions do.

use crate::base::diagnostic::Diagnostic;
use crate::load::content::Page;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use std::collections::BTreeMap;

/// What a reference points at.
#[derive(Debug, Clone, PartialEq)]
pub struct RefTarget {
    /// The page's output path (`attention.html`).
    pub page: String,
    pub page_title: String,
    /// The element id on that page.
    pub anchor: String,
    pub kind: RefKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RefKind {
    /// The n-th figure of its page (1-based).
    Figure(usize),
    /// A heading, with its text.
    Section(String),
    /// The n-th numbered display equation of its page (1-based): `$$ ... $$ {#eq-id}`.
    Equation(usize),
}

/// Every reference target of the site, by id.
#[derive(Debug, Default)]
pub struct RefIndex {
    targets: BTreeMap<String, RefTarget>,
}

impl RefIndex {
    pub fn get(&self, id: &str) -> Option<&RefTarget> {
        self.targets.get(id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.targets.keys().map(String::as_str)
    }

    /// Collects the targets of `pages` (drafts included: a reference to a draft is reported by
    /// the link check of its page); a second target with the same id is an error at its place.
    pub fn collect<'p>(pages: impl IntoIterator<Item = &'p Page>) -> (RefIndex, Vec<Diagnostic>) {
        let mut index = RefIndex::default();
        let mut problems = Vec::new();
        // id → (where, page, whether a heading): two headings of one page with the same id are
        // the heading pass's to report.
        let mut first: BTreeMap<String, (String, String, bool)> = BTreeMap::new();
        for page in pages {
            for (id, kind, span) in scan(&page.source.text[page.body.clone()]) {
                let at = page.body.start + span.start..page.body.start + span.end;
                let place = page.source.location(at.clone()).to_string();
                let heading = matches!(kind, RefKind::Section(_));
                if let Some((before, on, was_heading)) = first.get(&id) {
                    if heading && *was_heading && *on == page.output {
                        continue;
                    }
                    problems.push(
                        page.source
                            .error(at, format!("the id `{id}` is used twice: first at {before}"))
                            .with_hint("give every figure and heading that others refer to an id of its own"),
                    );
                    continue;
                }
                first.insert(id.clone(), (place, page.output.clone(), heading));
                index.targets.insert(
                    id.clone(),
                    RefTarget {
                        page: page.output.clone(),
                        page_title: page.meta.title.clone(),
                        anchor: id,
                        kind,
                    },
                );
            }
        }
        (index, problems)
    }
}

/// The targets of one body, in order: (id, kind, body range of the id's block or heading).
fn scan(body: &str) -> Vec<(String, RefKind, std::ops::Range<usize>)> {
    let mut found = Vec::new();
    let (mut figures, mut equations) = (0, 0);
    let mut events = Parser::new_ext(body, crate::load::body::options())
        .into_offset_iter()
        .peekable();
    while let Some((event, range)) = events.next() {
        match event {
            Event::DisplayMath(_) => {
                let label = match events.peek() {
                    Some((Event::Text(text), _)) => crate::load::body::equation_label(text),
                    _ => None,
                };
                if let Some((id, _)) = label {
                    equations += 1;
                    found.push((id, RefKind::Equation(equations), range));
                }
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                if info.split_whitespace().next() == Some("figure") =>
            {
                figures += 1;
                let mut text = String::new();
                for (event, _) in events.by_ref() {
                    match event {
                        Event::Text(t) => text.push_str(&t),
                        Event::End(TagEnd::CodeBlock) => break,
                        _ => {}
                    }
                }
                if let Some(id) = figure_id(&text) {
                    found.push((id, RefKind::Figure(figures), range));
                }
            }
            Event::Start(Tag::Heading { id: Some(id), .. }) => {
                let mut title = String::new();
                for (event, _) in events.by_ref() {
                    match event {
                        Event::Text(t) | Event::Code(t) => title.push_str(&t),
                        Event::End(TagEnd::Heading(_)) => break,
                        _ => {}
                    }
                }
                found.push((
                    id.to_string(),
                    RefKind::Section(title.trim().to_string()),
                    range,
                ));
            }
            _ => {}
        }
    }
    found
}

/// The `id` of a figure block's TOML body, if it has a string one (other problems with the
/// body are reported when the figure renders).
pub fn figure_id(body: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(body).ok()?;
    table.get("id")?.as_str().map(str::to_string)
}

/// Whether `id` may name a figure: letters, digits, `-` and `_`, starting with a letter.
pub fn valid_id(id: &str) -> bool {
    id.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_figures_with_ids_and_headings_with_explicit_ids_in_order() {
        let body = "## Intro\n\n```figure tokens\nprompt = \"a\"\n```\n\n## Scores {#scores}\n\n\
                    ```figure attention\nid = \"fig-map\"\nprompt = \"a\"\n```\n";
        let found = scan(body);
        let ids: Vec<(&str, &RefKind)> = found.iter().map(|(i, k, _)| (i.as_str(), k)).collect();
        assert_eq!(
            ids,
            [
                ("scores", &RefKind::Section("Scores".into())),
                ("fig-map", &RefKind::Figure(2)),
            ]
        );
        assert!(valid_id("fig-heads_2") && !valid_id("2fig") && !valid_id("a b") && !valid_id(""));
    }
}
