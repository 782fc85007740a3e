//! The claim language on a real trace of the example site (`traces/robots.json`: "The
//! robots will bring", traced with models/tracebook-mini-en, whose vocabulary cuts " robots" into
//! " rob" + "ots"). Expected values are read from
//! the trace by hand here, not written down, so the tests hold for any re-trace.

use super::{decide, parse, Evaluator, NoVocabulary, Verdict};
use crate::problem::Problem;
use proptest::prelude::*;
use tracebook_trace::Trace;

const ROBOTS: &str = include_str!("../../../traces/robots.json");

fn trace() -> Trace {
    Trace::from_json(ROBOTS).expect("the example trace reads")
}

/// The verdict on `claim` (the whole string is the claim).
fn verdict(claim: &str) -> Result<Verdict, Problem> {
    let trace = trace();
    let ev = Evaluator::new(&trace, "robots", &NoVocabulary);
    let expr = parse(claim, 0..claim.len())?;
    decide(&ev, &expr, claim)
}

fn holds(claim: &str) -> bool {
    let v = verdict(claim).unwrap_or_else(|e| panic!("{claim}: {e:?}"));
    v.holds
}

fn error(claim: &str) -> Problem {
    verdict(claim).expect_err(claim)
}

/// The id of the likeliest next token, read from `logits.topk_ids` directly.
fn top_id(trace: &Trace) -> u32 {
    let ids = trace.tensor("logits.topk_ids").unwrap();
    let k = ids.shape[1];
    ids.data[ids.data.len() - k] as u32
}

#[test]
fn tokens_ids_and_counts() {
    let trace = trace();
    let n = trace.meta.tokens.len();
    assert!(holds(&format!("count() == {n}")));
    assert!(holds(
        "token(1) == \" rob\" and token(2) == \"ots\" and token(-1) == \" bring\""
    ));
    assert!(holds(&format!("id(0) == {}", trace.meta.tokens[0].id)));
    assert!(!holds("token(0) == \"the\""));
    assert!(holds("len(logits.last) > 1000"));
}

/// The roles name positions and tokens by what they are, not by where the author's prompt
/// has them: the last token, the first, the model's k-th guess.
#[test]
fn roles_name_the_last_and_first_token_and_the_model_s_guesses() {
    let trace = trace();
    let n = trace.meta.tokens.len();
    let top = top_id(&trace);
    assert!(holds(&format!("last() == {} and first() == 0", n - 1)));
    assert!(holds("token(last()) == token(-1) and id(first()) == id(0)"));
    assert!(holds("last() - 1 == count() - 2"));
    assert!(holds(&format!("guess(1) == {top} and guess(1) in top(1)")));
    assert!(holds("guess(2) == logits.topk_ids[-1, 1]"));
    assert!(holds("prob(guess(1)) >= prob(guess(2))"));
    assert!(holds("rank(logits.last, guess(3)) == 3"));
    let text = trace.meta.token_texts[&top].clone();
    let v = verdict("guess(1) == 0").unwrap();
    assert_eq!(v.detail, format!("`guess(1)` is {top} ({text:?}), not 0"));
    let v = verdict("last() == 0").unwrap();
    assert_eq!(
        v.detail,
        format!("`last()` is {} (\" bring\"), not 0", n - 1)
    );
    assert!(error("guess(0) == 1").message.contains("between 1 and"));
    assert!(error("last(1) == 1").message.contains("takes 0 arguments"));
}

/// Every claim function is in the authors' table of docs/authoring.md.
#[test]
fn every_function_is_documented_for_authors() {
    let docs = include_str!("../../../docs/authoring.md");
    let missing: Vec<&str> = crate::eval::FUNCTIONS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !docs.contains(&format!("`{name}(")))
        .collect();
    assert!(missing.is_empty(), "not in docs/authoring.md: {missing:?}");
}

#[test]
fn argmax_rank_top_and_prob_agree_with_the_trace() {
    let trace = trace();
    let top = top_id(&trace);
    let text = trace.meta.token_texts[&top].clone();
    assert!(holds(&format!("argmax(logits.last) == {top}")));
    assert!(holds("argmax(logits.last) == logits.topk_ids[-1, 0]"));
    assert!(holds(&format!("text(argmax(logits.last)) == {text:?}")));
    assert!(holds(&format!("{text:?} in top(1) and {top} in top(3)")));
    assert!(holds("rank(logits.last, logits.topk_ids[-1, 1]) == 2"));
    assert!(holds(&format!("rank(logits.last, {text:?}) == 1")));
    assert!(holds(
        "prob(logits.topk_ids[-1, 0]) > prob(logits.topk_ids[-1, 1])"
    ));
    assert!(holds(
        "prob(argmax(logits.last)) > 0 and prob(argmax(logits.last)) <= 1"
    ));
    assert!(!holds(&format!("not {top} in top(2)")));
}

