//! Tests of `figure ablation` against the synthetic ablation of `test_interventions`:
//! " peace" at 40% drops most (−25 points) with head 0 of layer 1 ablated, " war" rises most
//! (+20 points) with the same head.

use super::render;
use crate::shared::Domain;
use crate::svg::Ramp;
use crate::testing::test_interventions::{ablation_run, one_target, with_experiments};
use crate::testing::test_svg::{cell_values, desc, panel_of, parse};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::{Ablation, Trace};

fn traces_with(ablation: Option<Ablation>) -> TestTraces {
    let mut trace = with_experiments(tiny_trace());
    trace.meta.ablation = ablation;
    TestTraces::with("p", trace)
}

fn draw_from(traces: &TestTraces, body: &str) -> Result<(Figure, Domain), FigureError> {
    render(&options(&format!("prompt = \"p\"\n{body}")), traces, None)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(&traces_with(Some(ablation_run())), body).map(|(figure, _)| figure)
}

/// Per panel (`None` for a figure without pickers), the class of every cell in drawing order
/// of its path (bins in order), as (class, x, y).
fn cells(svg: &str, panel: Option<&str>) -> Vec<(String, f64, f64)> {
    let doc = parse(svg);
    let mut out = Vec::new();
    for path in doc.descendants().filter(|n| n.has_tag_name("path")) {
        let Some(class) = path.attribute("class").filter(|c| c.starts_with("tbf-v")) else {
            continue;
        };
        let in_legend = path
            .ancestors()
            .any(|a| a.attribute("class").is_some_and(|c| c.contains("tbf-s")));
        if in_legend || panel_of(path).as_deref() != panel {
            continue;
        }
        for stroke in path.attribute("d").unwrap().split('M').skip(1) {
            let (xy, _) = stroke.split_once('h').unwrap();
            let (x, y) = xy.split_once(' ').unwrap();
            out.push((
                class.to_string(),
                x.parse::<f64>().unwrap(),
                y.parse::<f64>().unwrap(),
            ));
        }
    }
    out.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.1.total_cmp(&b.1)));
    out
}

#[test]
fn one_cell_per_head_and_mlp_of_every_layer_with_its_change_in_points() {
    let figure = draw("").unwrap();
    // Two targets: two panels of 2 layers × (2 heads + the MLP).
    for panel in ["0", "1"] {
        assert_eq!(cells(&figure.svg, Some(panel)).len(), 6, "panel {panel}");
    }
    assert_eq!(
        cell_values(&figure.svg, Some("0")),
        ["−2", "1", "−10", "−25", "4", "−5"]
    );
    assert_eq!(
        cell_values(&figure.svg, Some("1")),
        ["0", "2", "1", "20", "−1", "−5"]
    );
    let texts = crate::testing::test_svg::all_texts(&figure.svg);
    assert!(texts.contains(&"p(·peace) = 40.0% with nothing ablated".to_string()));
    assert!(texts.contains(&"MLP".to_string()), "{texts:?}");
}

#[test]
fn the_largest_change_of_all_targets_takes_the_extreme_colour() {
    let figure = draw("").unwrap();
    let ramp = Ramp::signed();
    let peace = cells(&figure.svg, Some("0"));
    // Row by row: head 0 of layer 1 is the fourth cell, −25 points: the blue end.
    assert_eq!(peace[3].0, ramp.class(0));
    // One scale over both targets: +20 of " war" is 0.8 of the way to the red end.
    let war = cells(&figure.svg, Some("1"));
    assert_eq!(war[3].0, ramp.class(ramp.bin_of_signed(0.8)));
    assert_eq!(war[3].0, "tbf-v9");
    // No change is the neutral bin.
    assert_eq!(war[0].0, ramp.class(5));
}

