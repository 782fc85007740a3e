//! `tracebook mdbook`: an mdBook preprocessor. A book whose folder holds a `tracebook.toml`
//! (its prompts, model, bibliography, theme) and `traces/` beside its `book.toml` gets, in
//! every chapter, what a tracebook article gets: figure blocks drawn from its traces, inline
//! values, claims checked, citations and a references list. Errors name the chapter's file
//! with line and column, and stop the book's build.
//!
//! mdBook sends `[context, book]` as JSON on standard input and reads the book back on
//! standard output. The book is handled as JSON, not as mdBook's types: every `"Chapter"`
//! object's `content` is rewritten wherever it sits (mdBook 0.4 calls the list `sections`,
//! 0.5 `items`), and everything else is passed back untouched. Each figure is a
//! `tracebook figure` fragment (its own shadow root and style), so the book's theme and the
//! figures' styles cannot meet; one copy of the script after a chapter's figures enhances them.

use crate::base::diagnostic::Diagnostics;
use crate::base::source::SourceFile;
use crate::load::lazy_tokenizer::LazyTokenizer;
use crate::load::prompts::NamedPrompt;
use crate::load::site::Site;
use crate::load::templates::Templates;
use crate::load::traces::TraceSet;
use crate::lone;
use crate::render::markdown::{self, BodyRef, ChapterInput};
use crate::resolve::claim_report::{self, ClaimRecord};
use crate::resolve::scope::PromptScopeView;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The renderers whose output takes the chapters' HTML.
pub const RENDERERS: &[&str] = &["html"];

/// A book preprocessed: the book's JSON for mdBook, and what was done.
#[derive(Debug)]
pub struct BookOutput {
    pub json: String,
    pub chapters: usize,
    pub figures: usize,
    pub values: usize,
    pub claims: Vec<ClaimRecord>,
    /// False claims under `[check] claims = "warn"`.
    pub warnings: Diagnostics,
}

/// Preprocesses mdBook's `[context, book]` JSON.
pub fn mdbook(input: &str) -> Result<BookOutput, Diagnostics> {
    let (root, source_dir, mut book) = read_input(input)?;
    let (site, problems) = Site::load_partial(&root)?;
    let mut errors = problems;
    let templates = Templates::load(&root)?;
    let traces = TraceSet::load(&site);
    let book_env = BookEnv {
        tokenizer: LazyTokenizer::new(site.root.join(&site.config.model.id)),
        css: lone::theme_css(&root),
        script: lone::fragment_script(true),
        site: &site,
        traces: &traces,
        templates: &templates,
        source_dir,
    };
    let mut out = BookOutput {
        json: String::new(),
        chapters: 0,
        figures: 0,
        values: 0,
        claims: Vec::new(),
        warnings: Diagnostics::new(),
    };
    let mut used = BTreeSet::new();
    for_each_chapter(&mut book, &mut |chapter| {
        book_env.render(chapter, &mut out, &mut used, &mut errors);
    });
    for name in &used {
        if let Some(problem) = site.prompt(name).and_then(|p| traces.problem(p)) {
            errors.push(problem);
        }
    }
    claim_report::report(
        &out.claims,
        site.config.check.claims,
        &mut errors,
        &mut out.warnings,
    );
    out.json = book.to_string();
    errors.into_result(out)
}

/// The book's root, its source folder (relative, for messages) and the book itself.
fn read_input(input: &str) -> Result<(PathBuf, String, Value), Diagnostics> {
    let bad = |why: &str| {
        Diagnostics::from(
            crate::base::diagnostic::Diagnostic::file("<stdin>", format!("this is not what mdBook sends a preprocessor: {why}"))
                .with_hint("add [preprocessor.tracebook] to book.toml and run `mdbook build`; mdBook runs `tracebook mdbook` itself"),
        )
    };
    let parsed: Value = serde_json::from_str(input).map_err(|e| bad(&e.to_string()))?;
    let Some([context, book]) = parsed.as_array().map(Vec::as_slice) else {
        return Err(bad("expected the array [context, book]"));
    };
    let root = context
        .get("root")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("the context has no `root`"))?;
    let source_dir = context
        .pointer("/config/book/src")
        .and_then(Value::as_str)
        .unwrap_or("src")
        .trim_end_matches('/')
        .to_string();
    Ok((PathBuf::from(root), source_dir, book.clone()))
}

/// Calls `f` on every chapter object of the book, however deep.
fn for_each_chapter(value: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| for_each_chapter(v, f)),
        Value::Object(map) => {
            if let Some(chapter) = map.get_mut("Chapter") {
                f(chapter);
            }
            for (key, v) in map.iter_mut() {
                if key != "Chapter" {
                    for_each_chapter(v, f);
                }
            }
            if let Some(Value::Object(chapter)) = map.get_mut("Chapter") {
                if let Some(sub) = chapter.get_mut("sub_items") {
                    for_each_chapter(sub, f);
                }
            }
        }
        _ => {}
    }
}

/// What every chapter is rendered with.
struct BookEnv<'a> {
    site: &'a Site,
    traces: &'a TraceSet,
    templates: &'a Templates,
    tokenizer: LazyTokenizer,
    /// The theme as a fragment's shadow root holds it.
    css: String,
    /// The script after a chapter's figures, which enhances them all.
    script: String,
    /// The book's source folder (`src`), for the chapters' file names.
    source_dir: String,
}

impl BookEnv<'_> {
    fn render(
        &self,
        chapter: &mut Value,
        out: &mut BookOutput,
        used: &mut BTreeSet<String>,
        errors: &mut Diagnostics,
    ) {
        let Some(content) = chapter.get("content").and_then(Value::as_str) else {
            return;
        };
        // A draft chapter (no file yet) has no source path.
        let name = match chapter.get("source_path").and_then(Value::as_str) {
            Some(path) => format!("{}/{}", self.source_dir, path.replace('\\', "/")),
            None => chapter
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("chapter")
                .to_string(),
        };
        let file = SourceFile::from_text(&name, content);
        // Every prompt of a book is declared in its tracebook.toml, so shared.
        let prompts: &[NamedPrompt] = &self.site.prompts;
        let scope = PromptScopeView::new(prompts, self.traces, &name);
        let wrap = |html: &str| lone::shadow_host(html, &self.css);
        let input = ChapterInput {
            body: BodyRef::new(&file, 0..content.len()),
            scope: &scope,
            tokenizer: &self.tokenizer,
            words: &self.site.config.words,
            citations: &self.site.citations,
            templates: self.templates,
            theme: &self.site.config.theme,
            claim_markers: self.site.config.check.claim_markers,
            wrap: &wrap,
            after_figures: &self.script,
        };
        let (rendered, diagnostics) = markdown::chapter(&input);
        errors.extend(diagnostics);
        used.extend(scope.into_used());
        out.chapters += 1;
        out.figures += rendered.figures;
        out.values += rendered.values;
        out.claims.extend(rendered.claims);
        chapter["content"] = Value::String(rendered.markdown);
    }
}
