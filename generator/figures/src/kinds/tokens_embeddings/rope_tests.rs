//! Tests of `figure rope` on the tiny Llama trace, whose q and k were turned by
//! position × 1000^(−2i/8): what the figure reads back must be those angles, and its scores
//! those of the vectors turned directly.

use super::{read, render, Of};
use crate::format::small;
use crate::options::Layer;
use crate::prompt::Prompt;
use crate::testing::test_llama::{frequency, llama_trace, llama_trace_of, rotate, unrotated, DH};
use crate::testing::test_svg::all_texts;
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::Trace;

fn draw(trace: Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn the_angles_read_from_the_trace_are_the_ones_it_was_turned_by() {
    let trace = llama_trace();
    let prompt = Prompt {
        name: "p".into(),
        trace: &trace,
    };
    let rope = read(&prompt, Layer(1), 2, 3, (Of::Q, 1)).unwrap();
    for i in 0..DH / 2 {
        assert!(
            (rope.turns.theta[i] - frequency(i)).abs() < 1e-6,
            "pair {i}"
        );
        assert!(rope.turns.resolved[i]);
    }
    // Position 3 turned pair 0 by 3 rad, within (−π, π] as read.
    assert!((rope.turns.at[3][0] - 3.0).abs() < 1e-5);
    // Panel b: head 2's pair 1 at position 2, before and after.
    let (before, after) = rope.arrows[2];
    let raw = unrotated(0, 1, 2, 2);
    let turned = rotate(&raw, 2);
    assert!((before.0 - raw[1]).abs() < 1e-6 && (before.1 - raw[5]).abs() < 1e-6);
    assert!((after.0 - turned[1]).abs() < 1e-6 && (after.1 - turned[5]).abs() < 1e-6);
}

#[test]
fn scores_depend_only_on_the_distance_and_match_the_vectors_turned_directly() {
    let trace = llama_trace();
    let prompt = Prompt {
        name: "p".into(),
        trace: &trace,
    };
    // Query head 3 reads key/value head 1; token 2's query and key.
    let rope = read(&prompt, Layer(0), 3, 2, (Of::K, 0)).unwrap();
    assert_eq!(rope.kv, 1);
    let (q, k) = (unrotated(0, 0, 3, 2), unrotated(1, 0, 1, 2));
    let root = (DH as f64).sqrt();
    let mut at = 0;
    for m in 0..4 {
        for n in 0..=m {
            let direct = dot(&rotate(&q, m), &rotate(&k, n)) / root;
            assert_eq!(rope.scores.dots[at].0, m - n);
            assert!((rope.scores.dots[at].1 - direct).abs() < 1e-5, "({m}, {n})");
            assert!(
                (rope.scores.curve[m - n] - direct).abs() < 1e-5,
                "({m}, {n})"
            );
            at += 1;
        }
    }
    assert_eq!(rope.scores.dots.len(), 10);
    assert!(rope.scores.worst < 1e-5);
}

#[test]
fn the_figure_names_the_traced_angles_and_the_formula() {
    let figure = draw(llama_trace(), "layer = 1\nhead = 0\npair = 2").unwrap();
    assert!(
        figure
            .alt
            .contains(&format!("pair 0 by {} radians", small(frequency(0)))),
        "{}",
        figure.alt
    );
    assert!(
        figure
            .alt
            .contains(&format!("pair 3 by {}", small(frequency(3)))),
        "{}",
        figure.alt
    );
    assert!(figure.alt.contains("rope_theta 1,000"), "{}", figure.alt);
    let texts = all_texts(&figure.svg).join("\n");
    assert!(
        texts.contains("b · pair 2 (dims 2, 6) of head 0's q"),
        "{texts}"
    );
    assert!(texts.contains("ringed: pair 2"), "{texts}");
    assert!(
        texts.contains("10 pairs m ≥ n of the first 4 positions"),
        "{texts}"
    );
    for p in 0..4 {
        assert!(texts.contains(&format!("p {p}")), "{texts}");
    }
}

#[test]
fn gpt2_is_refused_by_name() {
    let error = draw(tiny_trace(), "layer = 1\nhead = 0").unwrap_err();
    assert_eq!(
        error.message,
        "figure `rope` draws rotary position embeddings (RoPE); the model test/tiny-gpt2 that \
         made this trace is a gpt2 model: GPT-2 has learned positions, no rotation; see \
         `positional`"
    );
}

#[test]
fn a_pair_past_the_head_and_a_one_token_prompt_are_errors() {
    let error = draw(llama_trace(), "layer = 0\nhead = 0\npair = 4").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("pair"));
    assert!(error.message.contains("has 4 pairs"), "{}", error.message);
    let error = draw(llama_trace_of(&[10]), "layer = 0\nhead = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    let error = draw(llama_trace(), "head = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(llama_trace(), "layer = 1\nhead = 1").unwrap().svg);
}

#[test]
fn dots_off_the_formula_are_put_down_to_rope_scaling_and_only_then() {
    let plain = draw(llama_trace(), "layer = 0\nhead = 0").unwrap();
    assert!(!plain.alt.contains("rope scaling"), "{}", plain.alt);
    // The same angles against a config that claims a larger base, as a scaled model's
    // config does: its traced frequencies are off the plain formula.
    let mut trace = llama_trace();
    trace.meta.model.config.rope_theta = Some(10_000.0);
    let scaled = draw(trace, "layer = 0\nhead = 0").unwrap();
    assert!(
        scaled.alt.contains("as the model's rope scaling sets them"),
        "{}",
        scaled.alt
    );
    let texts = all_texts(&scaled.svg).join(" ");
    assert!(
        texts.contains("dots off the line: the model scales"),
        "{texts}"
    );
}
