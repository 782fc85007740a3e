//! Tests of `figure attention` with `stack` on a synthetic encoder-decoder trace whose
//! self-attention rows are a softmax of known scores (see `test_seq2seq::self_row`).

use super::render;
use super::tests::{cells_by_class, printed};
use crate::testing::test_seq2seq::{self_row, self_score, seq2seq_trace, SOURCE, WRITTEN};
use crate::testing::test_traces::{group_texts, options, trace_of, TestTraces};
use crate::{Domain, Figure, FigureError, SharedScale};
use tracebook_trace::Trace;

fn draw_from(trace: Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(seq2seq_trace(), body)
}

/// The printed values, as numbers, row by row (scores are printed with "−" and "+").
fn numbers(figure: &Figure) -> Vec<f64> {
    printed(figure)
        .iter()
        .map(|v| v.replace('−', "-").trim_start_matches('+').parse().unwrap())
        .collect()
}

/// The row labels, then the column labels, leading spaces drawn as "·".
fn labels(figure: &Figure) -> (Vec<String>, Vec<String>) {
    let rows = group_texts(&figure.svg, "tbf-m\" font-size=\"12\" text-anchor=\"end");
    let cols = group_texts(&figure.svg, "tbf-m\" font-size=\"12\">");
    (rows, cols)
}

fn shown(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.replace(' ', "·")).collect()
}

/// The seq2seq trace with an encoder of one layer (the decoder keeps two).
fn one_encoder_layer() -> Trace {
    let mut trace = seq2seq_trace();
    trace
        .meta
        .model
        .config
        .seq2seq
        .as_mut()
        .unwrap()
        .encoder_layers = 1;
    trace
}

#[test]
fn the_encoder_fills_every_cell_and_each_row_sums_to_one() {
    let figure = draw("stack = \"encoder\"\nlayer = 1\nhead = 0").unwrap();
    let s = SOURCE.len();
    let drawn: usize = cells_by_class(&figure.svg).iter().map(|(_, n)| n).sum();
    assert_eq!(drawn, s * s, "nothing masked");
    let values = numbers(&figure);
    assert_eq!(values.len(), s * s);
    for (q, row) in values.chunks(s).enumerate() {
        for (k, (shown, exact)) in row.iter().zip(self_row(false, 1, 0, q)).enumerate() {
            assert!((shown - exact).abs() <= 0.005 + 1e-9, "{q},{k}: {shown}");
        }
        let sum: f64 = row.iter().sum();
        assert!((sum - 1.0).abs() <= 0.005 * s as f64, "row {q}: {sum}");
    }
    assert!(
        values[s - 1] > 0.0 && self_row(false, 1, 0, 0)[s - 1] > 0.01,
        "the first query sees the last key"
    );
    assert_eq!(labels(&figure), (shown(&SOURCE), shown(&SOURCE)));
    assert!(figure.svg.contains("data-tb-tok="), "the prompt's tokens");
}

#[test]
fn the_decoder_is_causal_over_the_tokens_it_read() {
    let figure = draw("stack = \"decoder\"\nlayer = 0\nhead = 1").unwrap();
    let t = WRITTEN.len();
    let drawn: usize = cells_by_class(&figure.svg).iter().map(|(_, n)| n).sum();
    assert_eq!(drawn, t * (t + 1) / 2, "future cells stay blank");
    let mut values = numbers(&figure).into_iter();
    for q in 0..t {
        let exact = self_row(true, 0, 1, q);
        for (k, exact) in exact.iter().enumerate().take(q + 1) {
            let shown = values.next().unwrap();
            assert!((shown - exact).abs() <= 0.005 + 1e-9, "{q},{k}: {shown}");
        }
    }
    assert_eq!(values.next(), None);
    let mut read = vec!["<pad>"];
    read.extend(&WRITTEN[..t - 1]);
    assert_eq!(labels(&figure), (shown(&read), shown(&read)));
    assert!(
        !figure.svg.contains("data-tb-tok="),
        "the decoder's positions are not the prompt's tokens"
    );
}

#[test]
fn scores_fill_the_encoder_and_the_decoder_masks_its_future() {
    let scores = draw("stack = \"encoder\"\nlayer = 0\nhead = 1\nstage = \"scores\"").unwrap();
    let values = numbers(&scores);
    assert_eq!(values.len(), SOURCE.len() * SOURCE.len());
    assert!((values[1] - self_score(false, 0, 1, 0, 1)).abs() <= 0.05 + 1e-9);
    let masked = draw("stack = \"decoder\"\nlayer = 1\nhead = 0\nstage = \"masked\"").unwrap();
    let t = WRITTEN.len();
    let minus = printed(&masked).iter().filter(|v| *v == "−∞").count();
    assert_eq!(minus, t * (t - 1) / 2);
}

#[test]
fn the_encoder_refuses_the_masked_stage() {
    let error = draw("stack = \"encoder\"\nlayer = 0\nhead = 0\nstage = \"masked\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stage"));
    assert!(error.message.contains("masks nothing"), "{}", error.message);
    assert!(error.hint.unwrap().contains("stage = \"scores\""));
}

