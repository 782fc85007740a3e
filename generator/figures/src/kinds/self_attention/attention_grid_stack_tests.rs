//! Tests of `figure attention-grid` with `stack` on the synthetic encoder-decoder trace, whose
//! self-attention rows are a softmax of known scores (see `test_seq2seq::self_row`).

use super::{read, render, Stack, View, KIND};
use crate::prompt::Prompt;
use crate::svg::Ramp;
use crate::testing::test_seq2seq::{self_row, seq2seq_trace, SOURCE, WRITTEN};
use crate::testing::test_svg::{cells, groups_texts, parse, texts_in};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{Figure, FigureError};
use std::collections::BTreeSet;
use tracebook_trace::Trace;

fn draw_from(trace: Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(seq2seq_trace(), body)
}

/// A drawn cell: its tile (in drawing order: layer rows, then heads), query row, key column
/// and colour class.
type Cell = (usize, usize, usize, String);

/// Each tile's top-left corner and the path data of its open cells (the tile's background),
/// in drawing order.
fn backgrounds(svg: &str) -> Vec<(f64, f64, String)> {
    let doc = parse(svg);
    let d = doc
        .descendants()
        .find(|n| n.has_tag_name("path") && n.attribute("d").is_some_and(|d| d.contains('Z')))
        .and_then(|n| n.attribute("d"))
        .unwrap()
        .to_string();
    d.split('M')
        .skip(1)
        .map(|tile| {
            let (corner, rest) = tile.split_once('h').unwrap();
            let (x, y) = corner.split_once(' ').unwrap();
            (x.parse().unwrap(), y.parse().unwrap(), format!("h{rest}"))
        })
        .collect()
}

/// Every cell of weight 0.1 or more drawn, `cell` wide, placed in the tile it lies in.
fn drawn(svg: &str, cell: f64) -> BTreeSet<Cell> {
    let tiles = backgrounds(svg);
    cells(svg, "tbf-u", cell)
        .into_iter()
        .map(|c| {
            let (tile, (x, y, _)) = tiles
                .iter()
                .enumerate()
                .filter(|(_, (x, y, _))| *x <= c.x + 1e-6 && *y <= c.y + 1e-6)
                .max_by(|a, b| (a.1 .1, a.1 .0).partial_cmp(&(b.1 .1, b.1 .0)).unwrap())
                .unwrap();
            let at = |d: f64| (d / cell).round() as usize;
            (tile, at(c.y - y), at(c.x - x), c.class)
        })
        .collect()
}

