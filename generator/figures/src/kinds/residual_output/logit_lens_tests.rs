//! Tests of `figure logit-lens` against the synthetic lens (`test_logits::lens_probs`).

use super::render;
use crate::testing::test_logits::{lens_probs, position_logits};
use crate::testing::test_svg::{groups_texts, parse, text_of};
use crate::testing::test_traces::{options, tiny_trace, trace_of, TestTraces, TEXTS};
use crate::token_text::visible;
use crate::{Figure, FigureError};

fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(ids));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

/// The top token of the lens at `layer`, `position` of a 4-token prompt.
fn top(layer: usize, position: usize) -> (usize, f64) {
    let probs = lens_probs(layer, &position_logits(position, 4));
    let best = (0..probs.len())
        .max_by(|&a, &b| probs[a].total_cmp(&probs[b]).then(b.cmp(&a)))
        .unwrap();
    (best, probs[best])
}

#[test]
fn each_cell_is_the_lens_top_token_for_its_layer_and_position() {
    let figure = draw(&[10, 11, 12, 13], "").unwrap();
    let groups = groups_texts(&figure.svg, "tbf-m");
    assert_eq!(groups[0], ["The", "·robots", "·will", "·bring"]);
    // Column by column: layer 0, layer 1, then the actual next token.
    let cells = &groups[1];
    for position in 0..4 {
        for layer in 0..2 {
            let (id, _) = top(layer, position);
            assert_eq!(
                cells[position * 3 + layer],
                visible(TEXTS[id]),
                "layer {layer} position {position}"
            );
        }
    }
    let next: Vec<&String> = (0..4).map(|p| &cells[p * 3 + 2]).collect();
    let generated = visible(&tiny_trace().meta.generation[0].text);
    assert_eq!(next, ["·robots", "·will", "·bring", generated.as_str()]);
}

#[test]
fn the_actual_next_token_is_bold_and_counted_in_the_alt_text() {
    let figure = draw(&[10, 11, 12, 13], "").unwrap();
    let doc = parse(&figure.svg);
    let bold: Vec<String> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("text") && n.attribute("class").is_some_and(|c| c.ends_with("tbf-b"))
        })
        .map(text_of)
        .collect();
    let ids = [11, 12, 13, tiny_trace().meta.generation[0].id as usize];
    let expected: Vec<String> = (0..4)
        .flat_map(|p| (0..2).map(move |l| (l, p)))
        .filter(|&(l, p)| top(l, p).0 == ids[p])
        .map(|(_, p)| visible(TEXTS[ids[p]]))
        .collect();
    assert_eq!(bold, expected);
    let right = (0..4).filter(|&p| top(1, p).0 == ids[p]).count();
    assert!(
        figure
            .alt
            .contains(&format!("actual next token at {right} of 4 positions")),
        "{}",
        figure.alt
    );
}

#[test]
fn tokens_keeps_the_last_positions() {
    let ids: Vec<u32> = (0..8).collect();
    let figure = draw(&ids, "tokens = 3").unwrap();
    assert_eq!(groups_texts(&figure.svg, "tbf-m")[0].len(), 3);
    assert_eq!(
        draw(&ids, "tokens = 11").unwrap_err().key.as_deref(),
        Some("tokens")
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(&[10, 11, 12, 13], "").unwrap().svg);
}

#[test]
fn pickers_list_each_layers_candidates_with_the_output_layer_shown_first() {
    let traces = TestTraces::with("robots", tiny_trace());
    let figure = render(
        &options("prompt = \"robots\"\npickers = true"),
        &traces,
        None,
    )
    .unwrap()
    .0;
    let doc = crate::testing::test_svg::parse(&figure.svg);
    let panels: Vec<(&str, bool)> = doc
        .descendants()
        .filter_map(|n| {
            Some((
                n.attribute("data-tb-panel")?,
                n.attribute("display").is_none(),
            ))
        })
        .collect();
    assert_eq!(panels, [("0", false), ("1", true)]);
    assert_eq!(
        figure.live.as_deref(),
        Some("{\"kind\":\"panels\",\"axes\":[[\"layer\",[0,1]]],\"start\":\"1\"}")
    );
    assert!(figure
        .svg
        .contains("after layer 1 (the output): the 5 likeliest next tokens"));
    assert!(figure
        .svg
        .contains("after layer 0: the 5 likeliest next tokens"));
    let plain = render(&options("prompt = \"robots\""), &traces, None)
        .unwrap()
        .0;
    assert!(plain.live.is_none() && !plain.svg.contains("likeliest next tokens"));
}
