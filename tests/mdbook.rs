//! `tracebook mdbook`, the mdBook preprocessor, fed what mdBook 0.5.4 itself sends
//! (tests/books/mdbook-0.5.4-input.json, recorded from `mdbook build` of tests/books/basic):
//! the chapters come back with their figures as fragments, values, claims and citations done,
//! every other byte as it was; a broken chapter is an error at its file, line and column.
//! tests/mdbook.sh builds the same book with the real mdBook, and tests/browser/mdbook.test.mjs
//! reads it in Chromium.

#[path = "support/cli.rs"]
mod cli;

use cli::text;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The test book copied into `dir`, with the example site's traces of its two prompts.
fn book(dir: &Path) {
    let from = repo().join("tests/books/basic");
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let to = dir.join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    for name in ["animal", "cats"] {
        let file = format!("traces/{name}.json");
        std::fs::copy(repo().join(&file), dir.join(&file)).unwrap();
    }
}

/// mdBook's input for the book at `root`, its chapters' text as the files now say.
fn input(root: &Path) -> Value {
    let recorded = std::fs::read_to_string(repo().join("tests/books/mdbook-0.5.4-input.json"));
    let mut input: Value = serde_json::from_str(&recorded.unwrap()).unwrap();
    input[0]["root"] = Value::String(root.display().to_string());
    each_chapter(&mut input[1], &mut |chapter| {
        let path = root
            .join("src")
            .join(chapter["source_path"].as_str().unwrap());
        chapter["content"] = Value::String(std::fs::read_to_string(path).unwrap());
    });
    input
}

fn each_chapter(value: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| each_chapter(v, f)),
        Value::Object(map) => {
            if let Some(chapter) = map.get_mut("Chapter") {
                f(chapter);
                each_chapter(&mut chapter["sub_items"], f);
            }
            if let Some(items) = map.get_mut("items") {
                each_chapter(items, f);
            }
        }
        _ => {}
    }
}

fn preprocess(root: &Path, input: &Value) -> Output {
    let mut child = cli::command(root)
        .arg("mdbook")
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let json = input.to_string();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(json.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Each chapter's content by source path.
fn contents(book: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut book = book.clone();
    each_chapter(&mut book, &mut |chapter| {
        out.push((
            chapter["source_path"].as_str().unwrap().to_string(),
            chapter["content"].as_str().unwrap().to_string(),
        ));
    });
    out
}

#[test]
fn chapters_come_back_with_figures_values_claims_and_citations_done() {
    let temp = tempfile::tempdir().unwrap();
    book(temp.path());
    let input = input(temp.path());
    let output = preprocess(temp.path(), &input);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let book: Value = serde_json::from_slice(&output.stdout).unwrap();
    let chapters = contents(&book);
    let names: Vec<&str> = chapters.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["intro.md", "attention.md", "next-token.md"]);
    let chapter = |name: &str| &chapters.iter().find(|(n, _)| n == name).unwrap().1;

    // The introduction: its value, and its code left alone.
    let intro = chapter("intro.md");
    assert!(
        intro.contains("<span class=\"tb-value tb-number\" data-tb-of=\"count animal\">13</span>"),
        "{intro}"
    );
    assert!(intro.contains("`{{ value animal blocks.0.ln_1.out[0,0] }}`"));
    assert!(intro.contains("println!(\"{{ not a directive }}\")"));
    assert!(!intro.contains("<script"), "no figure, no script: {intro}");

    // Attention: two fragments, one script after them, the rest of the markdown as written.
    let attention = chapter("attention.md");
    assert_eq!(attention.matches("<tracebook-figure>").count(), 2);
    assert_eq!(
        attention
            .matches("<script data-tb-fragment=\"all\">")
            .count(),
        1
    );
    assert!(attention.starts_with("# Attention\n\nAttention compares every token"));
    assert!(attention.contains("\n## Every head\n"));
    assert!(
        attention.contains("(<a href=\"#ref-vaswani2017\""),
        "{attention}"
    );
    assert!(attention.contains("\n## References\n"));
    assert!(attention.contains("Attention Is All You Need"));
    assert!(attention.contains("data-tb-of=\"token animal 8\"> it</span>"));
    assert!(attention.contains(">0.2405</span>"), "{attention}");
    assert!(attention.contains("<abbr class=\"tb-claim\""));
    // A figure is one HTML block for the markdown that follows: no blank line inside it.
    for figure in attention.split("<tracebook-figure>").skip(1) {
        let figure = &figure[..figure.find("</tracebook-figure>").unwrap()];
        assert!(!figure.lines().skip(1).any(|l| l.trim().is_empty()));
        assert!(figure.contains("<template shadowrootmode=\"open\"><style>"));
        assert!(
            !figure.contains("rem;"),
            "lengths in px, not the host's rem"
        );
        assert!(
            !figure.contains("class=\"tb-figure-download\""),
            "no link to a file"
        );
    }
    let next = chapter("next-token.md");
    assert!(
        next.contains("data-tb-of=\"top cats 1\"> the</span>"),
        "{next}"
    );

    // Nothing but the chapters' content changed.
    let mut expected = input[1].clone();
    let mut got = book.clone();
    for value in [&mut expected, &mut got] {
        each_chapter(value, &mut |c| c["content"] = Value::Null);
    }
    assert_eq!(got, expected);
}

#[test]
fn a_broken_chapter_stops_the_book_at_its_line_and_column() {
    let temp = tempfile::tempdir().unwrap();
    book(temp.path());
    let chapter = temp.path().join("src/next-token.md");
    let source = std::fs::read_to_string(&chapter).unwrap();
    std::fs::write(&chapter, source.replace("top cats 1", "top cats 0")).unwrap();
    let attention = temp.path().join("src/attention.md");
    let source = std::fs::read_to_string(&attention).unwrap();
    std::fs::write(
        &attention,
        source.replace("layer = 3\nhead = 2", "layer = 3\nhead = 9"),
    )
    .unwrap();
    let output = preprocess(temp.path(), &input(temp.path()));
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "no half-done book on stdout");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("src/next-token.md:7:44"), "{stderr}");
    assert!(stderr.contains("ranks start at 1"), "{stderr}");
    assert!(stderr.contains("src/attention.md:8:"), "{stderr}");
    assert!(stderr.contains("head"), "{stderr}");
}

