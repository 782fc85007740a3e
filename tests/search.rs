//! What `build` writes for readers beyond the pages: the offline search index (every
//! article findable by a word of its own) and code highlighted through CSS classes.

#[path = "support/cli.rs"]
mod cli;

use std::path::{Path, PathBuf};

fn build(root: &Path, out: &Path) {
    let output = cli::command(&out.join(".."))
        .arg("--root")
        .arg(root)
        .args(["build", "--out"])
        .arg(out)
        .output()
        .unwrap();
    cli::ok(&output, "build");
}

/// The example site at the repository root (another site with `TRACEBOOK_EXAMPLE_ROOT`).
fn example_root() -> PathBuf {
    std::env::var_os("TRACEBOOK_EXAMPLE_ROOT")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

/// The pages of search-index.js.
fn index_pages(public: &Path) -> Vec<serde_json::Value> {
    let script = std::fs::read_to_string(public.join("search-index.js")).unwrap();
    let json = script
        .strip_prefix("window.TRACEBOOK_SEARCH = ")
        .and_then(|s| s.trim_end().strip_suffix(';'))
        .expect("search-index.js assigns one global");
    let index: serde_json::Value = serde_json::from_str(json).unwrap();
    index["pages"].as_array().unwrap().clone()
}

/// A word of the article's own prose: the first of 7 letters or more on a plain text line
/// (not front matter, a fence, a heading, a table or a line with inline values or math).
fn a_word_of(markdown: &str) -> String {
    let body = markdown.splitn(3, "+++").nth(2).expect("front matter");
    let mut in_fence = false;
    for line in body.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let plain = !in_fence
            && !line.starts_with('#')
            && !line.starts_with('|')
            && !line.contains("{{")
            && !line.contains('$');
        if !plain {
            continue;
        }
        if let Some(word) = line
            .split(|c: char| !c.is_ascii_alphabetic())
            .find(|w| w.len() >= 7)
        {
            return word.to_lowercase();
        }
    }
    panic!("no plain word found in {markdown}");
}

#[test]
fn search_finds_a_word_of_every_article_of_the_example_site() {
    let root = example_root();
    let temp = tempfile::tempdir().unwrap();
    let public = temp.path().join("public");
    build(&root, &public);
    let pages = index_pages(&public);
    let mut articles = 0;
    for entry in std::fs::read_dir(root.join("content")).unwrap() {
        let path = entry.unwrap().path();
        let markdown = std::fs::read_to_string(&path).unwrap();
        let is_article = path.extension().is_some_and(|e| e == "md")
            && path.file_stem().is_some_and(|s| s != "index")
            && !markdown.contains("\ndraft = true");
        if !is_article {
            continue;
        }
        articles += 1;
        let url = format!("{}.html", path.file_stem().unwrap().to_string_lossy());
        let page = pages
            .iter()
            .find(|p| p["url"] == url.as_str())
            .unwrap_or_else(|| panic!("{url} is not in the search index"));
        let word = a_word_of(&markdown);
        let text = page["text"].as_str().unwrap().to_lowercase();
        assert!(
            text.contains(&word),
            "{url}: {word:?} is not in its indexed text"
        );
        assert!(!text.contains("<svg"), "{url}: markup in the indexed text");
    }
    assert!(articles >= 2, "the example site has articles");
    assert_eq!(
        pages.len(),
        articles,
        "one index entry per published article"
    );
    let page = std::fs::read_to_string(public.join("index.html")).unwrap();
    assert!(
        page.contains("<form class=\"tb-search\""),
        "the box is on every page"
    );
    assert!(page.contains(" hidden>"), "hidden until its script runs");
    assert!(public.join("tracebook-search.js").is_file());
}

#[test]
fn code_blocks_are_highlighted_with_classes_only() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("site");
    let output = cli::command(temp.path())
        .arg("init")
        .arg(&site)
        .output()
        .unwrap();
    assert!(output.status.success());
    let public = temp.path().join("public");
    build(&site, &public);
    let page = std::fs::read_to_string(public.join("tokens.html")).unwrap();
    assert!(
        page.contains(
            "<pre><code class=\"language-toml\"><span class=\"tb-hl-key\">[model]</span>"
        ),
        "{page}"
    );
    assert!(
        page.contains("<span class=\"tb-hl-comment\"># rewrites traces/robots.json"),
        "{page}"
    );
    let css = std::fs::read_to_string(public.join("tracebook.css")).unwrap();
    let mut classes: Vec<&str> = page
        .split("class=\"tb-hl-")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    classes.sort();
    classes.dedup();
    for class in classes {
        assert!(
            css.contains(&format!(".tb-hl-{class}")),
            "tracebook.css has no rule for tb-hl-{class}"
        );
    }
    let code = &page[page.find("<pre>").unwrap()..page.rfind("</pre>").unwrap()];
    assert!(!code.contains("style="), "no inline colours");
}