/// The cells the tiles of `layers` × `heads` should draw: every weight of 0.1 or more of
/// [`self_row`], the decoder's only up to the query.
fn expected(decoder: bool, layers: &[usize], heads: usize) -> BTreeSet<Cell> {
    let ramp = Ramp::unit();
    let n = if decoder { WRITTEN.len() } else { SOURCE.len() };
    let mut out = BTreeSet::new();
    for (row, &layer) in layers.iter().enumerate() {
        for head in 0..heads {
            for q in 0..n {
                for (k, w) in self_row(decoder, layer, head, q).into_iter().enumerate() {
                    let bin = ramp.bin_of_unit(w);
                    if bin > 0 && (!decoder || k <= q) {
                        out.insert((row * heads + head, q, k, ramp.class(bin)));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn encoder_tiles_fill_every_cell_with_the_encoders_weights() {
    let figure = draw("stack = \"encoder\"").unwrap();
    let s = SOURCE.len();
    let tiles = backgrounds(&figure.svg);
    assert_eq!(tiles.len(), 4, "2 encoder layers × 2 heads");
    let tile = tiles[1].0 - tiles[0].0 - 3.0;
    let cell = tile / s as f64;
    for (_, _, d) in &tiles {
        let side = crate::svg::number(tile, 1);
        assert!(
            d.starts_with(&format!("h{side}v{side}H")),
            "a full square: {d}"
        );
    }
    let cells = drawn(&figure.svg, cell);
    assert_eq!(cells, expected(false, &[0, 1], 2));
    assert!(
        cells.iter().any(|(_, q, k, _)| k > q),
        "keys after the query are drawn"
    );
    assert_eq!(
        texts_in(&figure.svg, "tbf-s tbf-dim"),
        ["0", "1", "L0", "L1"]
    );
    assert!(figure
        .svg
        .contains("rows: encoder layers 0–1; columns: heads 0–1"));
    assert!(figure
        .svg
        .contains(">Attention patterns of all 4 heads of the encoder</title>"));
}

#[test]
fn the_grid_reads_the_encoders_rows_which_sum_to_one() {
    let trace = seq2seq_trace();
    let prompt = Prompt {
        name: "p".to_string(),
        trace: &trace,
    };
    let view = View::of(&prompt, Some(Stack::Encoder), KIND).unwrap();
    let grid = read(&prompt, &view, None, 8).unwrap();
    assert!(!grid.causal);
    assert_eq!(grid.shown, [0, 1, 2, 3]);
    for (layer, pattern) in grid.patterns.iter().enumerate() {
        assert_eq!(pattern.shape, [2, SOURCE.len(), SOURCE.len()]);
        for head in 0..2 {
            for q in 0..SOURCE.len() {
                let row = pattern.row(&[head, q]);
                let sum: f64 = row.iter().sum();
                assert!((sum - 1.0).abs() < 1e-5, "{layer},{head},{q}: {sum}");
                for (w, exact) in row.iter().zip(self_row(false, layer, head, q)) {
                    assert!((w - exact).abs() < 1e-6);
                }
                assert!(
                    row[SOURCE.len() - 1] > 0.0,
                    "the first query sees the last key"
                );
            }
        }
    }
}

#[test]
fn decoder_tiles_are_causal_over_the_tokens_it_read_and_not_highlighted() {
    let figure = draw("stack = \"decoder\"\nlayer = 1").unwrap();
    let t = WRITTEN.len();
    let tiles = backgrounds(&figure.svg);
    assert_eq!(tiles.len(), 2);
    let cell: f64 = tiles[0].2[1..].split('v').next().unwrap().parse().unwrap();
    assert_eq!(
        tiles[0].2.matches('h').count(),
        t,
        "a staircase: {}",
        tiles[0].2
    );
    let cells = drawn(&figure.svg, cell);
    assert_eq!(cells, expected(true, &[1], 2));
    assert!(cells.iter().all(|(_, q, k, _)| k <= q));
    let mut read = vec!["<pad>"];
    read.extend(&WRITTEN[..t - 1]);
    let read: Vec<String> = read.iter().map(|t| t.replace(' ', "·")).collect();
    let labels = groups_texts(&figure.svg, "tbf-m");
    assert_eq!(labels[0], read);
    assert_eq!(labels[1], [read.clone(), read].concat());
    assert!(
        !figure.svg.contains("data-tb-tok="),
        "not the prompt's tokens"
    );
    assert!(!figure.svg.contains("data-tb-grid="));
    assert!(figure
        .svg
        .contains(">Attention patterns of every head in decoder layer 1</title>"));
    assert!(figure
        .alt
        .contains("heads) of the decoder over the last 5 tokens."));
    assert!(figure
        .alt
        .contains("attends to itself and the ones before it"));
    assert!(figure.svg.contains("the last 5 of 5 tokens"));
}

#[test]
fn encoder_labels_are_the_source_tokens_highlighted_with_the_prompts() {
    let figure = draw("stack = \"encoder\"\nlayer = 0").unwrap();
    let source: Vec<String> = SOURCE.iter().map(|t| t.replace(' ', "·")).collect();
    let labels = groups_texts(&figure.svg, "tbf-m");
    assert_eq!(labels[0], source);
    assert!(figure.svg.contains(r#"data-tb-tok="p:3">"#));
    assert!(figure.svg.contains(r#"data-tb-grid="p 0 4 "#));
    assert_eq!(texts_in(&figure.svg, "tbf-s tbf-dim"), ["head 0", "head 1"]);
    assert!(figure
        .svg
        .contains(">Attention patterns of every head in encoder layer 0</title>"));
    assert!(figure.alt.contains("Nothing is masked"), "{}", figure.alt);
    let row = self_row(false, 0, 1, 3);
    let top = (0..4).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap();
    let looks = format!("head 1 to {:?} ({:.2})", SOURCE[top], row[top]);
    assert!(figure.alt.contains(&looks), "{}", figure.alt);
    assert!(figure.alt.contains("The last token, \"</s>\""));
}

#[test]
fn an_encoder_decoder_needs_a_stack_and_a_decoder_only_model_takes_none() {
    let error = draw("layer = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(
        error
            .message
            .contains("figure `attention-grid` needs `stack`"),
        "{}",
        error.message
    );
    assert!(error.message.contains("encoder-decoder (marian)"));
    let hint = error.hint.unwrap();
    assert!(hint.contains("stack = \"encoder\" or stack = \"decoder\""));

    let error = draw_from(trace_of(&[10, 11, 12]), "stack = \"encoder\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(error.message.contains("one stack"), "{}", error.message);
    let hint = error.hint.unwrap();
    assert!(
        hint.contains("leave `stack` out: figure `attention-grid`"),
        "{hint}"
    );

    let error = draw("stack = \"decodr\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(error.hint.unwrap().starts_with("did you mean `decoder`?"));
}

/// The seq2seq trace with an encoder of one layer of three heads (the decoder keeps two of
/// two), its patterns uniform.
fn small_encoder() -> Trace {
    let mut meta = seq2seq_trace().meta.clone();
    let shape = meta.model.config.seq2seq.as_mut().unwrap();
    (shape.encoder_layers, shape.encoder_heads) = (1, 3);
    let mut trace = Trace::new(meta);
    let s = SOURCE.len();
    let uniform = vec![1.0 / s as f32; 3 * s * s];
    trace
        .insert("encoder.blocks.0.attn.pattern", vec![3, s, s], &uniform)
        .unwrap();
    let t = WRITTEN.len();
    for layer in 0..2 {
        let rows: Vec<f32> = (0..2)
            .flat_map(|h| (0..t).flat_map(move |q| self_row(true, layer, h, q)))
            .map(|w| w as f32)
            .collect();
        let name = format!("decoder.blocks.{layer}.self_attn.pattern");
        trace.insert(&name, vec![2, t, t], &rows).unwrap();
    }
    trace
}

#[test]
fn layers_and_heads_are_the_chosen_stacks() {
    let figure = draw_from(small_encoder(), "stack = \"encoder\"").unwrap();
    assert_eq!(
        texts_in(&figure.svg, "tbf-s tbf-dim"),
        ["head 0", "head 1", "head 2"]
    );
    assert_eq!(backgrounds(&figure.svg).len(), 3);
    assert!(figure
        .alt
        .starts_with("Attention patterns of 3 heads (1 layer × 3 heads)"));

    let error = draw_from(small_encoder(), "stack = \"encoder\"\nlayer = 1").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));
    assert_eq!(
        error.message,
        "layer = 1 is out of range: the encoder has 1 layers"
    );
    assert_eq!(error.hint.as_deref(), Some("layers are numbered 0 to 0"));

    let figure = draw_from(small_encoder(), "stack = \"decoder\"").unwrap();
    assert_eq!(
        texts_in(&figure.svg, "tbf-s tbf-dim"),
        ["0", "1", "L0", "L1"]
    );
    assert_eq!(backgrounds(&figure.svg).len(), 4);
    let error = draw("stack = \"decoder\"\nlayer = 2").unwrap_err();
    assert_eq!(
        error.message,
        "layer = 2 is out of range: the decoder has 2 layers"
    );
    let error = draw_from(trace_of(&[10, 11]), "layer = 2").unwrap_err();
    assert_eq!(
        error.message,
        "layer = 2 is out of range: the model has 2 layers"
    );
}
