//! `$...$` and `$$...$$` to MathML at build time (math-core): no JavaScript, no CDN.

use super::Spanned;
use crate::base::problem::Problem;
use crate::load::body::equation_label;
use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};
use pulldown_cmark::{CowStr, Event};

/// The LaTeX converter, made once per build.
pub struct MathRenderer {
    converter: LatexToMathML,
}

impl MathRenderer {
    pub fn new() -> MathRenderer {
        let converter = LatexToMathML::new(MathCoreConfig::default())
            .expect("the default math configuration defines no macros that could fail");
        MathRenderer { converter }
    }

    /// Replaces math events by MathML; a LaTeX error points into the formula. A display
    /// equation followed by `{#ID}` (`$$ ... $$ {#eq-softmax}`, as in Quarto) is numbered in
    /// the page's order, "(1)", and takes that id for `{{ ref ID }}`.
    pub fn rewrite<'s>(
        &self,
        events: Vec<Spanned<'s>>,
        problems: &mut Vec<Problem>,
    ) -> Vec<Spanned<'s>> {
        let mut out: Vec<Spanned<'s>> = Vec::with_capacity(events.len());
        let mut numbered = 0;
        let mut iter = events.into_iter().peekable();
        while let Some((event, range)) = iter.next() {
            match event {
                Event::InlineMath(latex) => {
                    let html =
                        self.convert(&latex, MathDisplay::Inline, range.clone(), 1, problems);
                    out.push((html, range));
                }
                Event::DisplayMath(latex) => {
                    let html = self.convert(&latex, MathDisplay::Block, range.clone(), 2, problems);
                    let label = match iter.peek() {
                        Some((Event::Text(text), _)) => equation_label(text),
                        _ => None,
                    };
                    let Some((id, rest)) = label else {
                        out.push((html, range));
                        continue;
                    };
                    let (_, text_range) = iter.next().expect("peeked");
                    if !crate::resolve::refs::valid_id(&id) {
                        problems.push(
                            Problem::new(text_range.clone(), format!("`{id}` cannot be an equation's id"))
                                .with_hint("an id is a word of letters, digits, `-` and `_`, starting with a letter, e.g. {#eq-softmax}"),
                        );
                    }
                    numbered += 1;
                    let Event::InlineHtml(math) = html else {
                        out.push((html, range));
                        continue;
                    };
                    let labelled = format!(
                        "<span class=\"tb-equation\" id=\"{}\">{math}<span class=\"tb-equation-number\">({numbered})</span></span>",
                        crate::base::escape::html(&id)
                    );
                    out.push((Event::InlineHtml(CowStr::from(labelled)), range));
                    if !rest.is_empty() {
                        out.push((Event::Text(CowStr::from(rest)), text_range));
                    }
                }
                other => out.push((other, range)),
            }
        }
        out
    }

    fn convert<'s>(
        &self,
        latex: &str,
        display: MathDisplay,
        range: std::ops::Range<usize>,
        delimiter: usize,
        problems: &mut Vec<Problem>,
    ) -> Event<'s> {
        match self.converter.convert_with_local_state(latex, display) {
            Ok(result) => Event::InlineHtml(CowStr::from(result.mathml)),
            Err(err) => {
                let start = (range.start + delimiter + err.0.start).min(range.end);
                let end = (range.start + delimiter + err.0.end).clamp(start, range.end);
                problems.push(
                    Problem::new(start..end, format!("cannot read this math: {}", err.error_message()))
                        .with_hint("math is LaTeX between $...$ (inline) or $$...$$ (display); to write a dollar sign, use \\$"),
                );
                Event::Text(CowStr::from(String::new()))
            }
        }
    }
}
