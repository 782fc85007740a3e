//! Tests of `figure patching` against the synthetic patching of `test_interventions`: "The
//! robots will bring" against "The</svg> will bring", scored by logit(" peace") −
//! logit(" war").

use super::render;
use crate::shared::Domain;
use crate::svg::Ramp;
use crate::testing::test_interventions::{patching_run, with_experiments, HEADS, RESID};
use crate::testing::test_svg::{all_texts, desc, groups_texts, parse, text_of};
use crate::testing::test_traces::{options, tiny_trace, trace_of, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::{Patching, Token, Trace};

fn traces_with(patching: Option<Patching>) -> TestTraces {
    let mut trace = with_experiments(tiny_trace());
    trace.meta.patching = patching;
    TestTraces::with("p", trace)
}

fn draw_from(traces: &TestTraces, body: &str) -> Result<(Figure, Domain), FigureError> {
    render(&options(&format!("prompt = \"p\"\n{body}")), traces, None)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(&traces_with(Some(patching_run())), body).map(|(figure, _)| figure)
}

/// Every cell, grid after grid, as (class, y, x) in drawing order of the grids: the value
/// groups come one per grid, so cells are read from their printed numbers' classes.
fn printed(svg: &str) -> Vec<Vec<(String, String)>> {
    let doc = parse(svg);
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("text-anchor") == Some("middle"))
        .filter(|g| g.attribute("font-size") == Some("12"))
        .map(|g| {
            g.children()
                .filter(|n| n.has_tag_name("text"))
                .map(|n| (n.attribute("class").unwrap().to_string(), text_of(n)))
                .collect()
        })
        .collect()
}

#[test]
fn both_grids_print_every_score_on_its_own_scale() {
    let figure = draw("").unwrap();
    let grids = printed(&figure.svg);
    assert_eq!(grids.len(), 2);
    let numbers =
        |g: &[(String, String)]| -> Vec<String> { g.iter().map(|c| c.1.clone()).collect() };
    // a: 2 layers × 4 positions; b: 2 layers × 2 heads.
    assert_eq!(
        numbers(&grids[0]),
        ["0", ".98", "0", ".02", "0", ".35", "0", ".61"]
    );
    assert_eq!(numbers(&grids[1]), [".05", "−.20", ".72", ".10"]);
    let ramp = Ramp::signed();
    // Each grid saturates at its own largest score: .98 and .72 take the red end.
    assert_eq!(grids[0][1].0, ramp.text_class(10));
    assert_eq!(grids[1][2].0, ramp.text_class(10));
    let bin = |v: f32, limit: f32| ramp.text_class(ramp.bin_of_signed(f64::from(v / limit)));
    assert_eq!(grids[0][7].0, bin(RESID[1][3], 0.98));
    assert_eq!(grids[1][1].0, bin(HEADS[0][1], 0.72));
    assert_eq!(grids[1][1].0, "tbf-v4t");
}

#[test]
fn positions_are_labelled_clean_to_corrupted_where_the_prompts_differ() {
    let figure = draw("view = \"resid\"").unwrap();
    let labels = groups_texts(&figure.svg, "tbf-m");
    assert_eq!(labels[0], ["0", "1"]);
    assert_eq!(labels[1], ["The", "·robots→</svg>", "·will", "·bring"]);
    let texts = all_texts(&figure.svg);
    assert!(texts.contains(&"layer".to_string()));
    assert!(texts.contains(&"token".to_string()));
    assert!(texts.contains(
        &"1 = the clean run's logit difference logit(·peace) − logit(·war) = 3.20, 0 = the \
          corrupted run's (−1.10)"
            .to_string()
    ));
    assert!(texts.contains(&"clean: The robots will bring".to_string()));
    assert!(texts.contains(&"corrupted: The</svg> will bring".to_string()));
    assert_eq!(printed(&figure.svg).len(), 1);
    let heads = draw("view = \"heads\"").unwrap();
    let grids = printed(&heads.svg);
    assert_eq!(grids.len(), 1);
    assert_eq!(grids[0].len(), 4);
    assert!(!all_texts(&heads.svg).iter().any(|t| t.contains("→</svg>")));
}

