//! What a build does with the claims of its articles: each one's verdict placed in its file
//! ([`ClaimRecord`]); false ones become errors or warnings by the site's policy
//! ([`ClaimPolicy`]); `check --claims list` prints them all, grouped by page.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::load::body::BodyRef;
use crate::load::config::ClaimPolicy;
use crate::resolve::inline::{CheckedClaim, Outcome};
use std::fmt::Write;
use tracebook_claims::Carry;

/// One claim of an article with its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimRecord {
    /// Where it is written, and (for a false claim) the error to report there.
    pub diagnostic: Diagnostic,
    pub prompt: String,
    /// The expression as written.
    pub source: String,
    pub outcome: Outcome,
    /// Whether it can be asked of another prompt (a reader's sentence in live mode).
    pub carries: Carry,
}

impl ClaimRecord {
    pub fn new(body: &BodyRef<'_>, claim: &CheckedClaim) -> ClaimRecord {
        let (message, hint) = match &claim.outcome {
            Outcome::Fails(detail) => (
                format!("this claim is false of the trace of `{}`: {detail}", claim.prompt),
                Some("revise the sentence and its claim; `tracebook check --claims list` lists every claim, and `--claims warn` (or `[check] claims = \"warn\"` in tracebook.toml) builds the site meanwhile"),
            ),
            Outcome::Holds(detail) => (format!("holds: {detail}"), None),
            Outcome::Unchecked(reason) => (format!("not checked: {reason}"), None),
        };
        let mut diagnostic = body.error(claim.span.clone(), message);
        if let Some(hint) = hint {
            diagnostic = diagnostic.with_hint(hint);
        }
        let carries = match tracebook_claims::parse(&claim.source, 0..claim.source.len()) {
            Ok(expr) => tracebook_claims::carry(&expr),
            Err(_) => Carry::Author {
                span: 0..claim.source.len(),
                tie: tracebook_claims::Tie::Experiment,
                why: "it is not a claim tracebook can read".into(),
            },
        };
        ClaimRecord {
            diagnostic,
            prompt: claim.prompt.clone(),
            source: claim.source.clone(),
            outcome: claim.outcome.clone(),
            carries,
        }
    }

    pub fn fails(&self) -> bool {
        matches!(self.outcome, Outcome::Fails(_))
    }
}

/// The false claims of `claims` as errors, or as warnings under [`ClaimPolicy::Warn`].
pub fn report(
    claims: &[ClaimRecord],
    policy: ClaimPolicy,
    errors: &mut Diagnostics,
    warnings: &mut Diagnostics,
) {
    for claim in claims.iter().filter(|c| c.fails()) {
        match policy {
            ClaimPolicy::Error => errors.push(claim.diagnostic.clone()),
            ClaimPolicy::Warn => warnings.push(claim.diagnostic.clone().as_warning()),
        }
    }
}

/// Inline values the trace cannot answer, as errors, or as warnings under
/// [`ClaimPolicy::Warn`]: prose that no longer fits a re-traced prompt, like a false claim.
pub fn report_unfit(
    unfit: &[Diagnostic],
    policy: ClaimPolicy,
    errors: &mut Diagnostics,
    warnings: &mut Diagnostics,
) {
    for diagnostic in unfit {
        match policy {
            ClaimPolicy::Error => errors.push(diagnostic.clone()),
            ClaimPolicy::Warn => {
                let mut warning = diagnostic.clone().as_warning();
                let meanwhile = "the page prints \"?\" meanwhile: revise the sentence";
                warning.hint = Some(match warning.hint.take() {
                    Some(hint) => format!("{hint}; {meanwhile}"),
                    None => meanwhile.to_string(),
                });
                warnings.push(warning);
            }
        }
    }
}

/// How `check --claims list` prints the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListFormat {
    /// For a terminal: grouped by file, one claim and its values per two lines.
    #[default]
    Text,
    /// For tools: `{"claims": [{file, line, column, prompt, claim, verdict, detail, carries,
    /// why}], "held", "false", "unchecked", "carry"}`.
    Json,
    /// For a pull request's review comment: a table per page, false claims first.
    Markdown,
}

/// Every claim with its verdict in `format`.
pub fn list_as(claims: &[ClaimRecord], format: ListFormat) -> String {
    match format {
        ListFormat::Text => list(claims),
        ListFormat::Json => list_json(claims),
        ListFormat::Markdown => list_markdown(claims),
    }
}

/// A claim's verdict word and its values.
fn verdict(claim: &ClaimRecord) -> (&'static str, &str) {
    match &claim.outcome {
        Outcome::Holds(d) => ("holds", d),
        Outcome::Fails(d) => ("false", d),
        Outcome::Unchecked(d) => ("unchecked", d),
    }
}

