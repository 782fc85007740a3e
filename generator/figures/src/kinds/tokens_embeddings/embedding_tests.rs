//! Tests of `figure embedding` on the synthetic forward pass (embeddings from `wte`).

use super::render;
use crate::format::short;
use crate::strip::norm;
use crate::svg::Ramp;
use crate::testing::test_forward::wte;
use crate::testing::test_svg::{cells, desc, parse, texts_in};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{Figure, FigureError};

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(ids));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

/// Widths of the strip frames: cells × cell width.
fn frame_widths(svg: &str) -> Vec<f64> {
    let doc = parse(svg);
    let group = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("tbf-o"))
        .unwrap();
    group
        .children()
        .filter(|n| n.has_tag_name("rect"))
        .map(|n| n.attribute("width").unwrap().parse().unwrap())
        .collect()
}

#[test]
fn one_strip_per_token_labelled_with_its_text_and_length() {
    let figure = draw(&ROBOTS, "").unwrap();
    let labels = texts_in(&figure.svg, "tbf-m");
    assert_eq!(labels, ["The", "·robots", "·will", "·bring"]);
    let lengths = texts_in(&figure.svg, "tbf-s");
    let expected: Vec<String> = ROBOTS.iter().map(|&id| short(norm(&wte(id)))).collect();
    assert_eq!(lengths, expected);
    assert!(figure.svg.contains(">all 8 dimensions</text>"));
}

#[test]
fn every_cell_is_coloured_by_its_value_on_a_shared_scale() {
    let figure = draw(&ROBOTS, "").unwrap();
    let cell = frame_widths(&figure.svg)[0] / 8.0;
    let drawn = cells(&figure.svg, "tbf-v", cell);
    assert_eq!(drawn.len(), 4 * 8);
    let values: Vec<Vec<f64>> = ROBOTS.iter().map(|&id| wte(id)).collect();
    let limit = values.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    let ramp = Ramp::signed();
    for (i, drawn_cell) in drawn.iter().enumerate() {
        let value = values[i / 8][i % 8];
        let expected = ramp.class(ramp.bin_of_signed(value / limit));
        assert_eq!(drawn_cell.class, expected, "token {} dim {}", i / 8, i % 8);
    }
}

#[test]
fn dims_and_spread_choose_the_dimensions() {
    let four = draw(&ROBOTS, "dims = 4").unwrap();
    let widths = frame_widths(&four.svg);
    assert_eq!(widths.len(), 4);
    let cell = widths[0] / 4.0;
    assert_eq!(cells(&four.svg, "tbf-v", cell).len(), 16);
    assert!(four.svg.contains(">dimensions 0–3 of 8</text>"));
    let spread = draw(&ROBOTS, "dims = 4\nspread = true").unwrap();
    assert!(spread
        .svg
        .contains(">4 of 8 dimensions, one in every 2</text>"));
    let error = draw(&ROBOTS, "dims = 9").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("dims"));
    assert_eq!(error.hint.as_deref(), Some("dims must be between 1 and 8"));
    assert_eq!(
        draw(&ROBOTS, "dim = 4").unwrap_err().key.as_deref(),
        Some("dim")
    );
}

#[test]
fn long_prompts_show_their_last_16_tokens() {
    let ids: Vec<u32> = (0..20).collect();
    let figure = draw(&ids, "").unwrap();
    assert_eq!(frame_widths(&figure.svg).len(), 16);
    assert!(figure
        .svg
        .contains(">showing the last 16 of 20 tokens</text>"));
}

#[test]
fn alt_text_states_the_matrix_and_the_lengths() {
    let figure = draw(&ROBOTS, "").unwrap();
    assert_eq!(desc(&figure.svg), figure.alt);
    assert!(
        figure.alt.starts_with(
            "Token embeddings of 4 tokens: each is a row of the 40 × 8 token embedding matrix"
        ),
        "{}",
        figure.alt
    );
    assert!(figure.alt.contains("Lengths range from"), "{}", figure.alt);
}

#[test]
fn a_trace_without_embeddings_is_an_error_about_the_prompt() {
    let meta = trace_of(&ROBOTS).meta;
    let traces = TestTraces::with("bare", tracebook_trace::Trace::new(meta));
    let error = render(&options("prompt = \"bare\""), &traces, None).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(error.message.contains("`embed`"), "{}", error.message);
}

#[test]
fn output_is_byte_identical_across_renders() {
    assert_eq!(
        draw(&ROBOTS, "").unwrap().svg,
        draw(&ROBOTS, "").unwrap().svg
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(&ROBOTS, "").unwrap().svg);
}
