//! Parts: a folder of content/ with a `_index.md` groups the articles under it, as in Zola.
//! The `_index.md` gives the part's title, description and weight (its place among the
//! articles and parts at the top of content/) and an introduction, rendered at the part's
//! `index.html`. Parts do not nest: only a folder directly under content/ is one.

use crate::base::diagnostic::Diagnostics;
use crate::load::content::{Page, PageKind, CONTENT_DIR, PART_INDEX};
use std::collections::BTreeMap;

/// Checks where each `_index.md` is and gives every page in a part its `part`; a part whose
/// `_index.md` is a draft leaves out its articles too. A misplaced `_index.md` is reported and
/// dropped.
pub fn assign(pages: &mut Vec<Page>, out: &mut Diagnostics) {
    pages.retain(|page| page.kind != PageKind::Part || placed_well(page, out));
    let parts: BTreeMap<String, bool> = pages
        .iter()
        .filter(|p| p.kind == PageKind::Part)
        .filter_map(|p| Some((top_folder(p)?.to_string(), p.meta.draft)))
        .collect();
    for page in pages.iter_mut() {
        let Some(folder) = top_folder(page) else {
            continue;
        };
        if let Some(&draft) = parts.get(folder) {
            page.part = Some(folder.to_string());
            page.meta.draft |= draft;
        }
    }
    for page in pages.iter() {
        let clash = page.kind == PageKind::Article
            && page.part.is_some()
            && page.output == format!("{}/index.html", page.part.as_deref().unwrap_or_default());
        if clash {
            let index = page
                .source
                .name
                .replace("/index.md", &format!("/{PART_INDEX}"));
            out.push(
                page.source
                    .error(0..0, format!("this article and {index} would both be written to {}", page.output))
                    .with_hint(format!(
                        "rename it: a part's introduction is its {PART_INDEX}, which is published as the part's index.html"
                    )),
            );
        }
    }
}

/// Whether a part's `_index.md` sits directly in a folder under content/ (else reported).
fn placed_well(page: &Page, out: &mut Diagnostics) -> bool {
    let depth = page.source.name.matches('/').count();
    let problem = match depth {
        0 | 1 => (
            format!("{PART_INDEX} introduces a part, and content/ itself is not one"),
            "the home page's introduction is content/index.md; a part's _index.md goes in a folder under content/, e.g. content/01-basics/_index.md".to_string(),
        ),
        2 => return true,
        _ => (
            "parts do not nest: only a folder directly under content/ is a part".to_string(),
            format!(
                "move this folder up to content/, or remove its {PART_INDEX} so that its articles belong to the part {} is in",
                top_folder(page).unwrap_or_default()
            ),
        ),
    };
    out.push(page.source.error(0..0, problem.0).with_hint(problem.1));
    false
}

/// The folder directly under content/ that holds `page`, if it is not at the top.
fn top_folder(page: &Page) -> Option<&str> {
    let relative = page
        .source
        .name
        .strip_prefix(CONTENT_DIR)?
        .strip_prefix('/')?;
    let (folder, rest) = relative.split_once('/')?;
    (!rest.is_empty()).then_some(folder)
}

/// Series order: the parts and the articles outside them by (weight, title, path); within a
/// part, its `_index.md` first, then its articles by (weight, title, path).
pub fn sort(pages: &mut [Page]) {
    let part_keys: BTreeMap<String, (i64, String, String)> = pages
        .iter()
        .filter(|p| p.kind == PageKind::Part)
        .filter_map(|p| Some((p.part.clone()?, own_key(p))))
        .collect();
    pages.sort_by_cached_key(|page| {
        let own = own_key(page);
        match page.part.as_ref().and_then(|f| part_keys.get(f)) {
            Some(part) => (part.clone(), Some((page.kind != PageKind::Part, own))),
            None => (own, None),
        }
    });
}