/// How many claims carry over to any prompt, to one that has their tokens, and to none.
fn carry_counts(claims: &[ClaimRecord]) -> [usize; 3] {
    let mut counts = [0; 3];
    for claim in claims {
        counts[match claim.carries {
            Carry::Always => 0,
            Carry::IfPresent { .. } => 1,
            Carry::Author { .. } => 2,
        }] += 1;
    }
    counts
}

/// The sentence that sums up [`carry_counts`].
fn carry_summary(claims: &[ClaimRecord]) -> String {
    let [always, present, author] = carry_counts(claims);
    format!(
        "a reader's own sentence: {always} carry over as written, {present} where it has their tokens, {author} are about the author's prompt only"
    )
}

/// How many claims hold, are false, and were not checked.
fn counts(claims: &[ClaimRecord]) -> [usize; 3] {
    let mut counts = [0; 3];
    for claim in claims {
        counts[match claim.outcome {
            Outcome::Holds(_) => 0,
            Outcome::Fails(_) => 1,
            Outcome::Unchecked(_) => 2,
        }] += 1;
    }
    counts
}

fn list_json(claims: &[ClaimRecord]) -> String {
    let items: Vec<serde_json::Value> = claims
        .iter()
        .map(|claim| {
            let (verdict, detail) = verdict(claim);
            let position = claim.diagnostic.position;
            serde_json::json!({
                "file": claim.diagnostic.file,
                "line": position.map(|p| p.line),
                "column": position.map(|p| p.column),
                "prompt": claim.prompt,
                "claim": claim.source,
                "verdict": verdict,
                "detail": detail,
                "carries": claim.carries.word(),
                "why": claim.carries.why(),
            })
        })
        .collect();
    let [held, failed, unchecked] = counts(claims);
    let all = serde_json::json!({
        "claims": items,
        "held": held,
        "false": failed,
        "unchecked": unchecked,
        "carry": carry_summary(claims),
    });
    serde_json::to_string_pretty(&all).expect("JSON values serialize")
}

fn list_markdown(claims: &[ClaimRecord]) -> String {
    let [held, failed, unchecked] = counts(claims);
    let mut out = format!(
        "**{} claims**: {held} hold, {failed} false, {unchecked} not checked; {}\n",
        claims.len(),
        carry_summary(claims)
    );
    let mut files: Vec<&str> = claims.iter().map(|c| c.diagnostic.file.as_str()).collect();
    files.dedup();
    let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
    for file in files {
        let _ = write!(
            out,
            "\n### `{file}`\n\n| line | verdict | claim | values | carries over |\n|---:|---|---|---|---|\n"
        );
        let mut rows: Vec<&ClaimRecord> = claims
            .iter()
            .filter(|c| c.diagnostic.file == file)
            .collect();
        rows.sort_by_key(|c| !c.fails());
        for claim in rows {
            let (_, detail) = verdict(claim);
            let mark = match claim.outcome {
                Outcome::Holds(_) => "✅ holds",
                Outcome::Fails(_) => "❌ **false**",
                Outcome::Unchecked(_) => "⚪ not checked",
            };
            let line = claim
                .diagnostic
                .position
                .map_or(String::new(), |p| p.line.to_string());
            let _ = writeln!(
                out,
                "| {line} | {mark} | `{{{{ claim {} {} }}}}` | {} | {} |",
                cell(&claim.prompt),
                cell(&claim.source),
                cell(detail),
                cell(&carry_cell(&claim.carries))
            );
        }
    }
    out
}

/// Every claim with its verdict, grouped by file, for an author reviewing prose (after a
/// model switch, say): `content/a.md:12:5  false  argmax(...) == 6 — argmax(...) is 4`.
pub fn list(claims: &[ClaimRecord]) -> String {
    let mut out = String::new();
    let mut file = "";
    for claim in claims {
        if claim.diagnostic.file != file {
            file = &claim.diagnostic.file;
            let _ = writeln!(out, "{file}");
        }
        let at = claim
            .diagnostic
            .position
            .map_or(String::new(), |p| format!("{}:{}", p.line, p.column));
        let (verdict, detail) = verdict(claim);
        // A false claim stands out in the column.
        let verdict = if claim.fails() { "FALSE" } else { verdict };
        let _ = writeln!(
            out,
            "  {at:<8} {verdict:<9} {{{{ claim {} {} }}}}\n           {detail}\n           carries over: {}",
            claim.prompt,
            claim.source,
            carry_cell(&claim.carries)
        );
    }
    let [held, failed, unchecked] = counts(claims);
    let _ = write!(
        out,
        "{} claims: {held} hold, {failed} false, {unchecked} not checked\non {}",
        claims.len(),
        carry_summary(claims)
    );
    out
}

/// `always`, or the word and why.
fn carry_cell(carries: &Carry) -> String {
    match carries {
        Carry::Always => "always".into(),
        other => format!("{}: {}", other.word(), other.why()),
    }
}
