//! Entry points for the fuzz targets in `fuzz/` at the repository root: each runs one real
//! code path of the site builder on text in memory. Errors are expected results (they are
//! formatted, so the diagnostics code runs too); a panic, a hang or a blow-up is a bug.
//! Not part of the crate's API.

use crate::base::diagnostic::Diagnostics;
use crate::base::source::SourceFile;
use crate::load::config::{self, SiteConfig, CONFIG_FILE};
use crate::load::content::{self, Content};
use crate::load::lazy_tokenizer::LazyTokenizer;
use crate::load::prompts::{self, NamedPrompt};
use crate::load::site::Site;
use crate::load::templates::Templates;
use crate::load::traces::TraceSet;
use crate::render;
use crate::render::markdown::{self, BodyRef, MarkdownInput, MathRenderer, PageIndex};
use crate::resolve::inline::{self, EvalContext};
use crate::resolve::scope::PromptScopeView;
use crate::write::linkcheck::{self, OutputIndex};
use std::path::{Path, PathBuf};
use tracebook_claims as claims;
use tracebook_trace::Trace;

/// The article every entry point pretends to render.
const ARTICLE: &str = "content/fuzz.md";

/// Splits and parses an article's front matter as `content/` loading does.
pub fn front_matter(text: &str) {
    let mut out = Diagnostics::new();
    let content = load_article(text, &mut out);
    prompts::merge(content.prompts, &mut out);
    let _ = out.finish().to_string();
}

/// Parses `tracebook.toml`.
pub fn config(text: &str) {
    if let Err(diagnostics) = config::parse(&SourceFile::from_text(CONFIG_FILE, text)) {
        let _ = diagnostics.finish().to_string();
    }
}

/// A site in memory with one shared prompt and its trace (taken as up to date), built once
/// and reused for every input.
pub struct Fixture {
    root: PathBuf,
    config: SiteConfig,
    shared: Vec<NamedPrompt>,
    traces: TraceSet,
    templates: Templates,
    tokenizer: LazyTokenizer,
    math: MathRenderer,
}

impl Fixture {
    /// A site whose tracebook.toml shares one prompt per `(name, trace JSON)`, each with
    /// the text its trace was made from.
    pub fn new(traces: &[(&str, &str)]) -> Fixture {
        let traces: Vec<(String, Trace)> = traces
            .iter()
            .map(|(name, json)| {
                let trace = Trace::from_json(json).expect("a fixture trace reads");
                (name.to_string(), trace)
            })
            .collect();
        let model = traces
            .first()
            .map_or("gpt2", |(_, t)| t.meta.model.id.as_str());
        let mut text = format!(
            "title = \"Fuzz\"\n[model]\nid = {}\n[prompts]\n",
            toml::Value::from(model)
        );
        for (name, trace) in &traces {
            let prompt = toml::Value::from(trace.meta.prompt.text.as_str());
            text.push_str(&format!("{name} = {prompt}\n"));
        }
        let (config, shared) = config::parse(&SourceFile::from_text(CONFIG_FILE, &text))
            .expect("the fixture config parses");
        // A path that is never a folder: no templates/, static/ or model folder on disk.
        let root = PathBuf::from("/dev/null/tracebook-fuzz");
        Fixture {
            templates: Templates::load(&root).expect("the built-in templates load"),
            tokenizer: LazyTokenizer::new(root.join(&config.model.id)),
            traces: TraceSet::from_ready(traces),
            math: MathRenderer::new(),
            root,
            config,
            shared,
        }
    }

    /// Finds, parses and computes the inline values of an article body.
    pub fn inline_values(&self, body: &str) {
        let scope = PromptScopeView::new(&self.shared, &self.traces, ARTICLE);
        let cx = EvalContext::new(&scope, &self.tokenizer, body);
        let mut problems = Vec::new();
        let substituted = inline::substitute(body, |_| false, &cx, &mut problems);
        assert_eq!(
            substituted.text.len(),
            body.len(),
            "placeholders keep byte offsets"
        );
        let _ = inline::expand(&substituted.text, &substituted.values);
        let file = SourceFile::from_text(ARTICLE, body);
        for problem in problems {
            let _ = file.error(problem.span, problem.message).to_string();
        }
    }

