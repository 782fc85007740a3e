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

/// Every word a figure of the example site draws (legends, axis titles, notes, token labels:
/// any `<text>` with a letter in it) is in that page's search index, under its figures.
#[test]
fn search_finds_every_word_a_figure_draws() {
    let root = example_root();
    let temp = tempfile::tempdir().unwrap();
    let public = temp.path().join("public");
    build(&root, &public);
    let (mut checked, mut missing) = (0, Vec::new());
    for page in index_pages(&public) {
        let url = page["url"].as_str().unwrap();
        let indexed: String = page["figures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f[1].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
            .join(" ");
        let html = std::fs::read_to_string(public.join(url)).unwrap();
        for figure in html.split("<figure").skip(1) {
            let figure = figure.split("</figure>").next().unwrap();
            for text in figure.split("<text").skip(1) {
                let inner = text.split_once('>').map_or("", |(_, r)| r);
                let inner = inner.split("</text>").next().unwrap();
                let mut plain = String::new();
                let mut in_tag = false;
                for c in inner.chars() {
                    match c {
                        '<' => {
                            in_tag = true;
                            plain.push(' ');
                        }
                        '>' => in_tag = false,
                        c if !in_tag => plain.push(c),
                        _ => {}
                    }
                }
                let plain = plain
                    .replace("&amp;", "&")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'");
                for word in plain.split_whitespace() {
                    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
                    if word.chars().any(char::is_alphabetic) {
                        checked += 1;
                        if !indexed.contains(word) {
                            missing.push(format!("{url}: {word:?}"));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 200, "only {checked} drawn words found");
    assert!(
        missing.is_empty(),
        "{} of {checked} not indexed: {missing:?}",
        missing.len()
    );
}