#[test]
fn slices_reductions_and_quantifiers() {
    // Each attention row is a distribution over the keys up to the query (causal).
    assert!(holds(
        "all(q in 0:, abs(sum(blocks.0.attn.pattern[0, q, :]) - 1) < 0.01)"
    ));
    assert!(holds(
        "all(q in 0:-1, max(blocks.0.attn.pattern[1, q, q+1:]) == 0)"
    ));
    assert!(holds("min(blocks.2.attn.pattern[0, -1, :]) >= 0"));
    assert!(holds(
        "any(q in 1:, argmax(blocks.0.attn.pattern[0, q, :]) <= q)"
    ));
    assert!(holds(
        "abs(mean(blocks.0.attn.pattern[0, -1, :]) * count() - 1) < 0.01"
    ));
    assert!(holds("len(blocks.0.attn.pattern[0]) == count()"));
    assert!(holds("len(blocks.0.attn.pattern[0, 1:3, :]) == 2"));
    assert!(holds("sum(blocks.0.attn.pattern[0, 0, 1:]) == 0"));
    assert!(holds("-1 < 2 - 4 / 2 + 1 * 0.5 and not 1 > 2 or 0 == 1"));
}

#[test]
fn false_claims_say_what_the_values_were() {
    let trace = trace();
    let top = top_id(&trace);
    let text = trace.meta.token_texts[&top].clone();
    let wrong = (top + 1) % 50;
    let v = verdict(&format!("argmax(logits.last) == {wrong}")).unwrap();
    assert!(!v.holds);
    assert_eq!(
        v.detail,
        format!("`argmax(logits.last)` is {top} ({text:?}), not {wrong}")
    );
    let v = verdict("blocks.0.attn.pattern[0, 0, 0] < 0.5").unwrap();
    assert_eq!(v.detail, "`blocks.0.attn.pattern[0, 0, 0]` is 1, not < 0.5");
    let v = verdict("all(q in 1:, argmax(blocks.0.attn.pattern[0, q, :]) == q + 100)").unwrap();
    assert!(!v.holds);
    assert!(
        v.detail
            .starts_with("for q = 1: `argmax(blocks.0.attn.pattern[0, q, :])` is "),
        "{}",
        v.detail
    );
    assert!(
        v.detail.contains("(\""),
        "the key's token is named: {}",
        v.detail
    );
    let v = verdict("token(1) == \" cats\" or token(2) == \" cats\"").unwrap();
    assert_eq!(
        v.detail,
        "`token(1)` is \" rob\", not \" cats\"; `token(2)` is \"ots\", not \" cats\""
    );
    let v = verdict("blocks.0.attn.pattern[0, 0, 0] > 0.5").unwrap();
    assert_eq!((v.holds, v.detail.as_str()), (true, "1 > 0.5"));
}