#[test]
fn several_targets_get_a_picker_and_one_does_not() {
    let figure = draw("").unwrap();
    let live = figure.live.as_deref().unwrap();
    assert_eq!(
        live,
        "{\"kind\":\"panels\",\"axes\":[[\"target\",[0,1],[\"·peace\",\"·war\"]]],\"start\":\"0\"}"
    );
    assert!(figure
        .svg
        .contains("<g data-tb-panel=\"1\" display=\"none\">"));
    let war = draw("target = \" war\"").unwrap();
    assert!(war.live.as_deref().unwrap().ends_with("\"start\":\"1\"}"));
    assert!(war.svg.contains("<g data-tb-panel=\"0\" display=\"none\">"));
    assert!(war.alt.contains("next token is \" war\""), "{}", war.alt);
    let (one, _) = draw_from(&traces_with(Some(one_target())), "").unwrap();
    assert_eq!(one.live, None);
    assert!(!one.svg.contains("data-tb-panel"));
    assert_eq!(cells(&one.svg, None).len(), 6);
    assert_eq!(
        cell_values(&one.svg, None),
        ["−2", "1", "−10", "−25", "4", "−5"]
    );
}

#[test]
fn logprob_shows_the_change_in_nats() {
    let figure = draw("show = \"logprob\"").unwrap();
    let nats = |p: f64| crate::kinds::experiments::effect_grid::hundredths((p / 0.4f64).ln());
    let expected: Vec<String> = [0.38, 0.41, 0.30, 0.15, 0.44, 0.35]
        .iter()
        .map(|&p| nats(p))
        .collect();
    assert_eq!(cell_values(&figure.svg, Some("0")), expected);
    let texts = crate::testing::test_svg::all_texts(&figure.svg);
    assert!(texts.iter().any(|t| t == "change in ln p(·peace), nats"));
    assert!(
        figure.alt.contains("ln p −0.98 (−25.0 points)"),
        "{}",
        figure.alt
    );
}

#[test]
fn the_alt_text_names_the_largest_drops_and_rise_in_points_and_nats() {
    let figure = draw("").unwrap();
    assert_eq!(desc(&figure.svg), figure.alt);
    let alt = &figure.alt;
    for part in [
        "Each of the model's 4 attention heads in 2 layers, and each layer's MLP",
        "replaced by its mean over the prompt's positions",
        "one at a time (its output replaced by its mean over the prompt's positions): how the \
         probability that the next token is \" peace\" changes, in percentage points, from 40.0% \
         with nothing ablated.",
        "Largest drops: head 0 of layer 1, −25.0 points (ln p −0.98); the MLP of layer 0, \
         −10.0 points (ln p −0.29); the MLP of layer 1, −5.0 points (ln p −0.13).",
        "Largest rise: head 1 of layer 1, +4.0 points (ln p +0.10).",
        "A picker shows the same for the other target, \" war\" at 10.0%, with nothing ablated.",
    ] {
        assert!(alt.contains(part), "{part:?} not in {alt}");
    }
}

#[test]
fn the_domain_is_the_largest_change_on_show() {
    let (_, domain) = draw_from(&traces_with(Some(ablation_run())), "").unwrap();
    let Domain::Signed { limit } = domain else {
        panic!("{domain:?}")
    };
    assert!((limit - 25.0).abs() < 1e-3, "{limit}");
}

#[test]
fn a_shared_scale_sets_the_colours_and_says_so() {
    let shared = crate::shared::SharedScale {
        name: "ablate".to_string(),
        domain: Domain::Signed { limit: 50.0 },
        figures: 2,
    };
    let traces = traces_with(Some(ablation_run()));
    let (figure, domain) = render(&options("prompt = \"p\""), &traces, Some(&shared)).unwrap();
    // −25 of 50 is halfway to the blue end; the domain stays the figure's own.
    let ramp = Ramp::signed();
    assert_eq!(
        cells(&figure.svg, Some("0"))[3].0,
        ramp.class(ramp.bin_of_signed(-0.5))
    );
    let texts = crate::testing::test_svg::all_texts(&figure.svg);
    assert!(texts
        .iter()
        .any(|t| t.contains("shared with 1 other figure (scale \"ablate\")")));
    assert!(matches!(domain, Domain::Signed { limit } if (limit - 25.0).abs() < 1e-3));
}

