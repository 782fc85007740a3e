//! The CommonMark spec's 652 examples (spec 0.31.2, the version pulldown-cmark follows;
//! tests/fixtures/commonmark) each built as an article: the build succeeds or fails with errors
//! that each have a line and column in the article, never a panic, and no word of the spec's
//! expected output is missing from the page (tracebook's extensions may add markup and turn
//! straight quotes curly, but must not drop text).

use std::collections::BTreeMap;
use std::path::Path;

struct Example {
    number: usize,
    line: usize,
    markdown: String,
    html: String,
}

fn examples() -> Vec<Example> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/commonmark/spec.txt");
    let spec = std::fs::read_to_string(&path).unwrap();
    let fence = "````````````````````````````````";
    let mut out = Vec::new();
    let mut lines = spec.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if !(line.starts_with(fence) && line.contains(" example")) {
            continue;
        }
        let (mut markdown, mut html, mut in_html) = (String::new(), String::new(), false);
        for (_, l) in lines.by_ref() {
            if l.starts_with(fence) {
                break;
            }
            if l == "." && !in_html {
                in_html = true;
                continue;
            }
            let target = if in_html { &mut html } else { &mut markdown };
            target.push_str(&l.replace('→', "\t"));
            target.push('\n');
        }
        out.push(Example {
            number: out.len() + 1,
            line: i + 1,
            markdown,
            html,
        });
    }
    out
}

/// The words of an HTML fragment's text: tags dropped, the common entities decoded, quotes
/// and dashes made plain, split on anything that is not a letter or digit.
fn words(html: &str) -> BTreeMap<String, usize> {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let mut counts = BTreeMap::new();
    for word in text
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        *counts.entry(word.to_string()).or_insert(0) += 1;
    }
    counts
}

/// The article's rendered body: between the page's `<main` and `</main>`.
fn body(page: &str) -> &str {
    let start = page.find("<main").unwrap_or(0);
    let end = page.rfind("</main>").unwrap_or(page.len());
    &page[start..end]
}

#[test]
fn every_spec_example_builds_or_fails_with_located_errors_and_loses_no_text() {
    let examples = examples();
    assert_eq!(examples.len(), 652);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("content")).unwrap();
    std::fs::write(
        root.join("tracebook.toml"),
        "title = \"Spec\"\ndescription = \"CommonMark examples\"\n\n[model]\nid = \"test/tiny-gpt2\"\n",
    )
    .unwrap();
    let (mut built, mut refused, mut problems) = (0, 0, Vec::new());
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for ex in &examples {
        let article = format!(
            "+++\ntitle = \"Example {}\"\ndescription = \"spec line {}\"\n+++\n\n{}",
            ex.number, ex.line, ex.markdown
        );
        std::fs::write(root.join("content/example.md"), article).unwrap();
        let out = root.join("public");
        let result = std::panic::catch_unwind(|| tracebook_site::build(root, Some(&out)));
        let Ok(result) = result else {
            problems.push(format!(
                "example {} (spec line {}): panicked",
                ex.number, ex.line
            ));
            continue;
        };
        match result {
            Ok(_) => {
                built += 1;
                let page = std::fs::read_to_string(out.join("example.html")).unwrap();
                let have = words(body(&page));
                let missing: Vec<String> = words(&ex.html)
                    .into_iter()
                    .filter(|(w, n)| have.get(w).copied().unwrap_or(0) < *n)
                    .map(|(w, _)| w)
                    .collect();
                if !missing.is_empty() {
                    problems.push(format!(
                        "example {} (spec line {}): the page lacks {missing:?}\n{}",
                        ex.number, ex.line, ex.markdown
                    ));
                }
            }
            Err(diagnostics) => {
                refused += 1;
                for d in diagnostics.iter() {
                    let reason: String = d.message.split(['`', ':']).next().unwrap_or("").into();
                    *reasons.entry(reason).or_insert(0) += 1;
                    if d.file != "content/example.md" || d.position.is_none() {
                        problems.push(format!(
                            "example {} (spec line {}): an error without a place in the article: {d}",
                            ex.number, ex.line
                        ));
                    }
                }
            }
        }
    }
    eprintln!("{built} examples built, {refused} refused with located errors: {reasons:#?}");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}