#[test]
fn an_encoder_decoder_needs_a_stack_and_a_decoder_only_model_takes_none() {
    let error = draw("layer = 0\nhead = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(
        error.message.contains("encoder-decoder (marian)"),
        "{}",
        error.message
    );
    let hint = error.hint.unwrap();
    assert!(
        hint.contains("stack = \"encoder\" or stack = \"decoder\""),
        "{hint}"
    );
    assert!(hint.contains("`cross-attention`"), "{hint}");

    let body = "stack = \"decoder\"\nlayer = 0\nhead = 0";
    let error = draw_from(trace_of(&[10, 11, 12]), body).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(error.message.contains("one stack"), "{}", error.message);
    assert!(error.hint.unwrap().contains("leave `stack` out"));

    let error = draw("stack = \"encodr\"\nlayer = 0\nhead = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(error.hint.unwrap().starts_with("did you mean `encoder`?"));
}

#[test]
fn layers_and_heads_are_counted_in_the_chosen_stack() {
    let error = draw("stack = \"encoder\"\nlayer = 0\nhead = 2").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("head"));
    assert_eq!(
        error.message,
        "head = 2 is out of range: the encoder has 2 heads"
    );
    assert_eq!(error.hint.as_deref(), Some("heads are numbered 0 to 1"));
    let error = draw("stack = \"encoder\"\nhead = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));

    let body = |stack: &str| format!("stack = \"{stack}\"\nlayer = 1\nhead = 0");
    let error = draw_from(one_encoder_layer(), &body("encoder")).unwrap_err();
    assert_eq!(
        error.message,
        "layer = 1 is out of range: the encoder has 1 layers"
    );
    assert!(draw_from(one_encoder_layer(), &body("decoder")).is_ok());
}

#[test]
fn pickers_stay_within_the_stack() {
    let panels = |trace: Trace, body: &str| {
        let figure = draw_from(trace, body).unwrap();
        figure.svg.matches("data-tb-panel=").count()
    };
    let enc = "stack = \"encoder\"\nlayer = 0\nhead = 0\npickers = ";
    assert_eq!(panels(seq2seq_trace(), &format!("{enc}\"heads\"")), 2);
    assert_eq!(panels(seq2seq_trace(), &format!("{enc}\"all\"")), 4);
    assert_eq!(panels(one_encoder_layer(), &format!("{enc}\"layers\"")), 1);
    assert_eq!(panels(one_encoder_layer(), &format!("{enc}\"all\"")), 2);
    let dec = "stack = \"decoder\"\nlayer = 0\nhead = 0\npickers = \"all\"";
    assert_eq!(panels(one_encoder_layer(), dec), 4);
}

#[test]
fn title_and_alt_text_name_the_stack() {
    let figure = draw("stack = \"encoder\"\nlayer = 1\nhead = 0").unwrap();
    assert!(figure
        .svg
        .contains("Encoder layer 1, head 0: attention pattern"));
    assert!(
        figure
            .alt
            .starts_with("Encoder layer 1, head 0, over 4 tokens. Attention pattern"),
        "{}",
        figure.alt
    );
    assert!(figure.alt.contains("every source token"), "{}", figure.alt);
    let figure = draw("stack = \"decoder\"\nlayer = 0\nhead = 1\nstage = \"scores\"").unwrap();
    assert!(figure
        .svg
        .contains("Decoder layer 0, head 1: attention scores"));
    assert!(figure
        .alt
        .starts_with("Decoder layer 0, head 1, over 5 tokens."));
}

#[test]
fn a_shared_scale_covers_both_stacks() {
    let traces = TestTraces::with("p", seq2seq_trace());
    let body = |stack: &str| {
        options(&format!(
            "prompt = \"p\"\nstack = \"{stack}\"\nlayer = 1\nhead = 1\nstage = \"scores\"\nscale = \"s\""
        ))
    };
    let limit = |decoder: bool| {
        let n = if decoder { WRITTEN.len() } else { SOURCE.len() };
        (0..n)
            .flat_map(|q| (0..n).map(move |k| self_score(decoder, 1, 1, q, k).abs()))
            .fold(0.0, f64::max)
    };
    let domains: Vec<f64> = ["encoder", "decoder"]
        .iter()
        .map(
            |s| match crate::domain("attention", &body(s), &traces).unwrap() {
                Some(Domain::Signed { limit }) => limit,
                other => panic!("{other:?}"),
            },
        )
        .collect();
    assert!((domains[0] - limit(false)).abs() < 1e-5, "{domains:?}");
    assert!((domains[1] - limit(true)).abs() < 1e-5, "{domains:?}");
    let shared = SharedScale {
        name: "s".to_string(),
        domain: Domain::Signed {
            limit: domains[0].max(domains[1]),
        },
        figures: 2,
    };
    for stack in ["encoder", "decoder"] {
        let svg = crate::render_shared("attention", &body(stack), &traces, &shared)
            .unwrap()
            .svg;
        assert!(svg.contains("colour scale shared with 1 other figure"));
        let edge = crate::format::signed(domains[0].max(domains[1]), 1);
        assert!(svg.contains(&format!(">{edge}</text>")), "{stack}: {edge}");
    }
}

#[test]
fn encoder_snapshot() {
    insta::assert_snapshot!(
        draw("stack = \"encoder\"\nlayer = 1\nhead = 0")
            .unwrap()
            .svg
    );
}
