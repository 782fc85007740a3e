//! Tests of `figure next-token` on synthetic traces: the numbers drawn are a softmax over
//! the trace's logits, computed here independently.

use super::render;
use crate::format::percent;
use crate::testing::test_logits::{lse, order, position_logits};
use crate::testing::test_traces::{
    group_texts, insert_logits, logits, numbers, options, texts, tiny_trace, trace_of, TestTraces,
    TOP_K, VOCAB,
};
use crate::{Figure, FigureError};

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("robots", tiny_trace());
    render(&options(&format!("prompt = \"robots\"\n{body}")), &traces)
}

/// Widths of the probability bars, in drawing order.
fn bar_widths(figure: &Figure) -> Vec<f64> {
    let start = figure.svg.find("<g class=\"tbf-bar2\">").unwrap();
    let group = &figure.svg[start..];
    numbers(&group[..group.find("</g>").unwrap()], "<rect", "width")
}

fn labels(figure: &Figure) -> Vec<String> {
    group_texts(&figure.svg, "tbf-m")
}

/// Softmax of the test logits in f64, the slow obvious way.
fn softmax() -> Vec<f64> {
    let logits: Vec<f64> = logits().iter().map(|&l| f64::from(l)).collect();
    let exps: Vec<f64> = logits.iter().map(|l| l.exp()).collect();
    let total: f64 = exps.iter().sum();
    exps.iter().map(|e| e / total).collect()
}

#[test]
fn bars_are_the_top_k_sorted_with_the_argmax_first() {
    let figure = draw("").unwrap();
    let labels = labels(&figure);
    assert_eq!(labels.len(), 10);
    let probs = softmax();
    let argmax = (0..VOCAB)
        .max_by(|&a, &b| probs[a].total_cmp(&probs[b]))
        .unwrap();
    assert_eq!(argmax, 9);
    assert_eq!(labels[0], "·light");
    let bars = bar_widths(&figure);
    assert_eq!(bars.len(), 10);
    assert!(bars.windows(2).all(|w| w[0] >= w[1]), "{bars:?}");
}

#[test]
fn percentages_match_a_softmax_over_all_logits() {
    let figure = draw("k = 12").unwrap();
    let mut expected: Vec<(f64, String)> = softmax()
        .into_iter()
        .enumerate()
        .map(|(id, p)| (p, id.to_string()))
        .collect();
    expected.sort_by(|a, b| b.0.total_cmp(&a.0));
    let shown = group_texts(&figure.svg, "tbf-dim");
    for (p, _) in &expected[..12] {
        assert!(
            shown.contains(&percent(*p)),
            "{} not in {shown:?}",
            percent(*p)
        );
    }
    let rest: f64 = expected[12..].iter().map(|(p, _)| p).sum();
    let note = texts(&figure.svg, "tbf-s tbf-dim").pop().unwrap();
    assert_eq!(note, format!("the other 28 tokens share {}", percent(rest)));
}

#[test]
fn probabilities_are_exact_with_real_gpt2_sized_logits() {
    // Around -100 a naive exp underflows to 0; the log-sum-exp must not.
    let mut trace = trace_of(&[10, 11]);
    let mut far = tracebook_trace::Trace::new(trace.meta.clone());
    let last: Vec<f32> = (0..VOCAB)
        .map(|i| if i == 5 { -700.0 } else { -800.0 - i as f32 })
        .collect();
    insert_logits(&mut far, 2, &last);
    std::mem::swap(&mut trace, &mut far);
    let traces = TestTraces::with("far", trace);
    let figure = render(&options("prompt = \"far\"\nk = 2"), &traces).unwrap();
    assert_eq!(labels(&figure), ["·food", "·the"]);
    assert_eq!(texts(&figure.svg, "tbf-b"), ["100%"]);
    assert!(figure.alt.contains("\" food\" 100%"), "{}", figure.alt);
}