#[test]
fn errors_point_at_the_part_at_fault() {
    let claim = "argmax(blocks.0.attn.patern[0, 1, :]) == 1";
    let e = error(claim);
    assert_eq!(&claim[e.span.clone()], "blocks.0.attn.patern");
    assert_eq!(
        e.hint.as_deref(),
        Some("did you mean `blocks.0.attn.pattern`?")
    );
    let claim = "argmx(logits.last) == 1";
    let e = error(claim);
    assert_eq!(
        (e.message.as_str(), &claim[e.span.clone()]),
        ("unknown function `argmx`", "argmx")
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `argmax`?"));
    let claim = "blocks.0.attn.pattern[0, 9, 0] > 0";
    let e = error(claim);
    assert_eq!(&claim[e.span.clone()], "9");
    assert!(e.message.contains("out of range for dimension 1"), "{e:?}");
    let e = error("argmax(blocks.0.attn.pattern) == 1");
    assert!(e.message.contains("needs one row of numbers"), "{e:?}");
    let e = error("token(1) == 3");
    assert_eq!(e.message, "cannot compare text with a number");
    let e = error("count()");
    assert!(e.message.contains("expected true or false"), "{e:?}");
    let e = error("1 < 2 < 3");
    assert!(e.hint.unwrap().contains("a < b and b < c"));
    let e = error("count() = 4");
    assert_eq!(e.hint.as_deref(), Some("compare with `==`"));
    let claim = "(count() == 4";
    assert!(error(claim).message.contains("expected `)`"));
    assert!(error("").message.contains("empty"));
    assert!(error("count() == 4 5")
        .message
        .contains("after a complete claim"));
    assert!(error("token(1.5) == \"x\"")
        .message
        .contains("whole number"));
    assert!(error("all(q 0:2, q > 0)").message.contains("expected `in`"));
    assert!(error("\"nope\" in top(3)")
        .message
        .contains("not a single token"));
    assert!(error(&"(".repeat(200)).message.contains("nests too deeply"));
}

/// Words a claim is made of, for the property test.
const PIECES: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "-",
    "+",
    "*",
    "/",
    "==",
    "<",
    ">=",
    "!=",
    "and",
    "or",
    "not",
    "in",
    "all(q in",
    "any(",
    "q",
    "0",
    "1",
    "-1",
    "2.5",
    "1e9",
    "\"x\"",
    "\" robots\"",
    "logits.last",
    "blocks.0.attn.pattern",
    "embed",
    "argmax(",
    "argmin(",
    "max(",
    "sum(",
    "mean(",
    "rank(",
    "top(",
    "prob(",
    "token(",
    "id(",
    "text(",
    "count()",
    "len(",
    "abs(",
    "nope",
    "1:",
    ":3",
    "99999999999",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any sequence of claim words parses or fails with a span inside the claim, and
    /// evaluates or fails the same way: never a panic.
    #[test]
    fn the_parser_and_evaluator_never_panic(picks in proptest::collection::vec(0..PIECES.len(), 0..14)) {
        let claim: String = picks.iter().map(|&i| PIECES[i]).collect::<Vec<_>>().join(" ");
        if let Err(e) = verdict(&claim) {
            prop_assert!(e.span.start <= e.span.end && e.span.end <= claim.len(), "{claim}: {e:?}");
        }
    }
}

#[test]
fn share_counts_the_values_a_comparison_holds_for() {
    let trace = trace();
    let post = trace.tensor("blocks.1.mlp.post").unwrap();
    let row = &post.data[3 * post.shape[1]..4 * post.shape[1]];
    let off = row.iter().filter(|v| v.abs() < 0.05).count() as f64 / row.len() as f64;
    let negative = row.iter().filter(|&&v| v < 0.0).count() as f64 / row.len() as f64;
    assert!(off > 0.0 && off < 1.0 && negative > 0.0);
    let just_below = |x: f64| x - 1e-9;
    let claim = format!(
        "share(abs(blocks.1.mlp.post[3]) < 0.05) > {}",
        just_below(off)
    );
    assert!(holds(&claim), "{claim}");
    let claim = format!("share(abs(blocks.1.mlp.post[3]) < 0.05) > {}", off + 1e-9);
    assert!(!holds(&claim), "{claim}");
    let claim = format!("share(blocks.1.mlp.post[3] < 0) > {}", just_below(negative));
    assert!(holds(&claim), "{claim}");
    let e = error("share(blocks.1.mlp.post[3]) > 0.5");
    assert!(e.message.contains("needs a comparison"), "{}", e.message);
}

#[test]
fn pos_finds_a_token_by_its_text() {
    // "The robots will bring", " robots" cut in two: " will" is token 3.
    assert!(holds("pos(\" will\") == 3"));
    assert!(holds("token(pos(\"ots\")) == \"ots\""));
    assert!(holds("blocks.0.attn.pattern[0, pos(\" will\"), 0] > 0"));
    let absent = error("pos(\"will\") == 3");
    assert_eq!(absent.message, "no token of prompt `robots` is \"will\"");
    assert!(
        absent
            .hint
            .as_deref()
            .unwrap()
            .contains("did you mean ` will`?"),
        "{absent:?}"
    );
}

#[test]
fn earlier_finds_where_a_token_was_said_before() {
    // "The red car and the blue car. The red car and the blue car.": " car" at 2, 6, 10, 14.
    let json = include_str!("../../../traces/repeat.json");
    let holds = |claim: &str| verdict_on(json, "repeat", claim).unwrap().holds;
    assert!(holds("earlier(10) == 6"));
    assert!(holds("earlier(9) == 1"));
    assert!(holds("earlier(last()) == 7"));
    assert!(holds("token(earlier(last() - 2) + 1) == \" car\""));
    let once = verdict_on(json, "repeat", "earlier(1) == 0").unwrap_err();
    assert_eq!(
        once.message,
        "\" red\" (position 1) does not occur before position 1 in prompt `repeat`"
    );
    assert!(once.hint.unwrap().contains("twice"));
}

