//! Tests of `figure sampling` against the rule written out here over the synthetic
//! logits: sorted, keep while in the top k and the mass before stays under top_p.

use super::{render, Rules};
use crate::format::percent;
use crate::testing::test_logits::logits;
use crate::testing::test_svg::{all_texts, texts_in};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", tiny_trace());
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

/// Softmax of the synthetic logits, sorted from likeliest.
fn sorted() -> Vec<f64> {
    let exps: Vec<f64> = logits().iter().map(|&l| f64::from(l).exp()).collect();
    let total: f64 = exps.iter().sum();
    let mut probs: Vec<f64> = exps.iter().map(|e| e / total).collect();
    probs.sort_by(|a, b| b.total_cmp(a));
    probs
}

/// The "sampled with" column: percentages for survivors, "cut" for the rest.
fn sampled(figure: &Figure) -> Vec<String> {
    let texts = all_texts(&figure.svg);
    texts
        .iter()
        .filter(|t| t.as_str() == "cut" || t.ends_with('%'))
        .cloned()
        .collect::<Vec<_>>()
        .chunks(3)
        .map(|row| row[2].clone())
        .collect()
}

#[test]
fn the_rules_follow_candle() {
    let k3 = Rules {
        temperature: 1.0,
        top_k: Some(3),
        top_p: None,
    };
    assert!(k3.keeps(2, 0.99) && !k3.keeps(3, 0.0));
    let p = Rules {
        temperature: 1.0,
        top_k: None,
        top_p: Some(0.5),
    };
    assert!(p.keeps(0, 0.0) && p.keeps(3, 0.49) && !p.keeps(3, 0.5));
    let greedy = Rules {
        temperature: 0.0,
        top_k: None,
        top_p: Some(0.9),
    };
    assert!(greedy.keeps(0, 0.0) && !greedy.keeps(1, 0.0));
}

#[test]
fn top_k_keeps_the_k_likeliest_and_renormalizes() {
    let figure = draw("top_k = 3\nk = 5").unwrap();
    let probs = sorted();
    let mass: f64 = probs[..3].iter().sum();
    let expected: Vec<String> = probs[..3]
        .iter()
        .map(|p| percent(p / mass))
        .chain(["cut".to_string(), "cut".to_string()])
        .collect();
    assert_eq!(sampled(&figure), expected);
    assert!(all_texts(&figure.svg).contains(&format!(
        "3 of 40 tokens survive, holding {} of the probability",
        percent(mass)
    )));
    assert_eq!(texts_in(&figure.svg, "tbf-m").len(), 5);
}

#[test]
fn top_p_keeps_the_nucleus() {
    let figure = draw("top_p = 0.5\nk = 8").unwrap();
    let probs = sorted();
    let mut before = 0.0;
    let survivors = probs
        .iter()
        .take_while(|&&p| {
            let keep = before < 0.5;
            before += p;
            keep
        })
        .count();
    let shown = sampled(&figure);
    assert_eq!(shown.iter().filter(|s| *s != "cut").count(), survivors);
    assert!(
        figure.alt.contains("temperature 1, top_p 0.5"),
        "{}",
        figure.alt
    );
}

#[test]
fn defaults_come_from_the_prompt_then_top_p_09() {
    let mut trace = tiny_trace();
    trace.meta.prompt.options.top_k = Some(2);
    let traces = TestTraces::with("p", trace);
    let figure = render(&options("prompt = \"p\"\nk = 4"), &traces).unwrap();
    assert_eq!(sampled(&figure)[2..], ["cut", "cut"]);
    assert!(draw("").unwrap().alt.contains("top_p 0.9"));
    let greedy = draw("temperature = 0\nk = 3").unwrap();
    assert_eq!(sampled(&greedy), ["100%", "cut", "cut"]);
    assert_eq!(
        draw("top_p = 1.5").unwrap_err().key.as_deref(),
        Some("top_p")
    );
    assert_eq!(draw("top_k = 0").unwrap_err().key.as_deref(), Some("top_k"));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("top_k = 4\ntop_p = 0.6\nk = 6").unwrap().svg);
}

#[test]
fn the_controls_start_at_the_figures_rules() {
    let live = draw("top_k = 3\ntop_p = 0.93\ntemperature = 0.7\nk = 5")
        .unwrap()
        .live
        .unwrap();
    // Stops: 0 to 2 by 0.1 (0.7 is the 8th), top-p 0.05 to 1 plus 0.93 (the 19th).
    assert!(
        live.starts_with("{\"kind\":\"sampling\",\"rows\":5,\"t\":7,\"k\":3,\"p\":18,"),
        "{live}"
    );
    assert!(draw("top_k = 39").unwrap().live.is_some());
}

/// sampling.html ranked " her, him" at T = 1 where the temperature figure ranked " him, her":
/// the two share one stored (rounded) logit, and the sampler broke the tie by the lower id.
/// Ties now follow the trace's stored ranking, as the other figures do.
#[test]
fn tied_probabilities_keep_the_stored_candidates_order() {
    use super::in_stored_order;
    use crate::candidates::Candidate;
    let candidate = |id: u32| Candidate {
        id,
        text: String::new(),
        logit: 0.0,
        prob: 0.0,
    };
    // The sampler's order: the tie at 0.2 by the lower id, 3 before 7.
    let mut sorted = vec![(5, 0.5), (3, 0.2), (7, 0.2), (9, 0.1)];
    in_stored_order(&mut sorted, &[candidate(5), candidate(7), candidate(3)]);
    assert_eq!(sorted, [(5, 0.5), (7, 0.2), (3, 0.2), (9, 0.1)]);
}

#[test]
fn every_declared_relation_holds() {
    for body in [
        "",
        "top_k = 3",
        "top_p = 0.5\ntemperature = 0.7",
        "temperature = 0",
    ] {
        let figure = draw(body).unwrap();
        assert!(
            figure.relations.len() > 10,
            "{body}: {:?}",
            figure.relations
        );
        for relation in &figure.relations {
            assert!(relation.check().is_ok(), "{body}: {relation:?}");
            for text in relation.texts() {
                assert!(figure.svg.contains(text), "{body}: {text} is printed");
            }
        }
    }
}
