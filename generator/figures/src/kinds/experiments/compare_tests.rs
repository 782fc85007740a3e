//! Tests of `figure compare` on two synthetic prompts that differ in one token.

use super::render;
use crate::format::{percent, short};
use crate::testing::test_logits::{logits, lse};
use crate::testing::test_svg::{all_texts, texts_in};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{Figure, FigureError};
use std::collections::BTreeMap;

fn traces() -> TestTraces {
    TestTraces(BTreeMap::from([
        ("robots".to_string(), trace_of(&[10, 11, 12, 13])),
        ("peace".to_string(), trace_of(&[10, 3, 12, 13])),
        ("short".to_string(), trace_of(&[10, 11])),
    ]))
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    render(&options(&format!("prompt = \"robots\"\n{body}")), &traces())
}

#[test]
fn next_token_rows_carry_both_probabilities_and_the_change() {
    let figure = draw("other = \"short\"\nk = 2").unwrap();
    let texts = all_texts(&figure.svg);
    // "robots" ends with the synthetic logits; "short" ends with them too (its last row).
    let exact = |id: usize| (f64::from(logits()[id]) - lse(&logits())).exp();
    assert_eq!(texts_in(&figure.svg, "tbf-m")[..2], ["·light", "able"]);
    assert!(
        texts.iter().filter(|t| **t == percent(exact(9))).count() >= 2,
        "{texts:?}"
    );
    let changes = texts_in(&figure.svg, "tbf-s tbf-b");
    assert_eq!(changes, ["0.0", "0.0"]);
    assert!(
        figure.alt.contains("After A the likeliest is \" light\""),
        "{}",
        figure.alt
    );
}

#[test]
fn loss_compares_position_by_position() {
    let figure = draw("other = \"peace\"\nof = \"loss\"").unwrap();
    let labels = texts_in(&figure.svg, "tbf-m");
    assert_eq!(labels, ["·robots/·war", "·will", "·bring"]);
    let loss = |name: &str, i: usize| {
        let t = traces();
        f64::from(t.0[name].tensor("loss.per_token").unwrap().data[i])
    };
    let texts = all_texts(&figure.svg);
    assert!(texts.contains(&short(loss("robots", 0))) && texts.contains(&short(loss("peace", 0))));
    let change = loss("peace", 0) - loss("robots", 0);
    let shown = &texts_in(&figure.svg, "tbf-s tbf-b")[0];
    assert!(
        shown.ends_with(&format!("{:.2}", change.abs())),
        "{shown} vs {change}"
    );
}

#[test]
fn other_is_required_and_checked_like_prompt() {
    assert_eq!(draw("").unwrap_err().key.as_deref(), Some("other"));
    let error = draw("other = \"peac\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("other"));
    assert_eq!(error.hint.as_deref(), Some("did you mean `peace`?"));
    assert_eq!(
        draw("other = \"peace\"\nof = \"mlp\"")
            .unwrap_err()
            .key
            .as_deref(),
        Some("of")
    );
    assert_eq!(
        draw("other = \"peace\"\nk = 13")
            .unwrap_err()
            .key
            .as_deref(),
        Some("k")
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("other = \"peace\"\nk = 3").unwrap().svg);
}

#[test]
fn one_prompt_on_two_models_credits_both() {
    let mut other = trace_of(&[10, 11, 12, 13]);
    other.meta.model.id = "openai-community/gpt2".into();
    let mut traces = traces();
    traces.0.insert("robots_gpt2".into(), other);
    let figure = render(
        &options("prompt = \"robots\"\nother = \"robots_gpt2\""),
        &traces,
    )
    .unwrap();
    let own = trace_of(&[10]).meta.model.id;
    assert_eq!(figure.models, [own.clone(), "openai-community/gpt2".into()]);
    assert_eq!(
        figure.source.sentence(&figure.models),
        format!("Traced with <code>{own}</code> and <code>openai-community/gpt2</code>.")
    );
    let same = draw("other = \"peace\"").unwrap();
    assert_eq!(same.models, [own]);
}

/// One text on two models: each prompt is labelled by its model alone (the title gives the
/// text), the title and the alt text name both, and the caption credits both.
#[test]
fn one_text_on_two_models_names_each_model() {
    let mut traces = traces();
    let mut other = trace_of(&[10, 11, 12, 13]);
    other.meta.model.name = Some("tiny-llama".to_string());
    traces.0.insert("robots_llama".to_string(), other);
    let a_model = traces.0["robots"].meta.model.shown();
    let figure = render(
        &options("prompt = \"robots\"\nother = \"robots_llama\""),
        &traces,
    )
    .unwrap();
    let text = traces.0["robots"].meta.prompt.text.clone();
    let lines = all_texts(&figure.svg);
    assert!(lines.contains(&format!("A: {a_model}")), "{lines:?}");
    assert!(lines.contains(&"B: tiny-llama".to_string()), "{lines:?}");
    assert!(
        figure
            .svg
            .contains(&format!("“{text}” on {a_model} and tiny-llama")),
        "the title names both models"
    );
    assert!(figure.alt.contains("on tiny-llama"), "{}", figure.alt);
    assert_eq!(figure.models, [a_model, "tiny-llama".to_string()]);
}
