//! Tests of `figure temperature`: softmax(l / T) over the synthetic logits, computed here.

use super::{column, render};
use crate::format::percent;
use crate::testing::test_logits::{logits, order};
use crate::testing::test_svg::{all_texts, groups_texts, texts_in};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", tiny_trace());
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

/// softmax(l / t) of every synthetic logit, the slow obvious way.
fn softmax(t: f64) -> Vec<f64> {
    let exps: Vec<f64> = logits().iter().map(|&l| (f64::from(l) / t).exp()).collect();
    let total: f64 = exps.iter().sum();
    exps.iter().map(|e| e / total).collect()
}

#[test]
fn columns_are_softmaxes_of_the_scaled_logits() {
    let ids: Vec<u32> = order(&logits())[..5].iter().map(|&i| i as u32).collect();
    for t in [0.5, 1.0, 2.0] {
        let c = column(&logits(), &ids, t);
        let exact = softmax(t);
        for (p, &id) in c.probs.iter().zip(&ids) {
            assert!((p - exact[id as usize]).abs() < 1e-9, "T {t}");
        }
        assert!((c.probs.iter().sum::<f64>() + c.rest - 1.0).abs() < 1e-9);
    }
    let greedy = column(&logits(), &ids, 0.0);
    assert_eq!(greedy.probs, [1.0, 0.0, 0.0, 0.0, 0.0]);
    let sharp = column(&logits(), &ids, 0.5).probs[0];
    let flat = column(&logits(), &ids, 2.0).probs[0];
    assert!(sharp > column(&logits(), &ids, 1.0).probs[0] && flat < sharp);
}

#[test]
fn each_temperature_gets_a_titled_column_of_percentages() {
    let figure = draw("temperatures = [0.5, 2]\nk = 3").unwrap();
    let texts = all_texts(&figure.svg);
    assert!(texts.contains(&"T = 0.5".to_string()) && texts.contains(&"T = 2".to_string()));
    assert_eq!(texts_in(&figure.svg, "tbf-m"), ["·light", "able", "</svg>"]);
    let top: Vec<usize> = order(&logits())[..3].to_vec();
    let columns: Vec<Vec<String>> = groups_texts(&figure.svg, "tbf-s");
    for (t, shown) in [0.5, 2.0].iter().zip(&columns) {
        let exact = softmax(*t);
        let expected: Vec<String> = top.iter().map(|&i| percent(exact[i])).collect();
        assert_eq!(shown[..], expected[..], "T {t}");
    }
    assert!(
        figure.alt.contains("at temperatures 0.5, 2"),
        "{}",
        figure.alt
    );
}

#[test]
fn temperatures_are_checked() {
    for body in [
        "temperatures = [11]",
        "temperatures = []",
        "temperatures = [1, 2, 3, 4, 5]",
        "temperatures = 1",
    ] {
        let error = draw(body).unwrap_err();
        assert_eq!(error.key.as_deref(), Some("temperatures"), "{body}");
    }
    assert!(draw("temperatures = [0, 1]").is_ok());
    assert_eq!(draw("k = 13").unwrap_err().key.as_deref(), Some("k"));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("k = 4").unwrap().svg);
}

#[test]
fn the_slider_starts_at_the_last_column() {
    let figure = render(
        &options("prompt = \"robots\"\ntemperatures = [0.5, 3.3]"),
        &TestTraces::with("robots", tiny_trace()),
    )
    .unwrap();
    let live = figure.live.unwrap();
    assert!(
        live.starts_with("{\"kind\":\"temperature\",\"rows\":8,\"cols\":[5,21],\"t\":21,"),
        "{live}"
    );
    assert!(figure.svg.contains("data-tb-col=\"1\"") && figure.svg.contains("data-tb-rest=\"1\""));
}
