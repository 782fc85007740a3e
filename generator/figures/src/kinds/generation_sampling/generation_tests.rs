//! Tests of `figure generation` on the synthetic three-step generation
//! (`test_logits::generation`: the likeliest, then the second likeliest, then the likeliest).

use super::{rank, render};
use crate::format::percent;
use crate::testing::test_svg::{all_texts, texts_in};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
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

#[test]
fn a_sampled_continuation_says_its_rules_and_what_the_bars_are() {
    let greedy = all_texts(&draw("").unwrap().svg);
    assert!(greedy.contains(&"probability".to_string()));
    assert!(!greedy.iter().any(|t| t.starts_with("sampled")));
    let mut trace = tiny_trace();
    trace.meta.prompt.options.temperature = Some(0.8);
    trace.meta.prompt.options.top_k = Some(40);
    trace.meta.prompt.options.seed = Some(7);
    let traces = TestTraces::with("p", trace);
    let figure = render(&options("prompt = \"p\"\nsteps = 2"), &traces).unwrap();
    let texts = all_texts(&figure.svg);
    assert!(texts.contains(&"p (T = 1)".to_string()));
    assert!(texts.contains(&"showing the first 2 of 3 steps".to_string()));
    assert!(
        texts.contains(&"sampled: temperature 0.8, top_k 40, seed 7".to_string()),
        "{texts:?}"
    );
    assert!(texts.contains(&"the bars: the model's own p, at temperature 1".to_string()));
}

#[test]
fn a_token_chosen_from_outside_the_recorded_candidates_says_so() {
    let mut trace = tiny_trace();
    let step = &mut trace.meta.generation[1];
    let kept = step.top.len();
    step.top.retain(|c| c.id != step.id);
    step.top.truncate(kept - 1);
    let kept = step.top.len();
    let prob = step.prob;
    let traces = TestTraces::with("p", trace);
    let figure = render(&options("prompt = \"p\""), &traces).unwrap();
    let label = format!("{} (#{}+)", percent(f64::from(prob)), kept + 1);
    assert!(all_texts(&figure.svg).contains(&label), "{label}");
    assert!(figure
        .alt
        .contains(&format!("not among its {kept} likeliest")));
}

#[test]
fn a_translation_shows_its_source_above_the_tokens_the_decoder_wrote() {
    use crate::testing::test_seq2seq::{seq2seq_trace, WRITTEN};
    let traces = TestTraces::with("open", seq2seq_trace());
    let figure = render(&options("prompt = \"open\""), &traces).unwrap();
    let texts = all_texts(&figure.svg);
    let at = |line: &str| texts.iter().position(|t| t == line);
    let source = at("source").expect("a source line");
    assert_eq!(texts[source + 1], "cannot open file");
    let translation = at("translation").expect("a translation line");
    assert_eq!(texts[translation + 1], WRITTEN.concat());
    assert!(source < translation);
    let labels: Vec<String> = WRITTEN.iter().map(|t| visible(t)).collect();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), labels);
    assert!(figure
        .svg
        .contains("Translating “cannot open file”: the decoder writes 5 tokens"));
    assert!(
        figure
            .alt
            .starts_with("The encoder read the source \"cannot open file\"")
            && figure
                .alt
                .ends_with(&format!("The translation: {:?}.", WRITTEN.concat())),
        "{}",
        figure.alt
    );
    // The rows start below the two lines; the step slider knows where.
    let live = figure.live.unwrap();
    assert!(live.contains("\"top\":80,"), "{live}");
}

/// sampling.html's greedy figure promised "the two runners-up" and showed one where the
/// second did not fit ("·world 0.64%"): every row now shows both, each probability whole,
/// the token texts cut to fit; and each row's probabilities fall with their rank.
#[test]
fn rows_show_whole_alternatives_that_fit_and_their_order_is_declared() {
    let mut trace = tiny_trace();
    for step in &mut trace.meta.generation {
        for (i, c) in step.top.iter_mut().enumerate() {
            c.text = format!(" ordinary{i}");
        }
    }
    let traces = TestTraces::with("p", trace.clone());
    let figure = render(&options("prompt = \"p\""), &traces).unwrap();
    assert!(figure.svg.contains("viewBox=\"0 0 376 "), "a phone's width");
    let texts = all_texts(&figure.svg);
    for step in &trace.meta.generation {
        let first = step.top.iter().find(|c| c.id != step.id).unwrap();
        let row = texts
            .iter()
            .find(|t| t.contains(&percent(f64::from(first.prob))) && t.contains("ordinary"))
            .unwrap_or_else(|| panic!("a row for step {} in {texts:?}", step.text));
        assert!(!row.contains('…'), "whole tokens only: {row}");
    }
    assert_eq!(figure.relations.len(), trace.meta.generation.len());
    for relation in &figure.relations {
        assert!(relation.check().is_ok(), "{relation:?}");
    }
}