#[test]
fn the_alt_text_names_the_prompts_the_metric_and_the_best_sites() {
    let figure = draw("").unwrap();
    assert_eq!(desc(&figure.svg), figure.alt);
    for part in [
        "Activation patching from the clean prompt \"The robots will bring\" into the corrupted \
         \"The</svg> will bring\" (they differ: \" robots\" → \"</svg>\" at position 1).",
        "logit(\" peace\") − logit(\" war\")",
        "0 is the corrupted run's (−1.10) and 1 the clean run's (3.20)",
        "the highest scores are 0.98 at \" robots\" (position 1) entering layer 0 and 0.61 at \
         \" bring\" (position 3) entering layer 1.",
        "head 0 of layer 1 (0.72), head 1 of layer 1 (0.10), head 0 of layer 0 (0.05); the \
         lowest, head 1 of layer 0 (−0.20).",
    ] {
        assert!(figure.alt.contains(part), "{part:?} not in {}", figure.alt);
    }
    let resid = draw("view = \"resid\"").unwrap();
    assert!(!resid.alt.contains("head 0 of layer 1"));
}

#[test]
fn the_estimates_draw_instead_of_or_under_the_exact_grids_on_one_scale() {
    let estimated = draw("estimate = \"attribution\"").unwrap();
    let grids = printed(&estimated.svg);
    assert_eq!(grids.len(), 2);
    let numbers =
        |g: &[(String, String)]| -> Vec<String> { g.iter().map(|c| c.1.clone()).collect() };
    assert_eq!(
        numbers(&grids[0]),
        ["0", ".70", "0", ".03", "0", ".30", "0", ".50"]
    );
    assert_eq!(numbers(&grids[1]), [".04", "−.15", ".55", ".12"]);
    let texts = all_texts(&estimated.svg).join(" ");
    assert!(
        texts.contains("patched at one position: attribution patching's estimate"),
        "{texts}"
    );
    assert!(estimated.alt.contains("not the exact runs described here"));
    // Both: each exact grid, then its estimate, coloured on the exact grid's scale: the
    // estimate's .70 is no longer the red end that .98 takes.
    let both = draw("estimate = \"both\"\nview = \"resid\"").unwrap();
    let grids = printed(&both.svg);
    assert_eq!(grids.len(), 2);
    assert_eq!(
        grids[0][1],
        (Ramp::signed().text_class(10), ".98".to_string())
    );
    assert_eq!(grids[1][1].1, ".70");
    assert_ne!(grids[1][1].0, Ramp::signed().text_class(10));
    let texts = all_texts(&both.svg).join(" ");
    assert!(texts.contains("patched at one position: exact"), "{texts}");
}

#[test]
fn an_estimate_the_trace_lacks_says_how_to_record_it() {
    let mut older = patching_run();
    older.attrib_resid.clear();
    older.attrib_heads.clear();
    let traces = traces_with(Some(older));
    let error = draw_from(&traces, "estimate = \"both\"").unwrap_err();
    assert!(
        error
            .to_string()
            .contains("records no attribution patching"),
        "{error}"
    );
    assert!(error.hint.unwrap_or_default().contains("--force"));
    // The exact grids still draw from it.
    assert!(draw_from(&traces, "").is_ok());
    let error = draw("estimate = \"guess\"").unwrap_err().to_string();
    assert!(error.contains("guess"), "{error}");
}

#[test]
fn the_domain_covers_both_grids() {
    let (_, domain) = draw_from(&traces_with(Some(patching_run())), "").unwrap();
    let Domain::Signed { limit } = domain else {
        panic!("{domain:?}")
    };
    assert!((limit - 0.98).abs() < 1e-6, "{limit}");
}

