//! Tests of `figure mlp` on the synthetic forward pass (mlp.post = GELU(mlp.pre)).

use super::render;
use crate::format::{percent, short};
use crate::testing::test_svg::{all_texts, parse, texts_in};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{Figure, FigureError};

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(&ROBOTS));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

/// Row `t` of a T×32 tensor of the synthetic trace.
fn row(name: &str, t: usize) -> Vec<f64> {
    let tensor = trace_of(&ROBOTS).tensor(name).unwrap();
    tensor.data[t * 32..(t + 1) * 32]
        .iter()
        .map(|&v| f64::from(v))
        .collect()
}

#[test]
fn the_top_neurons_are_the_most_active_after_gelu() {
    let figure = draw("layer = 1\ntoken = 2\ntop = 5").unwrap();
    let post = row("blocks.1.mlp.post", 2);
    let pre = row("blocks.1.mlp.pre", 2);
    let mut order: Vec<usize> = (0..32).collect();
    order.sort_by(|&a, &b| post[b].total_cmp(&post[a]));
    let labels: Vec<String> = order[..5].iter().map(|i| format!("neuron {i}")).collect();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), labels);
    let texts = all_texts(&figure.svg);
    let first = format!("{} (from {})", short(post[order[0]]), short(pre[order[0]]));
    assert!(texts.contains(&first), "{texts:?}");
    let doc = parse(&figure.svg);
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("circle"))
            .count(),
        5
    );
}

#[test]
fn the_share_of_neurons_left_off_is_counted() {
    let figure = draw("layer = 0").unwrap();
    let post = row("blocks.0.mlp.post", 3);
    let off = post.iter().filter(|v| v.abs() < 0.05).count();
    let expected = format!(
        "{} of the neurons are nearly off after GELU (|value| < 0.05)",
        percent(off as f64 / 32.0)
    );
    assert!(all_texts(&figure.svg).contains(&expected));
    assert!(
        figure.alt.contains(&format!("{off} of 32 neurons")),
        "{}",
        figure.alt
    );
}

#[test]
fn the_diagram_has_the_real_sizes_and_the_histogram_every_neuron() {
    let figure = draw("layer = 0").unwrap();
    let texts = all_texts(&figure.svg);
    for expected in [
        "8",
        "32",
        "× W_in",
        "GELU",
        "× W_out",
        "W_in is 8 × 32, W_out 32 × 8, each with a bias",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "{expected} in {texts:?}"
        );
    }
    let doc = parse(&figure.svg);
    let bars = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("tbf-hist"))
        .unwrap();
    let heights: Vec<f64> = bars
        .attribute("d")
        .unwrap()
        .split("v-")
        .skip(1)
        .map(|h| h.split('M').next().unwrap().parse().unwrap())
        .collect();
    assert!(!heights.is_empty() && heights.len() <= 48);
    assert_eq!(heights.iter().fold(0.0f64, |m, &h| m.max(h)), 88.0);
}

#[test]
fn options_are_checked() {
    assert_eq!(draw("").unwrap_err().key.as_deref(), Some("layer"));
    assert_eq!(
        draw("layer = 0\ntop = 17").unwrap_err().key.as_deref(),
        Some("top")
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("layer = 1\ntop = 3").unwrap().svg);
}
