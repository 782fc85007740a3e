//! Tests of `figure attention` on synthetic traces whose patterns are a causal softmax
//! of known scores (see `test_traces::score`).

use super::render;
use crate::testing::test_traces::{group_texts, options, pattern_row, score, trace_of, TestTraces};
use crate::{Figure, FigureError};

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(ids));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

/// Cells drawn per class: each cell is one `M` in its bin's path.
pub(super) fn cells_by_class(svg: &str) -> Vec<(String, usize)> {
    svg.split("<path ")
        .skip(1)
        .filter(|p| p.contains(" d=\"M") && !p.contains("stroke-width=\"10\""))
        .map(|p| {
            let class = p
                .split("class=\"")
                .nth(1)
                .map_or("masked", |c| c.split('"').next().unwrap());
            (
                class.to_string(),
                p.split('>').next().unwrap().matches('M').count(),
            )
        })
        .collect()
}

/// The printed cell values, row by row (values are in document order).
pub(super) fn printed(figure: &Figure) -> Vec<String> {
    let Some(start) = figure.svg.find("<g font-size=") else {
        return Vec::new();
    };
    let group = &figure.svg[start..];
    group[..group.find("</g>").unwrap()]
        .split("<text")
        .skip(1)
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string())
        .collect()
}

#[test]
fn the_pattern_draws_each_allowed_cell_in_the_bin_of_its_weight() {
    let figure = draw(&ROBOTS, "layer = 1\nhead = 1").unwrap();
    let mut expected = [0usize; 10];
    for q in 0..4 {
        for w in pattern_row(1, 1, q) {
            expected[((w * 10.0) as usize).min(9)] += 1;
        }
    }
    let drawn = cells_by_class(&figure.svg);
    let total: usize = drawn.iter().map(|(_, n)| n).sum();
    assert_eq!(total, 4 * 5 / 2, "future cells stay blank: {drawn:?}");
    for (class, n) in drawn {
        let bin: usize = class.trim_start_matches("tbf-u").parse().unwrap();
        assert_eq!(n, expected[bin], "bin {bin}");
    }
}

#[test]
fn printed_weights_are_the_traces_and_each_row_sums_to_one() {
    let figure = draw(&ROBOTS, "layer = 0\nhead = 1").unwrap();
    let values = printed(&figure);
    assert_eq!(values.len(), 10);
    let mut cells = values.iter().map(|v| v.parse::<f64>().unwrap());
    for q in 0..4 {
        let row: Vec<f64> = (0..=q).map(|_| cells.next().unwrap()).collect();
        let expected = pattern_row(0, 1, q);
        for (shown, exact) in row.iter().zip(&expected) {
            assert!(
                (shown - exact).abs() <= 0.005 + 1e-9,
                "row {q}: {shown} vs {exact}"
            );
        }
        assert!(
            (row.iter().sum::<f64>() - 1.0).abs() <= 0.005 * (q + 1) as f64,
            "row {q}: {row:?}"
        );
    }
}

#[test]
fn rows_and_columns_are_labelled_with_the_tokens() {
    let figure = draw(&ROBOTS, "layer = 0\nhead = 0").unwrap();
    let labels: Vec<Vec<String>> = figure
        .svg
        .match_indices("<g class=\"tbf-m\" font-size=")
        .map(|(i, _)| group_texts(&figure.svg[i..], "tbf-m"))
        .collect();
    let tokens = ["The", "·robots", "·will", "·bring"];
    assert_eq!(labels, [tokens, tokens]);
}

#[test]
fn scores_fill_every_cell_and_the_mask_marks_the_future() {
    let scores = draw(&ROBOTS, "layer = 1\nhead = 0\nstage = \"scores\"").unwrap();
    let drawn = cells_by_class(&scores.svg);
    assert_eq!(drawn.iter().map(|(_, n)| n).sum::<usize>(), 16);
    // The largest |score| sits at an end of the diverging ramp.
    let (q, k) = (0..4)
        .flat_map(|q| (0..4).map(move |k| (q, k)))
        .max_by(|a, b| {
            score(1, 0, a.0, a.1)
                .abs()
                .total_cmp(&score(1, 0, b.0, b.1).abs())
        })
        .unwrap();
    let end = if score(1, 0, q, k) > 0.0 {
        "tbf-v10"
    } else {
        "tbf-v0"
    };
    assert!(drawn.iter().any(|(class, _)| class == end), "{drawn:?}");

    let masked = draw(&ROBOTS, "layer = 1\nhead = 0\nstage = \"masked\"").unwrap();
    let drawn = cells_by_class(&masked.svg);
    assert_eq!(drawn.iter().find(|(c, _)| c == "masked").unwrap().1, 6);
    assert_eq!(printed(&masked).iter().filter(|v| *v == "−∞").count(), 6);
    assert!(masked.svg.contains(">masked: −∞</text>"));
}