#[test]
fn a_trace_without_an_ablation_says_how_to_record_one() {
    let error = draw_from(&traces_with(None), "").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(error.message, "the trace of \"p\" records no ablation");
    let hint = error.hint.unwrap();
    assert!(hint.contains("`ablate = { targets = [\""), "{hint}");
    assert!(hint.ends_with("run `tracebook trace --only p`"), "{hint}");
}

#[test]
fn a_target_found_by_rule_is_picked_by_its_rule_or_its_text() {
    let mut ablation = ablation_run();
    ablation.targets[1].rule = Some("guess(2)".into());
    let traces = traces_with(Some(ablation));
    let start = |body: &str| {
        let (figure, _) = draw_from(&traces, body).unwrap();
        figure.live.unwrap()
    };
    assert!(start("target = \"guess(2)\"").ends_with("\"start\":\"1\"}"));
    assert!(start("target = \" war\"").ends_with("\"start\":\"1\"}"));
    let error = draw_from(&traces, "target = \"guess(1)\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("target"));
}

#[test]
fn an_unknown_target_lists_the_targets() {
    let error = draw("target = \"peace\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("target"));
    assert_eq!(
        error.message,
        "the ablation of \"p\" has no target \"peace\""
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("did you mean target = \" peace\"? The targets are \" peace\", \" war\"")
    );
    let error = draw("target = \" robots\"").unwrap_err();
    let hint = error.hint.unwrap();
    assert!(
        hint.starts_with("the targets are \" peace\", \" war\";"),
        "{hint}"
    );
    let error = draw("show = \"odds\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("show"));
}

#[test]
fn an_ablation_that_does_not_cover_the_model_is_a_broken_trace() {
    let mut short = ablation_run();
    short.heads[1].pop();
    let error = draw_from(&traces_with(Some(short)), "").unwrap_err();
    assert!(
        error.message.contains("does not cover"),
        "{}",
        error.message
    );
    let mut missing = ablation_run();
    missing.mlp[0].logprobs.pop();
    let error = draw_from(&traces_with(Some(missing)), "").unwrap_err();
    assert!(error.message.contains("lacks a log-probability"));
}

/// A trace of a model with `heads` heads per layer, ablated.
fn wide(heads: usize) -> Trace {
    let mut trace = tiny_trace();
    trace.meta.model.config.n_head = heads;
    let mut ablation = one_target();
    let row = ablation.heads[0][0].clone();
    for layer in &mut ablation.heads {
        layer.resize(heads, row.clone());
    }
    trace.meta.ablation = Some(ablation);
    trace
}

#[test]
fn too_many_heads_for_numbers_drop_them_and_widen_rather_than_shrink() {
    let traces = TestTraces::with("p", wide(12));
    let (figure, _) = draw_from(&traces, "").unwrap();
    // GPT-2 small's 12 heads and the MLP keep their numbers at the figure's width.
    assert_eq!(cell_values(&figure.svg, None).len(), 2 * 13);
    let doc = parse(&figure.svg);
    assert_eq!(
        doc.root_element()
            .attribute("viewBox")
            .unwrap()
            .split(' ')
            .nth(2),
        Some("376")
    );
    let traces = TestTraces::with("p", wide(40));
    let (figure, _) = draw_from(&traces, "").unwrap();
    assert!(cell_values(&figure.svg, None).is_empty());
    assert_eq!(cells(&figure.svg, None).len(), 2 * 41);
    let width: f64 = parse(&figure.svg)
        .root_element()
        .attribute("viewBox")
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    assert!(width > 376.0 + 41.0 * 2.0, "{width}");
    for text in parse(&figure.svg)
        .descendants()
        .filter(|n| n.has_tag_name("g"))
    {
        if let Some(size) = text.attribute("font-size") {
            assert!(size.parse::<f64>().unwrap() >= 12.0, "{size}");
        }
    }
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}
