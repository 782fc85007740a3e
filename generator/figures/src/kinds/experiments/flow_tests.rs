//! Tests of `figure flow` against the synthetic flow of `test_interventions` (`FLOW`): on "The
//! robots will bring", block 1 moves 0.60 of the update at " bring" from " robots", and block 0
//! moves 0.32 at " will" from " robots" (the previous token); both reach the prediction.

use super::{prune, render};
use crate::relations::Relation;
use crate::testing::test_interventions::{attribution_run, with_experiments};
use crate::testing::test_svg::{all_texts, parse};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::Attribution;

fn traces_with(attribution: Option<Attribution>) -> TestTraces {
    let mut trace = with_experiments(tiny_trace());
    trace.meta.attribution = attribution;
    TestTraces::with("p", trace)
}

fn draw_from(traces: &TestTraces, body: &str) -> Result<Figure, FigureError> {
    render(&options(&format!("prompt = \"p\"\n{body}")), traces)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(&traces_with(Some(attribution_run())), body)
}

/// Every tooltip of an edge or a mark, in document order.
fn tips(svg: &str) -> Vec<String> {
    let doc = parse(svg);
    doc.descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter(|n| n.parent().is_some_and(|p| !p.has_tag_name("svg")))
        .filter_map(|n| n.text().map(str::to_string))
        .collect()
}

#[test]
fn the_graph_keeps_what_reaches_the_prediction_and_lists_the_strongest() {
    let figure = draw("").unwrap();
    let tips = tips(&figure.svg);
    assert!(
        tips.iter().any(|t| t == "block 1: ·robots → ·bring, 0.60"),
        "{tips:?}"
    );
    // Block 0 at " robots" (kept because it feeds " bring" in block 1) reads "The".
    assert!(
        tips.iter()
            .any(|t| t.starts_with("block 0: The → ·robots, ")),
        "{tips:?}"
    );
    // " will" feeds nothing in block 1 that reaches " bring" (0.002 < 0.04): no edge into it.
    assert!(!tips.iter().any(|t| t.contains("→ ·will")), "{tips:?}");
    let texts = all_texts(&figure.svg).join(" ");
    assert!(
        texts.contains("Into ·bring from other tokens, the most: 0.60 from ·robots in block 1; 0.47 from ·will in block 0"),
        "{texts}"
    );
    assert!(texts.contains("at least 0.04"), "{texts}");
    // Every printed share is declared; each relation holds.
    assert!(figure
        .relations
        .iter()
        .any(|r| matches!(r, Relation::Order { values, .. } if values[0] == "0.60")));
    for relation in &figure.relations {
        relation.check().unwrap();
        for t in relation.texts() {
            assert!(figure.svg.contains(t), "{t} is not printed");
        }
    }
}

#[test]
fn a_higher_threshold_keeps_fewer_edges_and_a_bad_one_is_refused() {
    let flow = &attribution_run().flow;
    let low = prune(flow, 0.04);
    let high = prune(flow, 0.5);
    assert!(high.edges.len() < low.edges.len());
    // At 0.5 only " robots" → " bring" in block 1 (0.60) crosses tokens; below it nothing
    // leads into " robots" (block 0 moved 1/2.1 = 0.48 from "The").
    let across: Vec<_> = high.edges.iter().filter(|e| e.from != e.to).collect();
    assert_eq!(across.len(), 1, "{across:?}");
    assert_eq!((across[0].layer, across[0].from, across[0].to), (1, 1, 3));
    assert!(!high.kept[0][0]);
    let error = draw("threshold = 1.5").unwrap_err().to_string();
    assert!(error.contains("threshold = 1.5 is not a share"), "{error}");
}

#[test]
fn a_trace_without_flow_says_how_to_record_it() {
    let mut attribution = attribution_run();
    attribution.flow = Default::default();
    let error = draw_from(&traces_with(Some(attribution)), "").unwrap_err();
    assert!(
        error.to_string().contains("without information flow"),
        "{error}"
    );
    let hint = error.hint.unwrap_or_default();
    assert!(hint.contains("tracebook trace --only p --force"), "{hint}");
    let error = draw_from(&traces_with(None), "").unwrap_err().to_string();
    assert!(error.contains("records no attribution"), "{error}");
    let mut broken = attribution_run();
    broken.flow.residual[1].pop();
    let error = draw_from(&traces_with(Some(broken)), "")
        .unwrap_err()
        .to_string();
    assert!(error.contains("does not cover its 4 tokens"), "{error}");
}
