//! Tests of `figure cross-attention` on a synthetic encoder-decoder trace whose rows are a
//! softmax of known scores (see `test_seq2seq::cross_row`).

use super::render;
use crate::testing::test_seq2seq::{cross_row, seq2seq_trace, SOURCE, WRITTEN};
use crate::testing::test_traces::{group_texts, options, trace_of, TestTraces};
use crate::{Figure, FigureError};

fn draw_from(trace: tracebook_trace::Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(seq2seq_trace(), body)
}

/// The printed cell values, row by row.
fn printed(figure: &Figure) -> Vec<f64> {
    let start = figure.svg.find("<g font-size=").expect("printed values");
    let group = &figure.svg[start..];
    group[..group.find("</g>").unwrap()]
        .split("<text")
        .skip(1)
        .map(|t| {
            t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()]
                .parse()
                .unwrap()
        })
        .collect()
}

#[test]
fn rows_are_the_written_tokens_and_columns_the_source() {
    let figure = draw("layer = 1").unwrap();
    // Leading spaces are drawn as "·".
    let shown =
        |texts: &[&str]| -> Vec<String> { texts.iter().map(|t| t.replace(' ', "·")).collect() };
    let rows = group_texts(&figure.svg, "tbf-m\" font-size=\"12\" text-anchor=\"end");
    assert_eq!(rows, shown(&WRITTEN));
    let cols = group_texts(&figure.svg, "tbf-m\" font-size=\"12\">");
    assert_eq!(cols, shown(&SOURCE), "</s> included");
    assert!(figure.svg.contains("wrote ↓") && figure.svg.contains("source →"));
}

#[test]
fn the_default_is_the_mean_over_heads_every_cell_drawn() {
    let figure = draw("layer = 1").unwrap();
    let values = printed(&figure);
    assert_eq!(values.len(), WRITTEN.len() * SOURCE.len(), "no blank cells");
    for (t, row) in values.chunks(SOURCE.len()).enumerate() {
        let (h0, h1) = (cross_row(1, 0, t), cross_row(1, 1, t));
        for k in 0..SOURCE.len() {
            let mean = (h0[k] + h1[k]) / 2.0;
            assert!(
                (row[k] - mean).abs() <= 0.005 + 1e-9,
                "{t},{k}: {} vs {mean}",
                row[k]
            );
        }
        assert!(
            (row.iter().sum::<f64>() - 1.0).abs() <= 0.02,
            "row {t} sums to 1"
        );
    }
    assert_eq!(figure.svg, draw("layer = 1\nhead = \"mean\"").unwrap().svg);
}

#[test]
fn one_head_shows_its_own_weights() {
    let figure = draw("layer = 0\nhead = 1").unwrap();
    let row0 = &printed(&figure)[..SOURCE.len()];
    for (shown, exact) in row0.iter().zip(cross_row(0, 1, 0)) {
        assert!((shown - exact).abs() <= 0.005 + 1e-9);
    }
    assert!(figure.svg.contains("Layer 0, head 1: cross-attention"));
}

#[test]
fn title_and_alt_text_give_the_alignment() {
    let figure = draw("layer = 1").unwrap();
    assert!(figure.svg.contains("<title id=") || figure.svg.contains("<title"));
    assert!(figure
        .svg
        .contains("Layer 1, mean of 2 heads: cross-attention"));
    let alt = &figure.alt;
    assert!(alt.contains("\" fichier\" at \" file\""), "{alt}");
    assert!(alt.contains("\"impossible\" at \"cannot\""), "{alt}");
    assert!(alt.contains("\"</s>\" at \"</s>\""), "{alt}");
}

#[test]
fn a_decoder_only_trace_is_refused_with_its_model_type() {
    let error = draw_from(trace_of(&[10, 11, 12]), "layer = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(
        error.message.contains("decoder-only model"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("model_type gpt2"),
        "{}",
        error.message
    );
    let hint = error.hint.unwrap();
    assert!(hint.contains("Marian or BART"), "{hint}");
}

#[test]
fn layer_and_head_are_checked_like_attentions() {
    let error = draw("layer = 2").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));
    assert_eq!(error.hint.as_deref(), Some("layers are numbered 0 to 1"));
    let error = draw("head = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));
    let error = draw("layer = 0\nhead = 2").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("head"));
    assert_eq!(error.hint.as_deref(), Some("heads are numbered 0 to 1"));
    let error = draw("layer = 0\nhead = \"avg\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("head"));
    assert!(error.hint.unwrap().contains("head = \"mean\""));
}

#[test]
fn pickers_include_the_mean_among_the_heads() {
    let figure = draw("layer = 1\npickers = \"heads\"").unwrap();
    assert_eq!(figure.svg.matches("data-tb-panel=").count(), 3);
    assert_eq!(figure.svg.matches("display=\"none\"").count(), 2);
    assert!(
        figure.svg.contains("data-tb-panel=\"1 2\">"),
        "the mean is shown"
    );
    let live = figure.live.as_deref().unwrap();
    assert!(
        live.contains("[\"head\",[0,1,2],[\"0\",\"1\",\"mean\"]]"),
        "{live}"
    );
    let all = draw("layer = 0\nhead = 1\npickers = \"all\"").unwrap();
    assert_eq!(all.svg.matches("data-tb-panel=").count(), 6);
}

#[test]
fn values_can_be_turned_off() {
    let figure = draw("layer = 1\nvalues = false").unwrap();
    assert!(!figure.svg.contains("<g font-size="));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("layer = 1").unwrap().svg);
}

#[test]
fn a_kind_that_draws_decoder_only_tensors_refuses_an_encoder_decoder_trace_by_name() {
    let traces = TestTraces::with("p", seq2seq_trace());
    let table = options("prompt = \"p\"\nlayer = 1\nhead = 0");
    let error = crate::render("attention-steps", &table, &traces)
        .err()
        .unwrap();
    assert!(
        error.message.contains("encoder-decoder (marian)"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("`attention-steps`"),
        "{}",
        error.message
    );
    assert!(error.hint.unwrap().contains("cross-attention"));
    // The source's tokens still draw.
    let tokens = options("prompt = \"p\"");
    assert!(crate::render("tokens", &tokens, &traces).is_ok());
}
