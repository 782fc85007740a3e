//! The page's claims asked again of the reader's text: each `{{ claim PROMPT EXPR }}` marked on
//! the page is classified ([`tracebook_claims::carry`]) and, where it can be asked of another
//! prompt, evaluated on the reader's trace by the evaluator `tracebook build` uses.

use serde::Serialize;
use tracebook_claims::{carry, decide, parse, Carry, Evaluator, NoVocabulary};
use tracebook_trace::Trace;

/// What became of one claim on the reader's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimCheck {
    /// `holds`, `fails`, or `author` (about the author's prompt only).
    pub live: &'static str,
    /// The values that decided it, or why it was not asked of the reader's text.
    pub detail: String,
}

/// `source` (a claim's expression as written) on `trace`, the reader's trace of `prompt`.
pub fn check(trace: &Trace, prompt: &str, source: &str) -> ClaimCheck {
    let author = |detail: String| ClaimCheck {
        live: "author",
        detail,
    };
    let expr = match parse(source, 0..source.len()) {
        Ok(expr) => expr,
        Err(problem) => return author(problem.message),
    };
    if let Carry::Author { why, .. } = carry(&expr) {
        return author(why);
    }
    let evaluator = Evaluator::new(trace, prompt, &NoVocabulary);
    match decide(&evaluator, &expr, source) {
        Ok(verdict) => ClaimCheck {
            live: if verdict.holds { "holds" } else { "fails" },
            detail: verdict.detail,
        },
        // A token the reader's text lacks (or holds twice), a position past a short text: the
        // sentence cannot be asked of it.
        Err(problem) => author(problem.message),
    }
}