#[test]
fn a_missing_trace_and_a_false_claim_are_errors_naming_the_fix() {
    let temp = tempfile::tempdir().unwrap();
    book(temp.path());
    std::fs::remove_file(temp.path().join("traces/cats.json")).unwrap();
    let attention = temp.path().join("src/attention.md");
    let source = std::fs::read_to_string(&attention).unwrap();
    std::fs::write(&attention, source.replace("== 1 }}", "== 5 }}")).unwrap();
    let output = preprocess(temp.path(), &input(temp.path()));
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("tracebook trace --only cats"), "{stderr}");
    assert!(stderr.contains("src/attention.md:12:64"), "{stderr}");
}

#[test]
fn it_takes_the_html_renderer_and_refuses_others() {
    let temp = tempfile::tempdir().unwrap();
    let ask = |renderer: &str| {
        cli::command(temp.path())
            .args(["mdbook", "supports", renderer])
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(ask("html"), Some(0));
    assert_eq!(ask("epub"), Some(1));
    let output = cli::command(temp.path())
        .arg("mdbook")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("[preprocessor.tracebook]"),
        "{}",
        text(&output.stderr)
    );
}

/// [own-kinds]: a figure kind of the book's own (`figures/NAME.svg` beside book.toml) is drawn
/// in a chapter like a built-in one.
#[test]
fn a_kind_of_the_book_s_own_is_drawn_in_its_chapter() {
    let temp = tempfile::tempdir().unwrap();
    book(temp.path());
    std::fs::create_dir_all(temp.path().join("figures")).unwrap();
    for file in ["figures/neuron.svg", "figures/neuron.toml"] {
        std::fs::copy(repo().join(file), temp.path().join(file)).unwrap();
    }
    let chapter = temp.path().join("src/attention.md");
    let mut body = std::fs::read_to_string(&chapter).unwrap();
    body.push_str("\n```figure neuron\nprompt = \"animal\"\nlayer = 1\nneuron = 90\n```\n");
    std::fs::write(&chapter, body).unwrap();
    let output = preprocess(temp.path(), &input(temp.path()));
    assert!(output.status.success(), "{}", text(&output.stderr));
    let book: Value = serde_json::from_slice(&output.stdout).unwrap();
    let chapters = contents(&book);
    let attention = &chapters
        .iter()
        .find(|(n, _)| n == "attention.md")
        .unwrap()
        .1;
    assert_eq!(attention.matches("<tracebook-figure>").count(), 3);
    assert!(attention.contains("tbf-own-neuron"), "{attention}");
}
