//! Cross-references: every figure block with an `id`, every heading (by its explicit id,
//! `## Scores {#scores}`, or its automatic one, the slug its page gives it) and every display
//! equation with an id (`$$ ... $$ {#eq-softmax}`) of every page, collected before the pages
//! render, so that `{{ ref ID }}` on any page can say "Figure 3" (same page) or "Figure 2 of
//! *Attention*" (another page) and link there. Figure numbers follow the page's order, as the
//! captions do. Explicit ids are the site's, one target each; an automatic id is its page's,
//! so `{{ ref summary }}` finds the heading on the same page, or on the one page that has it,
//! and `{{ ref attention#summary }}` names the page.

use crate::base::diagnostic::Diagnostic;
use crate::load::body::{slug, unique};
use crate::load::content::Page;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, BTreeSet};

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

/// Every reference target of the site: explicit ids by id, headings' automatic ids by page.
#[derive(Debug, Default)]
pub struct RefIndex {
    targets: BTreeMap<String, RefTarget>,
    /// Headings without an explicit id, under the id their page gives them.
    automatic: Vec<RefTarget>,
}

/// Why `{{ ref ID }}` found no one target.
#[derive(Debug, PartialEq)]
pub enum RefMiss {
    /// No target has the id.
    Unknown,
    /// Headings of several pages have this automatic id: the `page#id` forms that name each.
    Ambiguous(Vec<String>),
}

impl RefIndex {
    /// The target `id` names, seen from the page whose output is `from`: an explicit id, a
    /// heading's automatic id (on `from` first, else on the one page that has it), or
    /// `page#id` (the page by its output name, with or without `.html`).
    pub fn find(&self, id: &str, from: &str) -> Result<&RefTarget, RefMiss> {
        if let Some((page, anchor)) = id.split_once('#') {
            let page = page.strip_suffix(".html").unwrap_or(page);
            return self
                .all()
                .find(|t| t.page.strip_suffix(".html") == Some(page) && t.anchor == anchor)
                .ok_or(RefMiss::Unknown);
        }
        if let Some(target) = self.targets.get(id) {
            return Ok(target);
        }
        let headings: Vec<&RefTarget> = self.automatic.iter().filter(|t| t.anchor == id).collect();
        if let Some(here) = headings.iter().find(|t| t.page == from) {
            return Ok(here);
        }
        match headings[..] {
            [] => Err(RefMiss::Unknown),
            [one] => Ok(one),
            _ => Err(RefMiss::Ambiguous(
                headings.iter().map(|t| qualified(t)).collect(),
            )),
        }
    }

    /// Every id `{{ ref }}` may name, for did-you-mean: explicit ids, automatic ones, and
    /// each automatic one with its page.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.targets.keys().cloned().collect();
        ids.extend(self.automatic.iter().map(|t| t.anchor.clone()));
        ids.extend(self.automatic.iter().map(qualified));
        ids.sort();
        ids.dedup();
        ids
    }

    fn all(&self) -> impl Iterator<Item = &RefTarget> {
        self.targets.values().chain(&self.automatic)
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
            for (id, kind, span, explicit) in scan(&page.source.text[page.body.clone()]) {
                if !explicit {
                    index.automatic.push(RefTarget {
                        page: page.output.clone(),
                        page_title: page.meta.title.clone(),
                        anchor: id,
                        kind,
                    });
                    continue;
                }
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

/// `page#id`, the form that names a heading's automatic id on its page.
fn qualified(target: &RefTarget) -> String {
    let page = target.page.strip_suffix(".html").unwrap_or(&target.page);
    format!("{page}#{}", target.anchor)
}

/// A target of a body: its id, kind, body range, and whether the id is written (a heading's
/// automatic id is not).
type Found = (String, RefKind, std::ops::Range<usize>, bool);

/// The targets of one body, in order. Headings get their ids as the page's renderer gives them:
/// as written, or a slug of the title made unique on the page.
fn scan(body: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut taken = BTreeSet::new();
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
                    found.push((id, RefKind::Equation(equations), range, true));
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
                    found.push((id, RefKind::Figure(figures), range, true));
                }
            }
            Event::Start(Tag::Heading { id, .. }) => {
                let mut title = String::new();
                for (event, _) in events.by_ref() {
                    match event {
                        Event::Text(t) | Event::Code(t) => title.push_str(&t),
                        Event::End(TagEnd::Heading(_)) => break,
                        _ => {}
                    }
                }
                let explicit = id.is_some();
                let id = match id {
                    Some(id) => id.to_string(),
                    None => unique(slug(&title), &taken),
                };
                taken.insert(id.clone());
                let kind = RefKind::Section(title.trim().to_string());
                found.push((id, kind, range, explicit));
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
        let ids: Vec<(&str, &RefKind, bool)> = found
            .iter()
            .map(|(i, k, _, explicit)| (i.as_str(), k, *explicit))
            .collect();
        assert_eq!(
            ids,
            [
                ("intro", &RefKind::Section("Intro".into()), false),
                ("scores", &RefKind::Section("Scores".into()), true),
                ("fig-map", &RefKind::Figure(2), true),
            ]
        );
        assert!(valid_id("fig-heads_2") && !valid_id("2fig") && !valid_id("a b") && !valid_id(""));
    }

    fn heading(page: &str, id: &str) -> RefTarget {
        RefTarget {
            page: format!("{page}.html"),
            page_title: page.to_string(),
            anchor: id.to_string(),
            kind: RefKind::Section(id.to_string()),
        }
    }

    #[test]
    fn automatic_heading_ids_are_found_here_first_then_on_their_one_page_or_by_page() {
        let mut index = RefIndex::default();
        index
            .targets
            .insert("scores".into(), heading("attention", "scores"));
        index.automatic = vec![
            heading("attention", "summary"),
            heading("heads", "summary"),
            heading("heads", "what-a-head-reads"),
        ];
        let page = |r: Result<&RefTarget, RefMiss>| r.map(|t| t.page.clone());
        assert_eq!(
            page(index.find("summary", "heads.html")),
            Ok("heads.html".into())
        );
        assert_eq!(
            page(index.find("what-a-head-reads", "attention.html")),
            Ok("heads.html".into())
        );
        assert_eq!(
            index.find("summary", "tokens.html").unwrap_err(),
            RefMiss::Ambiguous(vec!["attention#summary".into(), "heads#summary".into()])
        );
        assert_eq!(
            page(index.find("attention#summary", "tokens.html")),
            Ok("attention.html".into())
        );
        assert_eq!(
            page(index.find("attention.html#scores", "x.html")),
            Ok("attention.html".into())
        );
        assert_eq!(
            index.find("heads#scores", "x.html").unwrap_err(),
            RefMiss::Unknown
        );
        assert!(index.ids().contains(&"heads#what-a-head-reads".to_string()));
    }

    #[test]
    fn automatic_ids_are_the_slugs_the_page_gives_unique_after_written_ones() {
        let body = "## Summary {#summary}\n\n## Summary\n\n## `x` and *y*\n";
        let ids: Vec<String> = scan(body).into_iter().map(|(id, ..)| id).collect();
        assert_eq!(ids, ["summary", "summary-1", "x-and-y"]);
    }
}
