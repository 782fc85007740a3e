//! Tests of `figure generation` on the synthetic three-step generation
//! (`test_logits::generation`: the likeliest, then the second likeliest, then the likeliest).

use super::{rank, render};
use crate::format::percent;
use crate::test_svg::{all_texts, texts_in};
use crate::test_traces::{options, tiny_trace, TestTraces};
use crate::token_text::visible;
use crate::{Figure, FigureError};

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", tiny_trace());
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

#[test]
fn one_row_per_step_with_the_chosen_token_and_its_probability() {
    let trace = tiny_trace();
    let steps = &trace.meta.generation;
    let figure = draw("").unwrap();
    let labels: Vec<String> = steps.iter().map(|s| visible(&s.text)).collect();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), labels);
    let texts = all_texts(&figure.svg);
    assert_eq!(steps.iter().map(rank).collect::<Vec<_>>(), [1, 2, 1]);
    let second = format!("{} (#2)", percent(f64::from(steps[1].prob)));
    assert!(texts.contains(&second), "{second} in {texts:?}");
    let first = percent(f64::from(steps[0].prob));
    assert!(texts.contains(&first));
    let continuation: String = steps.iter().map(|s| s.text.as_str()).collect();
    assert!(
        figure
            .alt
            .ends_with(&format!("The continuation: {continuation:?}.")),
        "{}",
        figure.alt
    );
    assert!(figure.alt.contains("its #2 candidate"));
}

#[test]
fn alternatives_leave_out_the_chosen_token() {
    let trace = tiny_trace();
    let step = &trace.meta.generation[1];
    let figure = draw("alternatives = 1").unwrap();
    let texts = all_texts(&figure.svg);
    let expected = format!(
        "{} {}",
        visible(&step.top[0].text),
        percent(f64::from(step.top[0].prob))
    );
    assert!(texts.contains(&expected), "{expected} in {texts:?}");
    let none = draw("alternatives = 0").unwrap();
    assert!(!all_texts(&none.svg).iter().any(|t| t.contains("  ")));
}

#[test]
fn steps_limits_the_rows_with_a_note() {
    let figure = draw("steps = 2").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m").len(), 2);
    assert!(all_texts(&figure.svg).contains(&"showing the first 2 of 3 steps".to_string()));
}

#[test]
fn a_prompt_without_generation_says_how_to_add_it() {
    let mut trace = tiny_trace();
    trace.meta.generation.clear();
    let traces = TestTraces::with("p", trace);
    let error = render(&options("prompt = \"p\""), &traces).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(error.hint.unwrap().contains("generate = 8"));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}