#[test]
fn a_shared_scale_colours_both_grids_alike() {
    let shared = crate::shared::SharedScale {
        name: "patch".to_string(),
        domain: Domain::Signed { limit: 1.0 },
        figures: 3,
    };
    let traces = traces_with(Some(patching_run()));
    let (figure, _) = render(&options("prompt = \"p\""), &traces, Some(&shared)).unwrap();
    let grids = printed(&figure.svg);
    // .72 of 1 rounds to bin 9, no longer the red end.
    assert_eq!(grids[1][2].0, "tbf-v9t");
    let notes = all_texts(&figure.svg)
        .into_iter()
        .filter(|t| t.contains("shared with 2 other figures"))
        .count();
    assert_eq!(notes, 2);
}

#[test]
fn a_trace_without_patching_says_how_to_record_it() {
    let error = draw_from(&traces_with(None), "").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(
        error.message,
        "the trace of \"p\" records no activation patching"
    );
    let hint = error.hint.unwrap();
    assert!(
        hint.contains("`patch = { corrupted = \"...\", answer = \""),
        "{hint}"
    );
    assert!(hint.ends_with("run `tracebook trace --only p`"), "{hint}");
    let error = draw("view = \"mlp\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("view"));
}

#[test]
fn an_undefined_score_or_a_short_patching_is_an_error() {
    let mut same = patching_run();
    same.corrupted_diff = same.clean_diff;
    let error = draw_from(&traces_with(Some(same)), "").unwrap_err();
    assert!(
        error
            .message
            .contains("give the same logit difference (3.20)"),
        "{}",
        error.message
    );
    let mut short = patching_run();
    short.resid[1].pop();
    let error = draw_from(&traces_with(Some(short)), "").unwrap_err();
    assert!(
        error.message.contains("does not cover its 4 positions"),
        "{}",
        error.message
    );
    let mut fewer = patching_run();
    fewer.corrupted_tokens.pop();
    assert!(draw_from(&traces_with(Some(fewer)), "").is_err());
}

/// A prompt of `n` tokens with a patching whose corrupted prompt differs at the first.
fn long(n: usize) -> Trace {
    let ids: Vec<u32> = (0..n as u32).map(|i| 10 + i % 4).collect();
    let mut trace = with_experiments(trace_of(&ids));
    let mut patching = patching_run();
    patching.corrupted_tokens = (trace.meta.tokens.iter())
        .map(|t| Token {
            text: if t.start == 0 {
                "A".to_string()
            } else {
                t.text.clone()
            },
            ..t.clone()
        })
        .collect();
    patching.resid = (0..2)
        .map(|l| (0..n).map(|p| (l * p) as f32 / n as f32).collect())
        .collect();
    trace.meta.patching = Some(patching);
    trace
}

#[test]
fn a_long_prompt_turns_positions_down_and_keeps_labels_legible() {
    let traces = TestTraces::with("p", long(30));
    let (figure, _) = draw_from(&traces, "view = \"resid\"").unwrap();
    let texts = all_texts(&figure.svg);
    // Rows are the positions now: the corner's lower line names the rows.
    let corner = crate::testing::test_svg::texts_in(&figure.svg, "tbf-s tbf-dim");
    assert_eq!(corner, ["layer", "token"], "{texts:?}");
    assert!(texts.contains(&"The→A".to_string()));
    for g in parse(&figure.svg)
        .descendants()
        .filter(|n| n.has_tag_name("g"))
    {
        if let Some(size) = g.attribute("font-size") {
            assert!(size.parse::<f64>().unwrap() >= 12.0, "{size}");
        }
    }
    let short = TestTraces::with("p", long(8));
    let (figure, _) = draw_from(&short, "view = \"resid\"").unwrap();
    let corner = crate::testing::test_svg::texts_in(&figure.svg, "tbf-s tbf-dim");
    assert_eq!(corner, ["token", "layer"]);
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}
