//! Tests of `figure tokens` on synthetic traces.

use super::{render, WIDTH};
use crate::testing::test_traces::{
    group_texts, numbers, options, tiny_trace, trace_of, TestTraces,
};
use crate::Figure;

fn draw(ids: &[u32], body: &str) -> Figure {
    let traces = TestTraces::with("p", trace_of(ids));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces).unwrap()
}

#[test]
fn every_token_is_drawn_in_order_with_its_id() {
    let figure = draw(&[10, 11, 12, 13], "");
    assert_eq!(
        group_texts(&figure.svg, "tbf-m"),
        ["The", "·robots", "·will", "·bring"]
    );
    let ids = group_texts(&figure.svg, "tbf-s tbf-dim");
    assert_eq!(&ids[..4], ["10", "11", "12", "13"]);
    assert_eq!(numbers(&figure.svg, "<rect class=\"tbf-c", "x").len(), 4);
}

#[test]
fn leading_spaces_and_newlines_are_visible() {
    let figure = draw(&[10, 17, 18, 11], "");
    assert!(figure
        .svg
        .contains("<tspan class=\"tbf-ws\">·</tspan>robots</text>"));
    assert!(figure
        .svg
        .contains("<tspan class=\"tbf-dim\">⏎</tspan></text>"));
    assert!(figure
        .svg
        .contains("<tspan class=\"tbf-dim\">⏎⏎</tspan></text>"));
    let legend = crate::testing::test_svg::all_texts(&figure.svg)
        .pop()
        .unwrap();
    assert_eq!(
        legend,
        "· is a space, ⏎ a newline; below each token: its id"
    );
}

#[test]
fn hostile_token_texts_cannot_break_the_svg() {
    let figure = draw(&[19, 20, 21, 22, 23], "caption = \"</svg><script>\"");
    let svg = &figure.svg;
    assert!(!svg.contains("<script"), "{svg}");
    assert_eq!(svg.matches("</svg>").count(), 1);
    assert!(svg.contains("&lt;script&gt;") && svg.contains("&amp;amp;"));
    assert_eq!(
        group_texts(svg, "tbf-m"),
        ["·<script>", "&amp;", "\"", "'", "</svg>"]
    );
    assert_eq!(figure.caption.as_deref(), Some("</svg><script>"));
}

#[test]
fn long_prompts_wrap_onto_rows_inside_the_width() {
    let ids: Vec<u32> = (0..30).collect();
    let figure = draw(&ids, "");
    let xs = numbers(&figure.svg, "<rect class=\"tbf-c", "x");
    let widths = numbers(&figure.svg, "<rect class=\"tbf-c", "width");
    let ys = numbers(&figure.svg, "<rect class=\"tbf-c", "y");
    assert_eq!(xs.len(), 30);
    let mut rows = ys.clone();
    rows.dedup();
    assert!(rows.len() >= 3, "{rows:?}");
    assert!(ys.windows(2).all(|w| w[0] <= w[1]), "rows go down: {ys:?}");
    for (x, w) in xs.iter().zip(&widths) {
        assert!(*x >= 0.0 && x + w <= WIDTH, "box {x}+{w} leaves the figure");
    }
    let height: f64 = figure
        .svg
        .split("viewBox=\"0 0 376 ")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(height > *ys.last().unwrap() + 30.0);
}

#[test]
fn pieces_of_one_word_sit_closer_than_words() {
    // " un" "believ" "able" " the": one word in three pieces, then a new word.
    let figure = draw(&[14, 15, 16, 0], "");
    let xs = numbers(&figure.svg, "<rect class=\"tbf-c", "x");
    let widths = numbers(&figure.svg, "<rect class=\"tbf-c", "width");
    let gaps: Vec<f64> = (1..4).map(|i| xs[i] - xs[i - 1] - widths[i - 1]).collect();
    assert!(gaps[0] < 3.0 && gaps[1] < 3.0, "{gaps:?}");
    assert!(gaps[2] > 5.0, "{gaps:?}");
}

#[test]
fn spans_and_positions_are_optional() {
    let plain = draw(&[10, 11], "");
    assert!(!plain.svg.contains("0–3"));
    let figure = draw(&[10, 11], "spans = true\npositions = true");
    let small = group_texts(&figure.svg, "tbf-s tbf-dim");
    for label in ["0–3", "3–10", "0", "1", "10", "11"] {
        assert!(
            small.iter().any(|t| t == label),
            "{label} missing from {small:?}"
        );
    }
    assert_eq!(
        crate::testing::test_svg::all_texts(&figure.svg).pop().unwrap(),
        "· is a space; above each token: its position; below: its id and its bytes in the prompt, from–to (to not included)"
    );
}

#[test]
fn alt_text_lists_the_tokens_and_the_model_is_named() {
    let figure = draw(&[10, 11, 17], "");
    assert_eq!(
        figure.alt,
        "3 tokens: \"The\" (10), \" robots\" (11), \"\\n\" (17)."
    );
    assert!(figure
        .svg
        .contains(&format!(">{}</desc>", figure.alt.replace('&', "&amp;"))));
    assert_eq!(figure.models, ["test/tiny-gpt2"]);
}

#[test]
fn option_errors_name_their_key() {
    let traces = TestTraces::with("robots", tiny_trace());
    let error = render(&options("prompt = \"robots\"\nspan = true"), &traces).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("span"));
    assert!(error.hint.unwrap().starts_with("did you mean `spans`?"));
    let error = render(&options("prompt = \"robots\"\nspans = \"yes\""), &traces).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("spans"));
}

#[test]
fn output_is_byte_identical_across_renders() {
    let ids: Vec<u32> = (0..40).collect();
    assert_eq!(
        draw(&ids, "spans = true").svg,
        draw(&ids, "spans = true").svg
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(&[10, 11, 12, 13, 14, 15, 16, 17, 24, 25], "").svg);
}

#[test]
fn a_long_prompt_stays_small() {
    let ids: Vec<u32> = (0..200).map(|i| i % 40).collect();
    let svg = draw(&ids, "").svg;
    // About 220 bytes a token (40 of them the data-tb-tok on box and label that the page's
    // highlighting uses), plus the style sheet (45.5 KB when measured).
    assert!(svg.len() < 48_000, "{} bytes", svg.len());
}
