//! Markdown to HTML: pulldown-cmark with the project's options, then small event rewriters
//! (figures, math, inline values, links, heading ids) and the table of contents; and
//! [`chapter`], markdown out, for a book that another tool renders.

mod callouts;
mod chapter;
mod figures;
mod headings;
mod highlight;
mod links;
mod math;
mod quotes;
mod references;
mod scan;
mod values;

pub use crate::load::body::{options, BodyRef};
pub use chapter::{chapter, ChapterInput};
pub use figures::lone;
pub use headings::TocEntry;
pub use links::{is_external, LinkRef, PageIndex, PageTarget};
pub use math::MathRenderer;
pub use scan::scan;

use crate::base::diagnostic::Diagnostic;
use crate::base::problem::Problem;
use crate::load::citations::Citations;
use crate::load::lazy_tokenizer::LazyTokenizer;
use crate::load::templates::Templates;
use crate::load::words::Words;
use crate::render::live_page::LivePage;
use crate::resolve::claim_report::ClaimRecord;
use crate::resolve::inline::{self, EvalContext};
use crate::resolve::printed::Printed;
use crate::resolve::refs::RefIndex;
use crate::resolve::scope::PromptScopeView;
use pulldown_cmark::{Event, Parser};
use std::collections::BTreeSet;
use std::ops::Range;

/// A markdown event with its body range.
pub type Spanned<'s> = (Event<'s>, Range<usize>);

/// What rendering one article body needs.
pub struct MarkdownInput<'a> {
    pub body: BodyRef<'a>,
    /// Output path of the page (for relative links).
    pub output: &'a str,
    pub scope: &'a PromptScopeView<'a>,
    pub tokenizer: &'a LazyTokenizer,
    pub math: &'a MathRenderer,
    pub pages: &'a PageIndex,
    /// Whether checked claims show a marker to readers (`[check] claim_markers`).
    pub claim_markers: bool,
    /// The theme's words (figure captions, claim markers, callout titles).
    pub words: &'a Words,
    /// Every figure and heading of the site that `{{ ref ID }}` may name.
    pub refs: &'a RefIndex,
    /// The bibliography `{{ cite KEY }}` cites from.
    pub citations: &'a Citations,
    /// The site's templates: figures and code blocks render through their partials.
    pub templates: &'a Templates,
    /// With `[live] enabled`: the models the browser may run (the site's first) and whether
    /// each figure offers the reader's prompt.
    pub live: Option<(&'a [crate::load::live_models::LiveModel], bool)>,
    /// `[theme]`: every figure is restyled into it.
    pub theme: &'a tracebook_figures::Theme,
}

/// An article body as HTML, with what the page around it needs.
#[derive(Debug, Default)]
pub struct RenderedMarkdown {
    pub html: String,
    pub toc: Vec<TocEntry>,
    pub links: Vec<LinkRef>,
    pub figures: usize,
    pub values: usize,
    /// Models whose traces drew this page's figures.
    pub models: BTreeSet<String>,
    /// Each figure as a standalone SVG file: (output path, content).
    pub figure_files: Vec<(String, String)>,
    /// Every claim of the body, in order, with its verdict.
    pub claims: Vec<ClaimRecord>,
    /// With `[live]`: the JSON of the figures a reader may redraw (None if there are none).
    pub live: Option<String>,
    /// What each inline value printed (not claims, references or citations), in order.
    pub printed: Vec<Printed>,
    /// Inline values the trace cannot answer ([`inline::Substituted::unfit`]), placed in the
    /// file: errors or warnings by the claims policy.
    pub unfit: Vec<Diagnostic>,
}