/// The example site's trace with an ablation and a patching (`traces/he_loved.json`: "He was
/// happy and loved", patched from "She was happy and loved").
const HE_LOVED: &str = include_str!("../../../traces/he_loved.json");

fn verdict_on(json: &str, prompt: &str, claim: &str) -> Result<Verdict, Problem> {
    let trace = Trace::from_json(json).expect("the example trace reads");
    let ev = Evaluator::new(&trace, prompt, &NoVocabulary);
    let expr = parse(claim, 0..claim.len())?;
    decide(&ev, &expr, claim)
}

#[test]
fn the_experiments_tables_read_as_the_meta_holds_them() {
    let trace = Trace::from_json(HE_LOVED).unwrap();
    let a = trace.meta.ablation.as_ref().expect("an ablation");
    let p = trace.meta.patching.as_ref().expect("a patching");
    let holds = |claim: &str| verdict_on(HE_LOVED, "he_loved", claim).unwrap().holds;
    let (l, h) = (a.heads.len() - 1, a.heads[0].len() - 1);
    let her = a.target(" her").unwrap();
    assert_eq!(her, 1);
    assert!(holds("target(\" his\") == 0 and target(\" her\") == 1"));
    let prob = a.heads[l][h].logprobs[her].exp();
    assert!(holds(&format!(
        "abs(ablation.heads.prob[{l}, {h}, target(\" her\")] - {prob}) < 1e-6"
    )));
    let mlp = a.mlp[0].logprobs[0];
    assert!(holds(&format!(
        "abs(ablation.mlp.logprob[0, 0] - {mlp}) < 1e-6"
    )));
    assert!(holds(&format!("len(patching.resid) == {}", p.resid.len())));
    assert!(holds(&format!(
        "abs(patching.heads[1, 2] - {}) < 1e-6 and len(patching.resid[0]) == count()",
        p.heads[1][2]
    )));
    // The base run is the traced run.
    assert!(holds("abs(ablation.prob[0] - prob(\" his\")) < 1e-4"));
    // A head's index is no token: the verdict names none.
    let v = verdict_on(HE_LOVED, "he_loved", "argmax(patching.heads[0, :]) == 0").unwrap();
    assert!(!v.detail.contains("(\""), "{}", v.detail);
    // A position's is.
    let v = verdict_on(HE_LOVED, "he_loved", "argmax(patching.resid[0, :]) == 1").unwrap();
    assert!(v.detail.contains("(\"He\")"), "{}", v.detail);
}

#[test]
fn a_target_is_found_by_its_id_as_well_as_its_text() {
    let mut trace = Trace::from_json(HE_LOVED).unwrap();
    let ablation = trace.meta.ablation.as_mut().unwrap();
    let his = ablation.targets[0].id;
    // A target written `guess(1)`, as the tracer records one.
    ablation.targets[0].rule = Some("guess(1)".into());
    let ev = Evaluator::new(&trace, "he_loved", &NoVocabulary);
    let decide_on = |claim: &str| {
        let expr = parse(claim, 0..claim.len())?;
        decide(&ev, &expr, claim)
    };
    let holds = |claim: &str| decide_on(claim).unwrap().holds;
    assert!(holds(&format!("target({his}) == 0")));
    assert!(holds(&format!("target({his}) == target(\" his\")")));
    // The model's own top guess after "He was happy and loved" is not one of the targets.
    let top = top_id(&trace);
    if top != his {
        let e = decide_on("target(guess(1)) == 0").unwrap_err();
        assert!(e.message.contains("is not a target"), "{}", e.message);
        assert!(e.hint.unwrap().contains("guess(1) = \" his\""));
    }
    let e = decide_on("target(0.5) == 0").unwrap_err();
    assert!(
        e.message.contains("a target's \"text\" or id"),
        "{}",
        e.message
    );
}

