//! `$...$` and `$$...$$` to MathML at build time (math-core): no JavaScript, no CDN.

use super::Spanned;
use crate::problem::Problem;
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

    /// Replaces math events by MathML; a LaTeX error points into the formula.
    pub fn rewrite<'s>(
        &self,
        events: Vec<Spanned<'s>>,
        problems: &mut Vec<Problem>,
    ) -> Vec<Spanned<'s>> {
        events
            .into_iter()
            .map(|(event, range)| match event {
                Event::InlineMath(latex) => (
                    self.convert(&latex, MathDisplay::Inline, range.clone(), 1, problems),
                    range,
                ),
                Event::DisplayMath(latex) => (
                    self.convert(&latex, MathDisplay::Block, range.clone(), 2, problems),
                    range,
                ),
                other => (other, range),
            })
            .collect()
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