#[test]
fn layer_head_stage_and_values_are_checked() {
    let error = draw(&ROBOTS, "layer = 2\nhead = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));
    assert_eq!(error.hint.as_deref(), Some("layers are numbered 0 to 1"));
    let error = draw(&ROBOTS, "layer = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("head"));
    let error = draw(&ROBOTS, "layer = 0\nhead = 0\nstage = \"patern\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stage"));
    assert!(error.hint.unwrap().starts_with("did you mean `pattern`?"));
    let long: Vec<u32> = (0..20).collect();
    let error = draw(&long, "layer = 0\nhead = 0\nvalues = true").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("values"));
    let error = draw(&ROBOTS, "layer = 0\nhaed = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("haed"));
    assert!(error.hint.unwrap().starts_with("did you mean `head`?"));
}

#[test]
fn long_prompts_show_their_last_24_tokens_with_a_note() {
    let ids: Vec<u32> = (0..30).map(|i| i % 40).collect();
    let figure = draw(&ids, "layer = 0\nhead = 0").unwrap();
    let drawn: usize = cells_by_class(&figure.svg).iter().map(|(_, n)| n).sum();
    assert_eq!(drawn, 24 * 25 / 2);
    assert!(figure
        .svg
        .contains(">showing the last 24 of 30 tokens</text>"));
    assert!(
        printed(&figure).is_empty(),
        "no values by default for long prompts"
    );
}

#[test]
fn alt_text_names_the_head_and_the_last_tokens_focus() {
    let figure = draw(&ROBOTS, "layer = 1\nhead = 1").unwrap();
    let last = pattern_row(1, 1, 3);
    let top = (0..4).max_by(|&a, &b| last[a].total_cmp(&last[b])).unwrap();
    let texts = ["The", " robots", " will", " bring"];
    assert!(figure
        .alt
        .starts_with("Layer 1, head 1, over 4 tokens. Attention pattern:"));
    let focus = format!(
        "The last token, \" bring\", attends most to {:?}",
        texts[top]
    );
    assert!(figure.alt.contains(&focus), "{}", figure.alt);
}

#[test]
fn output_is_byte_identical_across_renders() {
    let body = "layer = 1\nhead = 0\nstage = \"masked\"";
    assert_eq!(
        draw(&ROBOTS, body).unwrap().svg,
        draw(&ROBOTS, body).unwrap().svg
    );
}

#[test]
fn the_last_columns_slanted_label_is_inside_the_drawing() {
    // Thirteen tokens with their scores printed: the cells cannot shrink below a printed
    // number's width, so the grid and the last key's slanted label, " change", need more than
    // a phone-wide figure.
    let ids = [10, 11, 12, 13, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    let figure = draw(
        &ids,
        "layer = 0\nhead = 0\nstage = \"scores\"\nvalues = true",
    )
    .unwrap();
    assert_eq!(printed(&figure).len(), 13 * 13);
    let outside = crate::testing::test_svg::texts_outside(&figure.svg);
    assert_eq!(outside, [], "{}", figure.svg);
    // A small grid's figure, as narrow as its labels allow, holds them too.
    let figure = draw(&ROBOTS, "layer = 1\nhead = 1").unwrap();
    assert_eq!(crate::testing::test_svg::texts_outside(&figure.svg), []);
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(&ROBOTS, "layer = 1\nhead = 1").unwrap().svg);
}

#[test]
fn the_largest_grid_stays_small() {
    let ids: Vec<u32> = (0..40).collect();
    let svg = draw(&ids, "layer = 0\nhead = 0\nstage = \"scores\"")
        .unwrap()
        .svg;
    // 24×24 cells of about 12 bytes each, labels and two themes of colours, the labels'
    // data-tb-tok for the page's highlighting, and the full text of labels cut to fit a
    // phone-wide figure, each colour with the page's custom property that may replace it
    // (17.4 KB measured).
    assert!(svg.len() < 18_000, "{} bytes", svg.len());
}

#[test]
fn pickers_draw_every_head_of_the_layer_and_show_the_figures_own() {
    let figure = draw(&ROBOTS, "layer = 1\nhead = 1\npickers = \"heads\"").unwrap();
    let live = figure.live.as_deref().unwrap();
    assert!(live.contains("\"axes\":[[\"layer\",[1]],[\"head\",[0,1]]],\"start\":\"1 1\""));
    assert_eq!(figure.svg.matches("data-tb-panel=").count(), 2);
    assert_eq!(figure.svg.matches("display=\"none\"").count(), 1);
    assert!(figure.svg.contains("<g data-tb-panel=\"1 1\">"));
    // The shown panel is the figure without pickers.
    let alone = draw(&ROBOTS, "layer = 1\nhead = 1").unwrap();
    assert_eq!(alone.live, None);
    assert_eq!(figure.alt, alone.alt);
    let all = draw(&ROBOTS, "layer = 0\nhead = 0\npickers = \"all\"").unwrap();
    assert_eq!(all.svg.matches("data-tb-panel=").count(), 4);
}
