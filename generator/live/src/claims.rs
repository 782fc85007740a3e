//! The page's claims asked again of the reader's text: each `{{ claim PROMPT EXPR }}` marked on
//! the page is classified ([`tracebook_claims::carry`]) and, where it can be asked of another
//! prompt, evaluated on the reader's trace by the evaluator `tracebook build` uses.

use serde::Serialize;
use tracebook_claims::{carry, decide, parse, Carry, Cause, Evaluator, NoVocabulary};
use tracebook_trace::{Token, Trace};

/// What became of one claim on the reader's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimCheck {
    /// `holds`, `fails`, or `author` (about the author's prompt only).
    pub live: &'static str,
    /// The values that decided it, or (for the author) why it was not asked, in the site's
    /// terms.
    pub detail: String,
    /// Why it is the author's, for the reader's words (`live_why_*`): `place`, `word`,
    /// `experiment` (what ties the claim to the author's text), `missing` (the reader's text
    /// lacks a token it finds by text: [`ClaimCheck::token`]), `short` (too short for it),
    /// `repeat` (it asks where a token was said before, and the reader's text says it once:
    /// [`ClaimCheck::token`]), `other`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// `source` (a claim's expression as written) on `trace`, the reader's trace of `prompt`.
pub fn check(trace: &Trace, prompt: &str, source: &str) -> ClaimCheck {
    let author = |why: &'static str, detail: String, token: Option<String>| ClaimCheck {
        live: "author",
        detail,
        why: Some(why),
        token,
    };
    let expr = match parse(source, 0..source.len()) {
        Ok(expr) => expr,
        Err(problem) => return author("other", problem.message, None),
    };
    let carries = carry(&expr);
    if let Carry::Author { tie, why, .. } = &carries {
        return author(tie.word(), why.clone(), None);
    }
    let evaluator = Evaluator::new(trace, prompt, &NoVocabulary);
    match decide(&evaluator, &expr, source) {
        Ok(verdict) => ClaimCheck {
            live: if verdict.holds { "holds" } else { "fails" },
            detail: verdict.detail,
            why: None,
            token: None,
        },
        // A token the reader's text lacks (or holds twice), a position past a short text: the
        // sentence cannot be asked of it.
        Err(problem) => match (missing(trace, &carries), problem.cause) {
            (Some(token), _) => author("missing", problem.message, Some(token)),
            (None, Some(Cause::OutOfRange)) => author("short", problem.message, None),
            // `earlier(q)` on a text that says the token at q only once.
            (None, Some(Cause::NotRepeated(token))) => {
                author("repeat", problem.message, Some(token))
            }
            (None, Some(Cause::NotOnce(token))) => author("missing", problem.message, Some(token)),
            (None, None) => author("other", problem.message, None),
        },
    }
}

/// A token the claim finds by text that `trace` does not have exactly once.
fn missing(trace: &Trace, carries: &Carry) -> Option<String> {
    let Carry::IfPresent {
        prompt, written, ..
    } = carries
    else {
        return None;
    };
    let once =
        |tokens: &[Token], text: &String| tokens.iter().filter(|t| &t.text == text).count() == 1;
    let translation = trace
        .meta
        .translation
        .as_ref()
        .map_or(&[][..], |t| &t.tokens[..]);
    (prompt.iter().find(|t| !once(&trace.meta.tokens, t)))
        .or_else(|| written.iter().find(|t| !once(translation, t)))
        .cloned()
}