#[test]
fn targets_that_are_not_there_say_which_are() {
    let claim = "ablation.prob[target(\" hers\")] > 0";
    let e = verdict_on(HE_LOVED, "he_loved", claim).unwrap_err();
    assert_eq!(&claim[e.span.clone()], "\" hers\"");
    let hint = e.hint.unwrap();
    assert!(hint.contains("\" his\", \" her\""), "{hint}");
    let e = error("target(\" his\") == 0");
    assert!(e.message.contains("has no ablation"), "{}", e.message);
    assert!(e.hint.unwrap().contains("ablate = {"));
    let e = error("patching.resid[0, 0] > 0");
    assert!(
        e.message.contains("no tensor `patching.resid`"),
        "{}",
        e.message
    );
}

/// The example site's encoder-decoder trace (`traces/fichier.json`: "Error while reading the
/// configuration file", translated by models/tracebook-tiny-en-fr).
const FICHIER: &str = include_str!("../../../traces/fichier.json");

#[test]
fn wrote_finds_a_token_of_the_translation() {
    let trace = Trace::from_json(FICHIER).unwrap();
    let written: Vec<&str> = trace
        .meta
        .generation
        .iter()
        .map(|g| g.text.as_str())
        .collect();
    let at = written.iter().position(|t| *t == " fichier").unwrap();
    let holds = |claim: &str| verdict_on(FICHIER, "fichier", claim).unwrap().holds;
    assert!(holds(&format!("wrote(\" fichier\") == {at}")));
    assert!(!holds(&format!("wrote(\" fichier\") == {}", at + 1)));
    // A row of the cross-attention by what was written, a column by the source token.
    let claim = "decoder.blocks.2.cross_attn.pattern[0, wrote(\" fichier\"), pos(\" file\")] > 0";
    assert!(holds(claim));
    // " de" is written twice: the position must be given as a number.
    let twice = verdict_on(FICHIER, "fichier", "wrote(\" de\") == 2").unwrap_err();
    assert!(
        twice.message.contains("of the translation of `fichier`"),
        "{}",
        twice.message
    );
    let absent = verdict_on(FICHIER, "fichier", "wrote(\"fichier\") == 2").unwrap_err();
    assert!(absent.hint.unwrap().contains(" fichier"));
    // A decoder-only trace wrote no translation.
    let e = verdict_on(HE_LOVED, "he_loved", "wrote(\" his\") == 0").unwrap_err();
    assert!(e.message.contains("decoder-only"), "{}", e.message);
}

#[test]
fn a_false_claim_about_the_top_says_what_the_top_is() {
    let trace = trace();
    let top = top_id(&trace);
    let text = trace.meta.token_texts.get(&top).cloned().unwrap();
    // A token that is not the top guess: the prompt's first.
    let other = &trace.meta.tokens[0].text;
    assert_ne!(other, &text);
    let v = verdict(&format!("{other:?} in top(1)")).unwrap();
    assert!(!v.holds);
    assert!(
        v.detail.starts_with(&format!(
            "{other:?} is not in `top(1)`: the top is {text:?} ("
        )),
        "{}",
        v.detail
    );
    assert!(v.detail.ends_with("%)"), "{}", v.detail);
    let v = verdict(&format!("{other:?} in top(2)")).unwrap();
    assert!(v.detail.contains(": the top 2 are "), "{}", v.detail);
    // A claim that holds says no more than before.
    assert_eq!(
        verdict(&format!("{text:?} in top(1)")).unwrap().detail,
        format!("{text:?} is in `top(1)`")
    );
}

/// `top_prob(k)` is `prob(guess(k))`, and arithmetic goes entry by entry where a tensor meets
/// a number or a tensor of its shape.
#[test]
fn top_prob_and_arithmetic_on_tensors() {
    assert!(holds(
        "top_prob(1) == prob(guess(1)) and top_prob(2) == prob(guess(2))"
    ));
    assert!(holds("top_prob(1) - top_prob(2) >= 0"));
    let row = "blocks.0.attn.pattern[0, -1, :]";
    assert!(holds(&format!("max({row} * 100) == max({row}) * 100")));
    assert!(holds(&format!("sum(1 - {row}) == len({row}) - sum({row})")));
    assert!(holds(&format!(
        "max({row} - {row}) == 0 and max(-{row}) == -min({row})"
    )));
    assert!(holds(&format!("min(abs(-{row})) == min({row})")));
    let e = error(&format!("max({row} - blocks.0.attn.pattern[0, :, :]) > 0"));
    assert!(
        e.message.contains("entry by entry needs one shape"),
        "{}",
        e.message
    );
    assert!(e.message.contains("a tensor of shape"), "{}", e.message);
    assert!(e
        .hint
        .as_deref()
        .unwrap_or_default()
        .contains("reduce each to a number"));
}
