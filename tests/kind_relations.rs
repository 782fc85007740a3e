//! Every figure kind's declared relations hold, on the example site and every valid fixture
//! site: each ```` ```figure ```` block of every page is drawn as the build draws it
//! (`tracebook_site::figure`), and each relation its kind declares among the numbers it prints
//! (`tracebook_figures::relations`) is re-derived from the printed text at the printed
//! precision. A number a relation names must be one the figure prints; a kind that prints
//! numbers but declares no relation fails, so a kind added later cannot skip the check.

#[path = "../generator/site/tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracebook_figures::relations::{numbers_in, same, Relation};

/// Per kind: figures drawn, numbers printed, relations checked; every printing of each named
/// quantity (where, and the text); and what failed.
#[derive(Default)]
struct Tally {
    kinds: BTreeMap<String, (usize, usize, usize)>,
    quantities: BTreeMap<String, Vec<(String, String)>>,
    failures: Vec<String>,
}

/// The ```` ```figure ```` blocks of a markdown file: (line, the block's text).
fn blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let lines: Vec<&str> = markdown.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let fence: String = line.chars().take_while(|c| *c == '`').collect();
        if fence.len() >= 3 && line[fence.len()..].trim_start().starts_with("figure ") {
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].trim_start().starts_with(&fence))
                .unwrap_or(lines.len());
            found.push((
                i + 1,
                lines[i..end.min(lines.len())].join("\n") + "\n" + &fence,
            ));
            i = end + 1;
        } else {
            i += 1;
        }
    }
    found
}

fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = walkdir::WalkDir::new(root.join("content"))
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

fn check_site(root: &Path, tally: &mut Tally) {
    for page in pages(root) {
        let markdown = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root).unwrap().display().to_string();
        for (line, block) in blocks(&markdown) {
            let drawn = match tracebook_site::figure(root, &name, &block, 1) {
                Ok(drawn) => drawn,
                Err(e) if e.to_string().contains("contradict") => {
                    tally.failures.push(format!("{name}:{line}: {e}"));
                    continue;
                }
                // An example inside a code block, or a prompt without a trace.
                Err(_) => continue,
            };
            let kind = block.lines().next().unwrap_or_default();
            let kind = kind
                .trim_start_matches('`')
                .trim()
                .trim_start_matches("figure ");
            let kind = kind.trim().to_string();
            let text = format!("{}{}", drawn.svg, drawn.html);
            let entry = tally.kinds.entry(kind.clone()).or_default();
            entry.0 += 1;
            entry.1 += numbers_in(&drawn.svg);
            entry.2 += drawn.relations.len();
            for relation in &drawn.relations {
                let place = format!("{name}:{line} ({kind})");
                if let Some(missing) = relation.texts().into_iter().find(|t| !text.contains(t)) {
                    tally.failures.push(format!(
                        "{place}: a {} relation names {missing:?}, which the figure does not print",
                        relation.name()
                    ));
                } else if let Err(broken) = relation.check() {
                    tally.failures.push(format!("{place}: {broken}"));
                }
                if let Relation::Quantity { name, value } = relation {
                    let printings = tally.quantities.entry(name.clone()).or_default();
                    printings.push((place.clone(), value.clone()));
                }
            }
        }
    }
}

/// Every printing of one quantity, anywhere on the site, agrees with its first.
fn compare_quantities(tally: &mut Tally) -> usize {
    let mut compared = 0;
    for (name, printings) in &tally.quantities {
        let (first_place, first) = &printings[0];
        for (place, value) in &printings[1..] {
            compared += 1;
            if let Err(broken) = same(first, value) {
                tally
                    .failures
                    .push(format!("{name}: {broken} ({first_place}; {place})"));
            }
        }
    }
    compared
}

fn report(tally: &mut Tally, what: &str) {
    let compared = compare_quantities(tally);
    eprintln!(
        "{} quantities printed more than once on {what}, {compared} printings compared",
        tally.quantities.values().filter(|p| p.len() > 1).count()
    );
    let total: usize = tally.kinds.values().map(|k| k.2).sum();
    eprintln!(
        "{total} declared relations checked on {what}, by kind (figures, numbers, relations):"
    );
    for (kind, (figures, numbers, relations)) in &tally.kinds {
        eprintln!("  {kind:<18} {figures:>4} {numbers:>6} {relations:>6}");
    }
    // A kind of the site's own (figures/NAME.svg) is its author's to keep consistent: its
    // template declares no relations, and tracebook cannot know what its numbers mean.
    let built_in = tracebook_figures::kinds();
    let silent: Vec<&String> = (tally.kinds.iter())
        .filter(|(kind, _)| built_in.contains(&kind.as_str()))
        .filter(|(_, (_, numbers, relations))| *numbers > 0 && *relations == 0)
        .map(|(kind, _)| kind)
        .collect();
    let mut failures = tally.failures.clone();
    if !silent.is_empty() {
        failures.push(format!(
            "these kinds print numbers but declare no relation among them: {silent:?} \
             (declare them with Figure::with_relations; see generator/figures/src/relations.rs)"
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_kind_declares_its_printed_relations_and_they_hold_on_the_example_site() {
    let mut tally = Tally::default();
    check_site(Path::new(env!("CARGO_MANIFEST_DIR")), &mut tally);
    assert!(
        tally.kinds.len() >= 30,
        "the example site draws only {} kinds",
        tally.kinds.len()
    );
    assert!(
        tally.quantities.values().any(|p| p.len() > 1),
        "no quantity is printed twice on the example site: {:?}",
        tally.quantities.keys().collect::<Vec<_>>()
    );
    report(&mut tally, "the example site");
}

#[test]
fn every_kind_declares_its_printed_relations_and_they_hold_on_the_fixture_sites() {
    let mut tally = Tally::default();
    for fixture in support::fixtures("valid") {
        let site = support::TempSite::new(&fixture);
        check_site(site.root(), &mut tally);
    }
    assert!(!tally.kinds.is_empty());
    report(&mut tally, "the valid fixture sites");
}

#[test]
fn blocks_are_found_with_their_lines() {
    let md =
        "# t\n\n```figure attention\nprompt = \"a\"\n```\n\ntext\n````figure mlp\nx = 1\n````\n";
    let found = blocks(md);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].0, 3);
    assert!(found[0].1.starts_with("```figure attention\nprompt"));
    assert_eq!(found[1].0, 8);
}
