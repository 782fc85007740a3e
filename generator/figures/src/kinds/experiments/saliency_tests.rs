//! Tests of `figure saliency` against the synthetic saliency of `test_interventions`: on "The
//! robots will bring", " robots" matters most to ln p(" peace") by both methods; the integrated
//! gradients sum to 2.0, ln 0.4 + 3 = 2.08 the change (within the 5% completeness allows).

use super::render;
use crate::relations::Relation;
use crate::shared::Domain;
use crate::testing::test_interventions::{attribution_run, with_experiments};
use crate::testing::test_svg::{all_texts, cell_values};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::Attribution;

fn traces_with(attribution: Option<Attribution>) -> TestTraces {
    let mut trace = with_experiments(tiny_trace());
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
fn a_row_per_method_and_a_column_per_token() {
    let figure = draw("").unwrap();
    // Gradient × input, then integrated gradients, for the four tokens.
    assert_eq!(
        cell_values(&figure.svg, Some("0")),
        [".1", ".9", ".2", "−.3", ".2", "1.4", ".6", "−.2"]
    );
    let texts = all_texts(&figure.svg);
    assert!(texts.contains(&"grad × input".to_string()), "{texts:?}");
    assert!(texts.contains(&"·robots".to_string()), "{texts:?}");
    assert!(
        texts.contains(&"ln p(·peace) = −0.92".to_string()),
        "{texts:?}"
    );
    assert!(
        figure.alt.contains("Raise it most: \" robots\" 1.40"),
        "{}",
        figure.alt
    );
    assert!(
        figure.alt.contains("Lower it most: \" bring\" −0.20"),
        "{}",
        figure.alt
    );
}

#[test]
fn the_sum_is_checked_against_the_change_and_a_shortfall_is_said() {
    let figure = draw("").unwrap();
    let change = figure.relations.iter().any(|r| {
        matches!(r, Relation::Change { from, to, change, .. }
            if from == "−3.00" && to == "−0.92" && change == "2.08")
    });
    assert!(change, "{:?}", figure.relations);
    assert!(figure.relations.iter().all(|r| r.check().is_ok()));
    let sum = figure.relations.iter().any(
        |r| matches!(r, Relation::Sum { terms, total } if total == "2.00" && terms.len() == 4),
    );
    assert!(sum, "{:?}", figure.relations);
    // 2.0 against 2.08 is within 5%: the note says completeness holds.
    assert!(
        figure.alt.contains("sum to 2.00, the change"),
        "{}",
        figure.alt
    );
    let mut short = attribution_run();
    short.baseline_logprob[0] = -10.0;
    let (figure, _) = draw_from(&traces_with(Some(short)), "").unwrap();
    assert!(
        figure.alt.contains("sum to 2.00, not the change 9.08"),
        "{}",
        figure.alt
    );
    let texts = all_texts(&figure.svg).join(" ");
    assert!(texts.contains("miss"), "{texts}");
    assert!(figure.relations.iter().all(|r| r.check().is_ok()));
}

#[test]
fn a_trace_without_saliency_says_how_to_get_it() {
    let mut old = attribution_run();
    old.grad_input.clear();
    old.integrated.clear();
    let err = draw_from(&traces_with(Some(old)), "").err().unwrap();
    let text = format!("{err:?}");
    assert!(text.contains("without saliency"), "{text}");
    assert!(text.contains("--force"), "{text}");
    let err = draw_from(&traces_with(None), "").err().unwrap();
    assert!(format!("{err:?}").contains("attribute = { targets"));
    let war = draw("target = \" war\"").unwrap();
    assert!(war.live.as_deref().unwrap().ends_with("\"start\":\"1\"}"));
}