    /// Parses `text` as a claim and decides it on the first prompt's trace, with no
    /// vocabulary beyond the trace's (the language alone, no tokenizer).
    pub fn claim(&self, text: &str) {
        let Some(prompt) = self.shared.first() else {
            return;
        };
        let Some(trace) = self.traces.ready(prompt.name.as_str()) else {
            return;
        };
        let file = SourceFile::from_text(ARTICLE, text);
        let evaluator = claims::Evaluator::new(trace, prompt.name.as_str(), &claims::NoVocabulary);
        let result = claims::parse(text, 0..text.len())
            .and_then(|expr| claims::decide(&evaluator, &expr, text));
        match result {
            Ok(verdict) => assert!(!verdict.detail.is_empty(), "a verdict says why"),
            Err(problem) => {
                assert!(
                    problem.span.end <= text.len(),
                    "spans stay inside the claim"
                );
                let _ = file.error(problem.span, problem.message).to_string();
            }
        }
    }

    /// Renders a body holding one figure block with this info string (`figure <kind> ...`)
    /// and TOML body.
    pub fn figure(&self, info: &str, toml: &str) {
        // A tilde fence longer than any tilde run of the body: the body cannot close it.
        let longest = toml.split(|c| c != '~').map(str::len).max().unwrap_or(0);
        let fence = "~".repeat(longest.max(2) + 1);
        let info = info.replace(['\n', '\r'], " ");
        let body = format!("{fence}{info}\n{toml}\n{fence}\n");
        self.markdown(&body);
    }

    /// Renders a body through the markdown pass alone (figures, math, values, links, headings).
    pub fn markdown(&self, body: &str) {
        let file = SourceFile::from_text(ARTICLE, body);
        let scope = PromptScopeView::new(&self.shared, &self.traces, ARTICLE);
        let pages = PageIndex::new();
        let models = [crate::load::live_models::LiveModel {
            id: "fuzz-model".into(),
            dir: String::new(),
        }];
        let input = MarkdownInput {
            claim_markers: true,
            words: &self.config.words,
            refs: &crate::resolve::refs::RefIndex::default(),
            citations: &crate::load::citations::Citations::Off,
            body: BodyRef::new(&file, 0..body.len()),
            output: "fuzz.html",
            scope: &scope,
            tokenizer: &self.tokenizer,
            math: &self.math,
            pages: &pages,
            templates: &self.templates,
            live: Some((&models, true)),
            theme: &self.config.theme,
        };
        let (_, diagnostics) = markdown::render(&input);
        for diagnostic in diagnostics {
            let _ = diagnostic.to_string();
        }
    }

    /// Renders and checks a site of one article, as `tracebook check` does. Without front
    /// matter the input is taken as the body of an article titled "Fuzz".
    pub fn page(&self, article: &str) {
        let text = if article.trim_start_matches('\u{feff}').starts_with("+++") {
            article.to_string()
        } else {
            format!("+++\ntitle = \"Fuzz\"\n+++\n{article}")
        };
        let mut out = Diagnostics::new();
        let content = load_article(&text, &mut out);
        let shared = self.shared.iter().cloned();
        let site = Site {
            root: self.root.clone(),
            config: self.config.clone(),
            prompts: prompts::merge(shared.chain(content.prompts), &mut out),
            pages: content.pages,
            unreadable: content.unreadable,
            citations: crate::load::citations::Citations::Off,
            own_kinds: Vec::new(),
        };
        let (rendered, problems) = render::render(&site, &self.traces, &self.templates);
        out.extend(problems);
        if !rendered.incomplete {
            let index = OutputIndex::new(&rendered);
            linkcheck::check_article_links(&index, &rendered.links, &mut out);
            linkcheck::check_template_links(&index, &rendered, &mut out);
        }
        let _ = out.finish().to_string();
    }
}

fn load_article(text: &str, out: &mut Diagnostics) -> Content {
    let mut content = Content::default();
    let source = SourceFile::from_text(ARTICLE, text);
    content::load_page(source, Path::new("fuzz.md"), &mut content, out);
    content
}