/// Renders a body; problems are returned as diagnostics placed in the file.
pub fn render(input: &MarkdownInput<'_>) -> (RenderedMarkdown, Vec<Diagnostic>) {
    let body = input.body;
    let scan = scan::scan(&body);
    let mut diagnostics = scan.diagnostics.clone();
    let mut problems: Vec<Problem> = Vec::new();
    let mut cx = EvalContext::new(input.scope, input.tokenizer, body.text);
    cx.refs = Some(inline::Refs {
        index: input.refs,
        page: input.output,
        words: input.words,
    });
    cx.citations = Some(input.citations);
    let mut substituted = inline::substitute(body.text, |i| scan.is_literal(i), &cx, &mut problems);
    let references = references::place(&mut substituted.values, input.citations);
    let events: Vec<Spanned<'_>> = Parser::new_ext(&substituted.text, options())
        .into_offset_iter()
        .collect();
    let events = quotes::rewrite(events);
    let mut stats = figures::FigureStats {
        page_stem: input
            .output
            .strip_suffix(".html")
            .unwrap_or(input.output)
            .to_string(),
        models: BTreeSet::new(),
        count: 0,
        files: Vec::new(),
        live: input
            .live
            .map(|(models, per_figure)| LivePage::new(models, per_figure)),
        template_errors: Vec::new(),
        theme: input.theme,
        inline_panels: false,
        relations: Vec::new(),
    };
    let events = figures::rewrite(
        events,
        &substituted.text,
        &scan.unclosed,
        input.scope,
        (input.words, input.templates),
        &mut problems,
        &mut stats,
    );
    let events = input.math.rewrite(events, &mut problems);
    let events = values::rewrite(
        events,
        &substituted.values,
        &substituted.sources,
        input.claim_markers.then_some(input.words),
    );
    let events = callouts::rewrite(events, input.words, &mut problems);
    let events = highlight::rewrite(events, input.templates, &mut diagnostics);
    diagnostics.append(&mut stats.template_errors);
    let mut out = RenderedMarkdown::default();
    let link_cx = links::LinkContext {
        body,
        output: input.output,
        pages: input.pages,
    };
    let events = links::rewrite(events, &link_cx, &mut problems, &mut out.links);
    let (events, toc) = headings::rewrite(events, &mut problems);
    pulldown_cmark::html::push_html(&mut out.html, events.into_iter().map(|(e, _)| e));
    out.toc = toc;
    if let Some(items) = references {
        references::append(&mut out.html, &mut out.toc, &items, input.words);
    }
    out.figures = stats.count;
    out.figure_files = stats.files;
    out.models = stats.models;
    out.live = stats.live.and_then(|live| live.json(input.words));
    out.values = substituted
        .values
        .iter()
        .filter(|v| {
            v.as_ref()
                .is_some_and(|v| !matches!(v, inline::Value::Claim(_)))
        })
        .count();
    out.printed = printed(&body, &substituted);
    out.unfit = (substituted.unfit.iter())
        .map(|p| {
            body.error(p.span.clone(), p.message.clone())
                .with_optional_hint(p.hint.clone())
        })
        .collect();
    out.claims = substituted
        .values
        .iter()
        .filter_map(|v| match v {
            Some(inline::Value::Claim(claim)) => Some(ClaimRecord::new(&body, claim)),
            _ => None,
        })
        .collect();
    diagnostics.extend(
        problems
            .into_iter()
            .map(|p| body.error(p.span, p.message).with_optional_hint(p.hint)),
    );
    (out, diagnostics)
}

/// What the body's inline values print, for the record that finds them changed after a
/// re-trace (resolve::printed).
fn printed(body: &BodyRef<'_>, substituted: &inline::Substituted) -> Vec<Printed> {
    substituted
        .values
        .iter()
        .zip(&substituted.sources)
        .zip(&substituted.ranges)
        .filter_map(|((value, source), range)| {
            let value = value.as_ref()?;
            if matches!(
                value,
                inline::Value::Claim(_) | inline::Value::Ref { .. } | inline::Value::Cite { .. }
            ) {
                return None;
            }
            let at = body.location(range.clone());
            Some(Printed {
                file: at.file,
                line: at.position.line,
                column: at.position.column,
                source: source.clone(),
                text: value.text(),
            })
        })
        .collect()
}