fn own_key(page: &Page) -> (i64, String, String) {
    (
        page.meta.weight,
        page.meta.title.clone(),
        page.source.name.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::content;

    fn load(files: &[(&str, &str)]) -> (Vec<Page>, String) {
        let dir = content::test_site(files);
        let mut out = Diagnostics::new();
        let mut content = content::load(dir.path(), &mut out);
        assign(&mut content.pages, &mut out);
        sort(&mut content.pages);
        (content.pages, out.to_string())
    }

    fn page(title: &str, weight: i64) -> String {
        format!("+++\ntitle = \"{title}\"\nweight = {weight}\n+++\n")
    }

    #[test]
    fn parts_order_their_articles_among_the_top_level_ones() {
        let (pages, errors) = load(&[
            ("content/index.md", &page("Home", 0)),
            ("content/intro.md", &page("Intro", 1)),
            ("content/outro.md", &page("Outro", 9)),
            ("content/02-inside/_index.md", &page("Inside a block", 3)),
            ("content/02-inside/mlp.md", &page("MLP", 2)),
            ("content/02-inside/attention.md", &page("Attention", 1)),
            ("content/01-basics/_index.md", &page("Basics", 2)),
            ("content/01-basics/tokens.md", &page("Tokens", 0)),
            ("content/loose/extra.md", &page("Extra", 5)),
        ]);
        assert_eq!(errors, "");
        let order: Vec<(&str, Option<&str>)> = pages
            .iter()
            .filter(|p| !p.is_index())
            .map(|p| (p.meta.title.as_str(), p.part.as_deref()))
            .collect();
        assert_eq!(
            order,
            [
                ("Intro", None),
                ("Basics", Some("01-basics")),
                ("Tokens", Some("01-basics")),
                ("Inside a block", Some("02-inside")),
                ("Attention", Some("02-inside")),
                ("MLP", Some("02-inside")),
                // A folder without _index.md is no part: its articles stand on their own.
                ("Extra", None),
                ("Outro", None),
            ]
        );
        let basics = pages.iter().find(|p| p.meta.title == "Basics").unwrap();
        assert_eq!(basics.output, "01-basics/index.html");
        assert_eq!(basics.kind, PageKind::Part);
    }

    #[test]
    fn pages_sort_by_weight_then_title() {
        let (pages, _) = load(&[
            ("content/x.md", &page("Zeta", 1)),
            ("content/y.md", &page("Alpha", 1)),
            ("content/z.md", &page("First", 0)),
        ]);
        let titles: Vec<_> = pages.iter().map(|p| p.meta.title.as_str()).collect();
        assert_eq!(titles, ["First", "Alpha", "Zeta"]);
    }

    #[test]
    fn a_draft_part_leaves_out_its_articles() {
        let (pages, _) = load(&[
            (
                "content/p/_index.md",
                "+++\ntitle = \"P\"\ndraft = true\n+++\n",
            ),
            ("content/p/a.md", &page("A", 0)),
        ]);
        assert!(pages.iter().all(|p| p.meta.draft));
    }

    #[test]
    fn misplaced_part_indexes_and_clashing_index_pages_are_located() {
        let (pages, errors) = load(&[
            ("content/_index.md", &page("Top", 0)),
            ("content/a/_index.md", &page("A", 0)),
            ("content/a/index.md", &page("A again", 0)),
            ("content/a/b/_index.md", &page("B", 0)),
        ]);
        assert!(
            errors.contains("content/_index.md:1:1: error: _index.md introduces a part, and content/ itself is not one"),
            "{errors}"
        );
        assert!(
            errors.contains("the home page's introduction is content/index.md"),
            "{errors}"
        );
        assert!(
            errors.contains("content/a/b/_index.md:1:1: error: parts do not nest"),
            "{errors}"
        );
        assert!(
            errors.contains("content/a/index.md:1:1: error: this article and content/a/_index.md would both be written to a/index.html"),
            "{errors}"
        );
        assert_eq!(pages.iter().filter(|p| p.kind == PageKind::Part).count(), 1);
    }
}
