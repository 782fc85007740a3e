//! Tests of `figure qkv` on the synthetic forward pass.

use super::render;
use crate::format::short;
use crate::strip::norm;
use crate::testing::test_forward::{key, query, value};
use crate::testing::test_svg::{all_texts, texts_in, texts_in_last};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{Figure, FigureError};

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(&ROBOTS));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

#[test]
fn strips_show_x_and_the_tokens_query_key_and_value_over_all_heads() {
    let figure = draw("layer = 1\ntoken = 2").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), ["x", "q", "k", "v"]);
    let both = |f: fn(usize, usize, usize) -> [f64; 4]| -> Vec<f64> {
        f(1, 0, 2).into_iter().chain(f(1, 1, 2)).collect()
    };
    let trace = trace_of(&ROBOTS);
    let x = trace.tensor("blocks.1.ln1.normalized").unwrap().data[16..24]
        .iter()
        .map(|&v| f64::from(v))
        .collect::<Vec<_>>();
    let expected = [
        short(norm(&x)),
        short(norm(&both(query))),
        short(norm(&both(key))),
        short(norm(&both(value))),
    ];
    assert_eq!(texts_in_last(&figure.svg, "tbf-s"), expected);
}

#[test]
fn the_diagram_states_the_real_sizes() {
    let figure = draw("layer = 0").unwrap();
    let texts = all_texts(&figure.svg);
    assert_eq!(texts.iter().filter(|t| *t == "4 × 8").count(), 4);
    for label in ["× W_Q", "× W_K", "× W_V", "x", "Q", "K", "V"] {
        assert!(texts.iter().any(|t| t == label), "{label} in {texts:?}");
    }
    assert!(texts.iter().any(|t| t.starts_with("each W is 8 × 8")));
    assert!(texts.iter().any(|t| t.starts_with("·bring (token 3)")));
    assert!(
        figure.alt.contains("split into 2 heads of 4"),
        "{}",
        figure.alt
    );
}

#[test]
fn layer_is_required_and_token_in_range() {
    assert_eq!(draw("").unwrap_err().key.as_deref(), Some("layer"));
    assert_eq!(draw("layer = 2").unwrap_err().key.as_deref(), Some("layer"));
    assert_eq!(
        draw("layer = 0\ntoken = 4").unwrap_err().key.as_deref(),
        Some("token")
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("layer = 1\ndims = 6").unwrap().svg);
}
