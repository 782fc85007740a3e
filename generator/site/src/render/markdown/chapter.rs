//! A chapter of a book that another tool renders (`tracebook mdbook`): markdown in, markdown
//! out, with tracebook's directives done in place. Figure blocks become HTML (the caller wraps
//! each, as a fragment that keeps its own style and script), inline values, claims and
//! citations inline HTML, and a chapter that cites gets its references list at the end. Every
//! other byte is left as it was, for the other tool's markdown: its headings, code, links and
//! search stay its own.

use super::{figures, options, references, scan, values, BodyRef, Spanned};
use crate::base::diagnostic::Diagnostic;
use crate::base::escape;
use crate::load::citations::Citations;
use crate::load::lazy_tokenizer::LazyTokenizer;
use crate::load::templates::Templates;
use crate::load::words::Words;
use crate::resolve::claim_report::ClaimRecord;
use crate::resolve::inline::{self, EvalContext, Value};
use crate::resolve::scope::PromptScopeView;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};
use std::ops::Range;

/// What rendering one chapter needs.
pub struct ChapterInput<'a> {
    pub body: BodyRef<'a>,
    pub scope: &'a PromptScopeView<'a>,
    pub tokenizer: &'a LazyTokenizer,
    pub words: &'a Words,
    pub citations: &'a Citations,
    pub templates: &'a Templates,
    pub theme: &'a tracebook_figures::Theme,
    /// Whether checked claims show their marker (`[check] claim_markers`).
    pub claim_markers: bool,
    /// A drawn figure's HTML as the chapter holds it (a fragment that keeps its own style).
    pub wrap: &'a dyn Fn(&str) -> String,
    /// What follows the last figure of a chapter that has any (the script that enhances them).
    pub after_figures: &'a str,
}

/// A chapter with its directives done.
#[derive(Debug, Default)]
pub struct RenderedChapter {
    pub markdown: String,
    pub figures: usize,
    /// Inline values shown (claims not counted).
    pub values: usize,
    pub claims: Vec<ClaimRecord>,
}

/// Renders the directives of a chapter; problems are diagnostics placed in its file.
pub fn chapter(input: &ChapterInput<'_>) -> (RenderedChapter, Vec<Diagnostic>) {
    let body = input.body;
    let scan = scan::scan(&body);
    let mut diagnostics = scan.diagnostics.clone();
    let mut problems = Vec::new();
    let mut cx = EvalContext::new(input.scope, input.tokenizer, body.text);
    cx.citations = Some(input.citations);
    let mut substituted = inline::substitute(body.text, |i| scan.is_literal(i), &cx, &mut problems);
    // In a book, values its traces cannot answer stay errors whatever the claims policy: mdBook
    // shows a preprocessor's warnings only in its log, and the "?" would reach readers.
    problems.append(&mut substituted.unfit);
    let references = references::place(&mut substituted.values, input.citations);
    let text = substituted.text.as_str();
    let events: Vec<Spanned<'_>> = Parser::new_ext(text, options())
        .into_offset_iter()
        .collect();
    let blocks = figure_blocks(&events, &scan.unclosed);
    let plain = plain_ranges(&events);
    let mut stats = figures::FigureStats::standalone(input.theme);
    let events = figures::rewrite(
        events,
        text,
        &scan.unclosed,
        input.scope,
        (input.words, input.templates),
        &mut problems,
        &mut stats,
    );
    diagnostics.append(&mut stats.template_errors);
    // Each figure block's range, with what takes its place.
    let mut swaps: Vec<(Range<usize>, String)> = events
        .into_iter()
        .filter_map(|(event, range)| match event {
            Event::Html(html) if blocks.contains(&range) => Some((range, figure(&html, input))),
            _ => None,
        })
        .collect();
    let markers = input.claim_markers.then_some(input.words);
    for (n, at) in inline::placeholders(text) {
        let shown = match substituted.values.get(n) {
            Some(Some(value)) if plain.iter().any(|r| r.contains(&at.start)) => {
                escape::html(&value.text())
            }
            Some(Some(value)) => values::markdown_inline(n, value, &substituted.sources, markers),
            _ => String::new(),
        };
        swaps.push((at, shown));
    }
    swaps.sort_by_key(|(range, _)| range.start);
    let mut out = RenderedChapter {
        markdown: splice(text, &swaps),
        figures: stats.count,
        ..RenderedChapter::default()
    };
    if let Some(items) = references {
        let title = markdown_heading(input.words.get("references"));
        let list = format!("<ul class=\"tb-references-list\">\n{items}</ul>");
        out.markdown = format!(
            "{}\n\n## {title}\n\n{}\n",
            out.markdown.trim_end(),
            without_blank_lines(&list)
        );
    }
    if out.figures > 0 {
        let script = without_blank_lines(input.after_figures);
        out.markdown = format!("{}\n\n{script}\n", out.markdown.trim_end());
    }
    for value in substituted.values.iter().flatten() {
        match value {
            Value::Claim(claim) => out.claims.push(ClaimRecord::new(&body, claim)),
            _ => out.values += 1,
        }
    }
    diagnostics.extend(
        problems
            .into_iter()
            .map(|p| body.error(p.span, p.message).with_optional_hint(p.hint)),
    );
    (out, diagnostics)
}

/// The ranges of the fenced `figure` blocks that are closed (an unclosed one is reported).
fn figure_blocks(events: &[Spanned<'_>], unclosed: &[usize]) -> Vec<Range<usize>> {
    events
        .iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                if info.split_whitespace().next() == Some("figure")
                    && !unclosed.contains(&range.start) =>
            {
                Some(range.clone())
            }
            _ => None,
        })
        .collect()
}

/// Where a value shows as plain text: in raw HTML (an attribute, say) and image descriptions.
fn plain_ranges(events: &[Spanned<'_>]) -> Vec<Range<usize>> {
    events
        .iter()
        .filter(|(event, _)| {
            matches!(
                event,
                Event::Html(_) | Event::InlineHtml(_) | Event::Start(Tag::Image { .. })
            )
        })
        .map(|(_, range)| range.clone())
        .collect()
}

/// A figure's HTML as an HTML block of markdown: a block of its own, with no blank line inside
/// (that would end the block and leave the rest to be read as markdown).
fn figure(html: &str, input: &ChapterInput<'_>) -> String {
    format!("\n\n{}\n\n", without_blank_lines(&(input.wrap)(html)))
}

/// `text` with its blank lines dropped.
fn without_blank_lines(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A heading's text with markdown's punctuation made literal.
fn markdown_heading(title: &str) -> String {
    values::markdown_text(title)
}

/// `text` with each range of `swaps` (sorted, disjoint) replaced.
fn splice(text: &str, swaps: &[(Range<usize>, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, with) in swaps {
        if range.start < at {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str(with);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}
