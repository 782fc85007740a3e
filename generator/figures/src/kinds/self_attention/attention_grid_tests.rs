//! Tests of `figure attention-grid` on the synthetic patterns (`test_traces::pattern_row`).

use super::render;
use crate::svg::Ramp;
use crate::testing::test_svg::{cells, groups_texts, texts_in, texts_outside};
use crate::testing::test_traces::{options, pattern_row, trace_of, TestTraces};
use crate::{Figure, FigureError};

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(ids));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

/// The cell size: the first step of the first causal triangle (`M x y h c v c ...`).
fn cell_size(svg: &str) -> f64 {
    let d = svg.split("d=\"M").nth(1).unwrap();
    d.split('h')
        .nth(1)
        .unwrap()
        .split('v')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Bins of every weight of at least 0.1 in the lower triangles of `layers` × 2 heads, over
/// the token positions `shown`.
fn expected_bins(layers: &[usize], shown: &[usize]) -> Vec<String> {
    let ramp = Ramp::unit();
    let mut bins = Vec::new();
    for &layer in layers {
        for head in 0..2 {
            for &q in shown {
                let row = pattern_row(layer, head, q);
                for &k in shown.iter().filter(|&&k| k <= q) {
                    let bin = ramp.bin_of_unit(row[k]);
                    if bin > 0 {
                        bins.push(ramp.class(bin));
                    }
                }
            }
        }
    }
    bins.sort();
    bins
}

#[test]
fn one_layer_draws_a_titled_tile_per_head_with_its_weights() {
    let figure = draw(&ROBOTS, "layer = 1").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-s tbf-dim"), ["head 0", "head 1"]);
    let cell = cell_size(&figure.svg);
    let mut drawn: Vec<String> = cells(&figure.svg, "tbf-u", cell)
        .into_iter()
        .map(|c| c.class)
        .collect();
    drawn.sort();
    assert_eq!(drawn, expected_bins(&[1], &[0, 1, 2, 3]));
}

#[test]
fn without_a_layer_every_layer_is_a_row_of_heads() {
    let figure = draw(&ROBOTS, "").unwrap();
    let labels = texts_in(&figure.svg, "tbf-s tbf-dim");
    assert_eq!(labels, ["0", "1", "L0", "L1"]);
    let cell = cell_size(&figure.svg);
    let mut drawn: Vec<String> = cells(&figure.svg, "tbf-u", cell)
        .into_iter()
        .map(|c| c.class)
        .collect();
    drawn.sort();
    assert_eq!(drawn, expected_bins(&[0, 1], &[0, 1, 2, 3]));
    // One causal triangle per tile.
    let triangles = figure.svg.matches('Z').count();
    assert_eq!(triangles, 4);
}

#[test]
fn tokens_keeps_the_first_and_the_last_ones() {
    let ids: Vec<u32> = (0..10).collect();
    let figure = draw(&ids, "layer = 0\ntokens = 3").unwrap();
    let cell = cell_size(&figure.svg);
    let mut drawn: Vec<String> = cells(&figure.svg, "tbf-u", cell)
        .into_iter()
        .map(|c| c.class)
        .collect();
    drawn.sort();
    assert_eq!(drawn, expected_bins(&[0], &[0, 8, 9]));
    assert!(figure
        .svg
        .contains("the first token, then the last 2 of 10"));
    assert!(figure.alt.contains("over the first and the last 2 tokens"));
    // Highlighting covers the run of the last tokens, one cell in from the tile's corner.
    let marker = figure.svg.split("data-tb-grid=\"").nth(1).unwrap();
    let fields: Vec<f64> = marker
        .split('"')
        .next()
        .unwrap()
        .split(' ')
        .skip(1)
        .map(|f| f.parse().unwrap())
        .collect();
    let corner: Vec<f64> = figure
        .svg
        .split("d=\"M")
        .nth(1)
        .unwrap()
        .split('h')
        .next()
        .unwrap()
        .split(' ')
        .map(|f| f.parse().unwrap())
        .collect();
    assert!(marker.starts_with("p 8 2 "), "{marker}");
    assert_eq!(fields[2..], [corner[0] + cell, corner[1] + cell, cell]);
    // When everything fits, no token is set apart.
    let all = draw(&ids[..3], "layer = 0\ntokens = 3").unwrap();
    assert!(all.svg.contains("the last 3 of 3 tokens"));
    assert_eq!(
        draw(&ids, "tokens = 25").unwrap_err().key.as_deref(),
        Some("tokens")
    );
}

#[test]
fn alt_text_counts_head_shapes_and_says_where_the_last_token_looks() {
    let figure = draw(&ROBOTS, "layer = 0").unwrap();
    let mean_first = |layer: usize, head: usize| {
        (1..4).map(|q| pattern_row(layer, head, q)[0]).sum::<f64>() / 3.0
    };
    let first = (0..2).filter(|&h| mean_first(0, h) > 0.5).count();
    assert!(
        figure.alt.contains(&format!(
            " {first} put most of their weight on the first token"
        )),
        "{}",
        figure.alt
    );
    let row = pattern_row(0, 1, 3);
    let top = (0..4).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap();
    let texts = ["The", " robots", " will", " bring"];
    let expected = format!("head 1 to {:?} ({:.2})", texts[top], row[top]);
    assert!(figure.alt.contains(&expected), "{}", figure.alt);
}

#[test]
fn tokens_label_the_queries_of_each_row_of_tiles_and_the_keys_of_each_column() {
    let robots = ["The", "·robots", "·will", "·bring"];
    // One layer: its two heads side by side, so one row of query labels and two of keys.
    let figure = draw(&ROBOTS, "layer = 1").unwrap();
    let labels = groups_texts(&figure.svg, "tbf-m");
    assert_eq!(labels[0], robots);
    assert_eq!(labels[1], [robots, robots].concat());
    assert!(figure.svg.contains(r#"data-tb-tok="p:1">"#));
    // Every layer: a row of query labels per layer, keys under the last layer's tiles.
    let figure = draw(&ROBOTS, "").unwrap();
    let labels = groups_texts(&figure.svg, "tbf-m");
    assert_eq!(labels[0], [robots, robots].concat());
    assert_eq!(labels[1], [robots, robots].concat());
}

#[test]
fn thin_cells_label_every_few_tokens_counting_back_from_the_last() {
    let ids: Vec<u32> = (0..30).collect();
    let figure = draw(&ids, "layer = 0\ntokens = 24").unwrap();
    let cell = cell_size(&figure.svg);
    let labelled = super::axes::LABELLED_CELL;
    assert!(cell < labelled, "{cell}");
    let every = (labelled / cell).ceil() as usize;
    let per_axis = 24usize.div_ceil(every);
    let labels = groups_texts(&figure.svg, "tbf-m");
    assert_eq!(labels[0].len(), per_axis);
    assert_eq!(labels[1].len(), 2 * per_axis);
    let tokens = trace_of(&ids).meta.tokens;
    let last = crate::token_text::visible(&tokens[29].text);
    assert_eq!(labels[0].last(), Some(&last));
}

#[test]
fn the_last_key_label_turned_upright_is_inside_the_drawing() {
    // Thin cells for any token count: the last key's label, set right of its column's
    // middle, reaches past the tile; the figure makes room for it.
    let ids: Vec<u32> = (0..30).collect();
    for tokens in 12..=24 {
        let figure = draw(&ids, &format!("layer = 0\ntokens = {tokens}")).unwrap();
        let outside = texts_outside(&figure.svg);
        assert_eq!(outside, [], "tokens = {tokens}");
    }
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(&ROBOTS, "").unwrap().svg);
}
