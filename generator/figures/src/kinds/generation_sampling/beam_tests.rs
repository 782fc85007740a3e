//! Tests of `figure beam` on a toy tree (`toy_beam`) where beam search and greedy part.

use super::render;
use crate::testing::test_svg::{all_texts, groups_texts};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("robots", tiny_trace());
    render(&options(&format!("prompt = \"robots\"\n{body}")), &traces)
}

/// Whether the figure has a line of text reading exactly `line`.
/// Whether one of the figure's texts (a note, however it is wrapped) reads `line`.
fn has_line(figure: &Figure, line: &str) -> bool {
    all_texts(&figure.svg).iter().any(|t| t == line)
}

#[test]
fn beam_search_finds_the_likelier_whole_that_greedy_misses() {
    let figure = draw("").unwrap();
    // " a" (−1.2), " peace" after it (−0.2), then −3.0: −4.4; greedy: " the" then −3.0 twice.
    assert!(
        has_line(&figure, "beam: \"·a·peace·peace\", ln p −4.40"),
        "{}",
        figure.svg
    );
    assert!(has_line(
        &figure,
        "greedy (top token each step): \"·the·peace·peace\", ln p −7.00"
    ));
    assert!(
        figure
            .alt
            .contains("It ends with \" a peace peace\" (ln p −4.40)"),
        "{}",
        figure.alt
    );
}

#[test]
fn each_step_considers_width_extensions_of_width_beams_and_keeps_width() {
    let figure = draw("").unwrap();
    let labels = groups_texts(&figure.svg, "tbf-m").concat();
    // 3 at the first step, then 3 beams × 3 children twice.
    assert_eq!(labels.len(), 3 + 9 + 9);
    let kept = figure.svg.matches("class=\"tbf-b\"").count();
    assert_eq!(kept, 3 * 3);
    let narrow = draw("width = 2\nsteps = 2").unwrap();
    assert_eq!(groups_texts(&narrow.svg, "tbf-m").concat().len(), 2 + 4);
    assert_eq!(narrow.svg.matches("class=\"tbf-b\"").count(), 2 * 2);
}

#[test]
fn widths_and_steps_beyond_the_tree_and_traces_without_one_are_errors() {
    assert_eq!(draw("width = 4").unwrap_err().key.as_deref(), Some("width"));
    assert_eq!(draw("steps = 0").unwrap_err().key.as_deref(), Some("steps"));
    let mut trace = tiny_trace();
    trace.meta.beam = None;
    let traces = TestTraces::with("robots", trace);
    let error = render(&options("prompt = \"robots\""), &traces).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(error.hint.unwrap().contains("beams = 3"));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}

#[test]
fn a_translation_grows_its_tree_from_the_decoder_start_below_the_source() {
    use crate::testing::test_seq2seq::seq2seq_beam_trace;
    let traces = TestTraces::with("open", seq2seq_beam_trace());
    let figure = render(&options("prompt = \"open\""), &traces).unwrap();
    let texts = all_texts(&figure.svg);
    let source = texts
        .iter()
        .position(|t| t == "source")
        .expect("a source line");
    assert_eq!(texts[source + 1], "cannot open file");
    assert!(texts.contains(&"start".to_string()) && !texts.contains(&"prompt".to_string()));
    assert!(texts.contains(&"<pad>".to_string()), "the root: {texts:?}");
    // Steps of two beams: "ne</s>" ends at step 2 and stays, the best, at step 3.
    let labels = groups_texts(&figure.svg, "tbf-m").concat();
    assert_eq!(labels[..2], ["impos…", "ne"], "cut to fit");
    assert_eq!(labels[2..6], ["·d'ou…", "</s>", "</s>", "·peut"]);
    assert_eq!(labels[6..], ["·le", "·un", "(end)"]);
    assert!(
        has_line(&figure, "beam: \"ne</s>\", ln p −1.30"),
        "{texts:?}"
    );
    assert!(has_line(
        &figure,
        "greedy (top token each step): \"impossible·d'ouvrir·le\", ln p −1.50"
    ));
    assert!(texts
        .iter()
        .any(|t| t.starts_with("(end): a branch that wrote </s>")));
    assert!(figure
        .svg
        .contains("Beam search of width 2 translating \"cannot open file\""));
    assert!(
        figure.alt.contains("It ends with \"ne</s>\" (ln p −1.30)"),
        "{}",
        figure.alt
    );
}
