//! [live-claims] item 1: which of the example's claims can be asked of a reader's sentence.
//! `check --claims list --format json` says, for each claim, whether it carries over as
//! written (`always`), where the reader's text has its tokens (`if-present`), or is about the
//! author's prompt only (`author`). The class of every claim is kept in a snapshot, and the
//! promise is tested for real: each claim said to carry over is evaluated on every other trace
//! of the same model in `traces/` and must be decided there (true or false), never fail to
//! evaluate, but on a text too short for the positions it reads; a claim that finds its tokens
//! by text must be decided wherever they are there once.

use std::path::Path;
use tracebook_claims::{decide, parse, Cause, Evaluator, NoVocabulary};
use tracebook_trace::Trace;

#[path = "support/claims_list.rs"]
mod claims_list;

/// Every trace of `traces/`, with the id of the model that wrote it.
fn traces() -> Vec<(String, Trace)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
    let mut all: Vec<(String, Trace)> = std::fs::read_dir(dir)
        .expect("traces/")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_stem()?.to_str()?.to_string();
            Some((name, Trace::read(&path).ok()?))
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

/// Whether `trace` has each of `prompt` once among its prompt's tokens, and each of
/// `written` once among its translation's.
fn has(trace: &Trace, prompt: &[String], written: &[String]) -> bool {
    let once = |tokens: &[tracebook_trace::Token], text: &String| {
        tokens.iter().filter(|t| &t.text == text).count() == 1
    };
    let translation = trace
        .meta
        .translation
        .as_ref()
        .map_or(&[][..], |t| &t.tokens[..]);
    prompt.iter().all(|t| once(&trace.meta.tokens, t))
        && written.iter().all(|t| once(translation, t))
}

/// Whether `claim` reads a table of an experiment a reader's text is run through again.
fn reads_experiment(claim: &str) -> bool {
    ["ablation.", "dla.", "saliency.", "flow."]
        .iter()
        .any(|prefix| claim.contains(prefix))
}

/// Whether two traces ran the same ablation and attribution.
fn same_experiments(a: &Trace, b: &Trace) -> bool {
    let (a, b) = (&a.meta.prompt.options, &b.meta.prompt.options);
    a.ablate == b.ablate && a.attribute == b.attribute
}

#[test]
fn every_claim_that_carries_over_is_decided_on_the_other_prompts_of_its_model() {
    let list = claims_list::example();
    let items = list["claims"].as_array().expect("claims");
    assert!(items.len() > 100, "the example has its claims");
    let mut classes = String::new();
    for c in items {
        classes.push_str(&format!(
            "{}:{} {} {}\n",
            c["file"].as_str().unwrap(),
            c["line"],
            c["carries"].as_str().unwrap(),
            c["claim"].as_str().unwrap()
        ));
        let why = c["why"].as_str().unwrap();
        assert_eq!(c["carries"] == "always", why.is_empty(), "{c}");
    }
    insta::assert_snapshot!("claims_carry", classes);

    let traces = traces();
    let (mut decided, mut skipped) = (0, 0);
    for c in items.iter().filter(|c| c["carries"] != "author") {
        let prompt = c["prompt"].as_str().unwrap();
        let source = c["claim"].as_str().unwrap();
        let expr = parse(source, 0..source.len()).expect("a listed claim parses");
        let Some((_, own)) = traces.iter().find(|(n, _)| n == prompt) else {
            panic!("no trace for {prompt}")
        };
        let (needs, written) = match tracebook_claims::carry(&expr) {
            tracebook_claims::Carry::IfPresent {
                prompt, written, ..
            } => (prompt, written),
            _ => (Vec::new(), Vec::new()),
        };
        for (name, other) in &traces {
            let same_model = other.meta.model.weights_sha256 == own.meta.model.weights_sha256;
            if name == prompt || !same_model {
                continue;
            }
            // An experiment's table is asked of a reader's text traced with the author's
            // options (tests/live_claims.rs does that natively); another prompt of the example
            // ran other experiments, or none.
            if reads_experiment(source) && !same_experiments(own, other) {
                skipped += 1;
                continue;
            }
            if !has(other, &needs, &written) {
                skipped += 1;
                continue;
            }
            let ev = Evaluator::new(other, name, &NoVocabulary);
            let written = |t: &Trace| t.meta.translation.as_ref().map_or(0, |t| t.tokens.len());
            let shorter =
                other.meta.tokens.len() < own.meta.tokens.len() || written(other) < written(own);
            match decide(&ev, &expr, source) {
                // A text too short for the range it reads (`q in -8:-1` on 3 tokens).
                Err(problem) if shorter && problem.cause == Some(Cause::OutOfRange) => {
                    skipped += 1;
                    continue;
                }
                // `earlier(q)` on a text that says the token at q once: asked only of repeats.
                Err(problem) if matches!(problem.cause, Some(Cause::NotRepeated(_))) => {
                    skipped += 1;
                    continue;
                }
                Err(problem) => {
                    panic!(
                    "{}:{} `{source}` is said to carry over ({}) but cannot be asked of `{name}`: {}",
                    c["file"].as_str().unwrap(),
                    c["line"],
                    c["carries"],
                    problem.message
                );
                }
                Ok(_) => {}
            }
            decided += 1;
        }
    }
    eprintln!("{decided} evaluations on other prompts, {skipped} skipped for a missing token or a shorter text");
    assert!(decided > 100, "{decided} evaluations");
}
