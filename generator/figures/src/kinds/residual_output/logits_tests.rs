//! Tests of `figure logits` on synthetic traces: the logits drawn are the trace's, the
//! probabilities a softmax over all of them computed here independently.

use super::render;
use crate::format::{percent, signed};
use crate::testing::test_logits::{insert_logits, logits, lse, order};
use crate::testing::test_svg::groups_texts;
use crate::testing::test_traces::{
    group_texts, numbers, options, tiny_trace, trace_of, TestTraces, VOCAB,
};
use crate::{Figure, FigureError};

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("robots", tiny_trace());
    render(&options(&format!("prompt = \"robots\"\n{body}")), &traces)
}

/// A two-token prompt whose last-position logits are `last`.
fn draw_last(last: &[f32], body: &str) -> Figure {
    let meta = trace_of(&[10, 11]).meta;
    let mut trace = tracebook_trace::Trace::new(meta);
    insert_logits(&mut trace, 2, last);
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces).unwrap()
}

/// The numbers after the logit bars and after the probability bars.
fn columns(figure: &Figure) -> (Vec<String>, Vec<String>) {
    let mut groups = groups_texts(&figure.svg, "tbf-s").into_iter();
    (groups.next().unwrap(), groups.next().unwrap())
}

/// Widths of the bars of the first (logit) column, in row order.
fn logit_bar_widths(figure: &Figure) -> Vec<f64> {
    let start = figure.svg.find("<g class=\"tbf-bar2\">").unwrap();
    let light = &figure.svg[start..];
    let light = numbers(&light[..light.find("</g>").unwrap()], "<rect", "width");
    let start = figure.svg.find("<g class=\"tbf-bar\">").unwrap();
    let strong = &figure.svg[start..];
    let strong = numbers(&strong[..strong.find("</g>").unwrap()], "<rect", "width");
    [strong, light].concat()
}

#[test]
fn each_candidate_has_its_logit_and_its_softmax_probability() {
    let figure = draw("").unwrap();
    let row = logits();
    let total = lse(&row);
    let top = &order(&row)[..8];
    let (logit_texts, percents) = columns(&figure);
    let expected_logits: Vec<String> = top.iter().map(|&i| signed(f64::from(row[i]), 2)).collect();
    let expected_percents: Vec<String> = top
        .iter()
        .map(|&i| percent((f64::from(row[i]) - total).exp()))
        .collect();
    assert_eq!(logit_texts, expected_logits);
    assert_eq!(percents, expected_percents);
    assert_eq!(group_texts(&figure.svg, "tbf-m").len(), 8);
    assert!(
        figure.alt.contains("after \"The robots will bring\""),
        "{}",
        figure.alt
    );
}

#[test]
fn logit_bars_keep_the_differences_between_logits() {
    let figure = draw("").unwrap();
    let row = logits();
    let top: Vec<f64> = order(&row)[..8]
        .iter()
        .map(|&i| f64::from(row[i]))
        .collect();
    let widths = logit_bar_widths(&figure);
    assert_eq!(widths.len(), 8);
    let per_unit = (widths[0] - widths[7]) / (top[0] - top[7]);
    for (w, l) in widths.iter().zip(&top) {
        let expected = widths[0] - (top[0] - l) * per_unit;
        assert!((w - expected).abs() < 0.15, "{w} vs {expected}");
    }
    assert!(widths[7] > 1.0, "the smallest bar is not a sliver");
}

#[test]
fn adding_a_number_to_every_logit_changes_no_probability() {
    let base: Vec<f32> = (0..VOCAB).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
    let shifted: Vec<f32> = base.iter().map(|l| l - 90.0).collect();
    let (a, b) = (draw_last(&base, "k = 5"), draw_last(&shifted, "k = 5"));
    let ((logits_a, probs_a), (logits_b, probs_b)) = (columns(&a), columns(&b));
    assert_eq!(probs_a, probs_b);
    assert_ne!(logits_a, logits_b);
    assert!(logits_b.iter().all(|l| l.starts_with('−')), "{logits_b:?}");
}

#[test]
fn notes_give_the_normalizer_and_the_top_two_ratio() {
    let last: Vec<f32> = (0..VOCAB)
        .map(|i| match i {
            5 => 2.0,
            7 => 1.0,
            _ => -3.0,
        })
        .collect();
    let figure = draw_last(&last, "k = 3");
    let m = lse(&last);
    let texts = crate::testing::test_svg::all_texts(&figure.svg);
    let has = |line: &str| texts.iter().any(|t| t == line);
    let normalizer = format!(
        "p = exp(logit − m), m = log Σ exp over all {VOCAB} logits = {}",
        signed(m, 2)
    );
    assert!(has(&normalizer), "{}", figure.svg);
    assert!(has(
        "top two: a gap of 1.00 in logit is e^1.00 = 2.7× in probability"
    ));
}

#[test]
fn k_is_checked_against_the_stored_top_k() {
    assert_eq!(draw("k = 13").unwrap_err().key.as_deref(), Some("k"));
    assert_eq!(draw("k = 0").unwrap_err().key.as_deref(), Some("k"));
    assert_eq!(group_texts(&draw("k = 3").unwrap().svg, "tbf-m").len(), 3);
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}