#[test]
fn k_is_checked_against_the_stored_top_k() {
    let error = draw("k = 13").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("k"));
    assert_eq!(error.message, "k = 13 is out of range");
    assert!(error
        .hint
        .unwrap()
        .contains(&format!("between 1 and {TOP_K}")));
    assert_eq!(draw("k = 0").unwrap_err().key.as_deref(), Some("k"));
    assert_eq!(labels(&draw("k = 3").unwrap()).len(), 3);
}

#[test]
fn any_position_is_drawn_with_exact_probabilities() {
    assert!(draw("position = 3").is_ok());
    let figure = draw("position = 1\nk = 3").unwrap();
    let row = position_logits(1, 4);
    let total = lse(&row);
    let top = &order(&row)[..3];
    let expected: Vec<String> = top
        .iter()
        .map(|&i| percent((f64::from(row[i]) - total).exp()))
        .collect();
    let shown = group_texts(&figure.svg, "tbf-dim");
    assert_eq!(shown[..], expected[..]);
    assert!(
        figure.alt.contains("after \"The robots\""),
        "{}",
        figure.alt
    );
    assert_eq!(
        draw("position = 9").unwrap_err().key.as_deref(),
        Some("position")
    );
}

#[test]
fn scale_full_draws_tracks_at_100_percent() {
    let top = draw("").unwrap();
    let full = draw("scale = \"full\"").unwrap();
    assert!(!top.svg.contains("class=\"tbf-track\""));
    let start = full.svg.find("<g class=\"tbf-track\">").unwrap();
    let group = &full.svg[start..start + full.svg[start..].find("</g>").unwrap()];
    let tracks = numbers(group, "<rect", "width");
    assert_eq!(tracks.len(), 10);
    assert!(tracks.iter().all(|w| *w == tracks[0]));
    let p_top = softmax().into_iter().fold(0.0, f64::max);
    // Full scale: the bar is its probability's share of the track; top scale: the whole track.
    assert!((bar_widths(&full)[0] - p_top * tracks[0]).abs() < 0.1);
    assert!((bar_widths(&top)[0] - tracks[0]).abs() < 0.1);
    let error = draw("scale = \"max\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("scale"));
}

#[test]
fn a_trace_without_logits_is_an_error_about_the_prompt() {
    let meta = tiny_trace().meta;
    let traces = TestTraces::with("bare", tracebook_trace::Trace::new(meta));
    let error = render(&options("prompt = \"bare\""), &traces).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(
        error.message.contains("logits.topk_ids"),
        "{}",
        error.message
    );
    assert!(error
        .hint
        .unwrap()
        .contains("tracebook trace --force --only bare"));
}

#[test]
fn alt_text_lists_candidates_and_the_rest() {
    let figure = draw("k = 2").unwrap();
    assert!(
        figure.alt.starts_with(
            "The 2 likeliest next tokens after \"The robots will bring\": \" light\" 25.9%, \"able\" 19.2%; "
        ),
        "{}",
        figure.alt
    );
    assert!(
        figure.alt.ends_with("; the other 38 tokens share ")
            || figure.alt.contains("the other 38 tokens share")
    );
}

#[test]
fn output_is_byte_identical_across_renders() {
    assert_eq!(draw("k = 12").unwrap().svg, draw("k = 12").unwrap().svg);
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}

#[test]
fn the_last_position_embeds_the_numbers_its_controls_need_and_others_do_not() {
    let live = draw("k = 4")
        .unwrap()
        .live
        .expect("controls at the last position");
    assert!(live.starts_with("{\"kind\":\"next-token\",\"rows\":4,\"t\":10,\"k\":0,\"p\":-1,"));
    assert!(live.contains("\"vocab\":40,") && live.ends_with("\"}"));
    assert_eq!(draw("position = 1").unwrap().live, None);
    let svg = draw("k = 4").unwrap().svg;
    for tag in [
        "data-tb-bar=\"3\"",
        "data-tb-pct=\"3\"",
        "data-tb-note=\"0\"",
    ] {
        assert!(svg.contains(tag), "{tag}");
    }
}
