//! Tests of `figure logit-attribution` against the synthetic attribution of
//! `test_interventions`: logit(" peace") = 6 is the embedding's 0.5, the heads' 3.4, the
//! MLPs' 2 and the biases' 0.1; head 0 of layer 1 pushes " peace" up most (+2.5) and " war"
//! down most (−1.5).

use super::render;
use crate::relations::Relation;
use crate::shared::Domain;
use crate::svg::Ramp;
use crate::testing::test_interventions::{attribution_run, with_experiments};
use crate::testing::test_svg::{all_texts, cell_values, parse, text_of};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::{Attribution, Trace};

fn traces_with(attribution: Option<Attribution>) -> TestTraces {
    let mut trace: Trace = with_experiments(tiny_trace());
    trace.meta.attribution = attribution;
    TestTraces::with("p", trace)
}

fn draw_from(traces: &TestTraces, body: &str) -> Result<(Figure, Domain), FigureError> {
    render(&options(&format!("prompt = \"p\"\n{body}")), traces, None)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(&traces_with(Some(attribution_run())), body).map(|(figure, _)| figure)
}

#[test]
fn the_headline_prints_the_logit_as_the_sum_of_its_parts() {
    let figure = draw("").unwrap();
    let texts = all_texts(&figure.svg);
    assert!(
        texts.contains(&"logit(·peace) = 6.00".to_string()),
        "{texts:?}"
    );
    let sum = "= embedding 0.50 + heads 3.40 + MLPs 2.00 + biases 0.10";
    assert!(texts.iter().any(|t| t == sum), "{texts:?}");
    let declared = figure.relations.iter().find_map(|r| match r {
        Relation::Sum { terms, total } if total == "6.00" => Some(terms.clone()),
        _ => None,
    });
    assert_eq!(declared.unwrap(), ["0.50", "3.40", "2.00", "0.10"]);
    assert!(figure.relations.iter().all(|r| r.check().is_ok()));
    // " war": a negative logit, a negative sum of the heads.
    let war = draw("target = \" war\"").unwrap();
    assert!(war
        .alt
        .contains("the logit −1.25 is the embedding's 0.40, the heads' −1.40"));
}

#[test]
fn one_cell_per_head_and_mlp_of_every_layer_coloured_by_its_share() {
    let figure = draw("").unwrap();
    assert_eq!(
        cell_values(&figure.svg, Some("0")),
        ["1", ".3", ".8", "2.5", "−.4", "1.2"]
    );
    assert_eq!(
        cell_values(&figure.svg, Some("1")),
        ["−.2", ".1", "0", "−1.5", ".2", "−.3"]
    );
    // One scale over both targets, to the largest |share|, 2.5: head 0 of layer 1 takes the
    // red end for " peace".
    let ramp = Ramp::signed();
    let class_of = |label: &str| {
        let doc = parse(&figure.svg);
        let node = doc
            .descendants()
            .find(|n| n.has_tag_name("text") && text_of(*n) == label)
            .unwrap();
        node.attribute("class")
            .unwrap()
            .trim_end_matches('t')
            .to_string()
    };
    assert_eq!(class_of("2.5"), ramp.class(ramp.bin_of_signed(1.0)));
    assert!(
        figure
            .alt
            .contains("Largest pushes up: head 0 of layer 1, 2.50"),
        "{}",
        figure.alt
    );
    assert!(figure
        .alt
        .contains("Largest pushes down: head 1 of layer 1, −0.40"));
    assert!(figure
        .live
        .as_deref()
        .unwrap()
        .contains("[\"·peace\",\"·war\"]"));
}

#[test]
fn a_large_model_defers_the_other_targets_grids_to_the_first_pick() {
    // The tiny model's two grids of 2 × 3 cells stay in the page.
    assert!(draw("").unwrap().deferred.is_none());
    // GPT-2 small's 12 × 13 cells per target: only the shown one is in the page.
    let traces = crate::testing::preview_traces::preview_traces();
    let options = options("prompt = \"eiffel\"\ntarget = \" Rome\"");
    let (figure, _) = render(&options, &traces, None).unwrap();
    let deferred = figure.deferred.expect("the other target's grid, deferred");
    assert!(deferred.starts_with("{\"0\":"), "{}", &deferred[..40]);
    assert!(figure.svg.contains("data-tb-panel=\"1\""));
    assert!(!figure.svg.contains("data-tb-panel=\"0\""));
    assert!(figure.live.unwrap().ends_with("\"start\":\"1\"}"));
}

#[test]
fn a_prompt_without_an_attribution_or_target_says_how_to_ask() {
    let err = draw_from(&traces_with(None), "").err().unwrap();
    let text = format!("{err:?}");
    assert!(text.contains("records no attribution"), "{text}");
    assert!(text.contains("attribute = { targets = ["), "{text}");
    let err = draw("target = \" pace\"").err().unwrap();
    let text = format!("{err:?}");
    assert!(text.contains("no target \\\" pace\\\""), "{text}");
    assert!(
        text.contains("did you mean target = \\\" peace\\\"?"),
        "{text}"
    );
    let mut broken = attribution_run();
    broken.mlp.pop();
    let err = draw_from(&traces_with(Some(broken)), "").err().unwrap();
    assert!(format!("{err:?}").contains("does not cover the model's 2 layers"));
}
