//! Tests of `figure gated-mlp` on the tiny Llama trace, whose MLP computes
//! SiLU(gate) × up from its RMSNorm.

use super::render;
use crate::format::{short, thousands};
use crate::testing::test_llama::{
    gate_up, llama_trace, norm_weight, resid_pre, rms, silu, D, INNER,
};
use crate::testing::test_svg::{all_texts, texts_in, texts_in_last};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::Trace;

fn draw(trace: Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

/// Gate, act, up and post of layer `layer` at the token `id`, computed afresh.
fn pass(layer: usize, id: u32) -> [Vec<f64>; 4] {
    let mid: Vec<f64> = resid_pre(layer, id).iter().map(|v| 0.8 * v - 0.1).collect();
    let s = rms(&mid);
    let normed: Vec<f64> = (0..D).map(|j| mid[j] / s * norm_weight(j)).collect();
    let (gate, up) = gate_up(layer, &normed);
    let act: Vec<f64> = gate.iter().map(|&g| silu(g)).collect();
    let post: Vec<f64> = act.iter().zip(&up).map(|(a, u)| a * u).collect();
    [gate, act, up, post]
}

#[test]
fn strips_are_gate_act_up_post_and_the_strongest_neurons_show_their_arithmetic() {
    // The last token of the prompt is vocabulary id 13.
    let figure = draw(llama_trace(), "layer = 1\ntop = 3").unwrap();
    assert_eq!(
        texts_in(&figure.svg, "tbf-m"),
        ["gate", "SiLU(gate)", "up", "post"]
    );
    let [gate, act, up, post] = pass(1, 13);
    let mut order: Vec<usize> = (0..INNER).collect();
    order.sort_by(|&a, &b| post[b].abs().total_cmp(&post[a].abs()));
    let texts = texts_in_last(&figure.svg, "tbf-s tbf-m");
    let lines: Vec<String> = texts.chunks(2).map(|pair| pair.join(" ")).collect();
    assert_eq!(lines.len(), 3);
    for (line, &n) in lines.iter().zip(&order) {
        assert_eq!(
            line,
            &format!(
                "{}: SiLU({}) = {} × {} = {}",
                thousands(n),
                short(gate[n]),
                short(act[n]),
                short(up[n]),
                short(post[n])
            )
        );
    }
    let texts = all_texts(&figure.svg).join("\n");
    assert!(
        texts.contains("8 → gate and up, 12 each → post → 8"),
        "{texts}"
    );
    assert!(
        figure
            .alt
            .contains(&format!("The strongest is neuron {}", order[0])),
        "{}",
        figure.alt
    );
}

#[test]
fn gemma_gates_through_gelu() {
    let mut trace = llama_trace();
    trace.meta.model.config.activation_function = "gelu_pytorch_tanh".into();
    trace.meta.model.config.model_type = Some("gemma".into());
    let figure = draw(trace, "layer = 0").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m")[1], "GELU(gate)");
}

#[test]
fn gpt2_is_refused_by_name() {
    let error = draw(tiny_trace(), "layer = 1").unwrap_err();
    assert!(
        error
            .message
            .starts_with("figure `gated-mlp` draws a gated MLP"),
        "{}",
        error.message
    );
    assert!(error.message.ends_with("see `mlp`"), "{}", error.message);
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(llama_trace(), "layer = 0\ndims = 12").unwrap().svg);
}
