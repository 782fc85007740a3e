//! Tests of `figure layernorm` on the synthetic forward pass (γ = 1, β = 0, so the
//! output has mean 0 and standard deviation 1 up to epsilon).

use super::render;
use crate::format::short;
use crate::testing::test_forward::stats;
use crate::testing::test_svg::{all_texts, texts_in, texts_in_last};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{Figure, FigureError};

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(&ROBOTS));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

fn row(name: &str, t: usize) -> Vec<f64> {
    let tensor = trace_of(&ROBOTS).tensor(name).unwrap();
    tensor.data[t * 8..(t + 1) * 8]
        .iter()
        .map(|&v| f64::from(v))
        .collect()
}

#[test]
fn before_and_after_carry_their_mean_and_std() {
    let figure = draw("layer = 1\ntoken = 1").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), ["before", "after"]);
    let (mean, std) = stats(&row("blocks.1.resid_pre", 1));
    let summaries = texts_in_last(&figure.svg, "tbf-s");
    assert_eq!(summaries[0], format!("μ {} σ {}", short(mean), short(std)));
    // The synthetic LayerNorm has γ = 1 and β = 0.
    assert_eq!(summaries[1], "μ 0.00 σ 1.00");
    assert!(
        figure.alt.contains("before attention in layer 1"),
        "{}",
        figure.alt
    );
}

#[test]
fn ln2_and_the_final_norm_read_their_own_inputs() {
    let ln2 = draw("layer = 0\nnorm = \"ln2\"").unwrap();
    let (mean, _) = stats(&row("blocks.0.resid_mid", 3));
    assert!(texts_in_last(&ln2.svg, "tbf-s")[0].starts_with(&format!("μ {}", short(mean))));
    assert!(ln2.alt.contains("before the MLP in layer 0"));
    let last = draw("norm = \"final\"").unwrap();
    let (mean, _) = stats(&row("blocks.1.resid_post", 3));
    assert!(texts_in_last(&last.svg, "tbf-s")[0].starts_with(&format!("μ {}", short(mean))));
    assert!(last.alt.starts_with("The LayerNorm after the last layer"));
    let error = draw("norm = \"final\"\nlayer = 1").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));
    assert_eq!(
        draw("norm = \"ln1\"").unwrap_err().key.as_deref(),
        Some("layer")
    );
}

#[test]
fn histograms_count_every_value() {
    let figure = draw("layer = 0").unwrap();
    let texts = all_texts(&figure.svg);
    let titles: Vec<&String> = texts.iter().filter(|t| t.contains(": 8 values")).collect();
    assert_eq!(titles.len(), 2, "{texts:?}");
    assert!(titles[0].starts_with("before: 8 values · μ "));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("layer = 1\ndims = 4").unwrap().svg);
}
