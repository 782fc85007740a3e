//! Tests of `figure descent` on synthetic training summaries.

use super::render;
use crate::testing::test_svg::{groups_texts, parse, texts_outside};
use crate::testing::test_traces::{options, tiny_trace, training_run, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::{TrainingSummary, WeightHistory};

fn draw(training: Option<TrainingSummary>) -> Result<Figure, FigureError> {
    let mut trace = tiny_trace();
    trace.meta.training = training;
    let traces = TestTraces::with("p", trace);
    render(&options("prompt = \"p\""), &traces)
}

/// A run that followed one weight: it falls from 0.02 by 0.0001 a step group while its
/// gradient is positive.
fn with_weight() -> TrainingSummary {
    let mut run = training_run();
    run.weight = Some(WeightHistory {
        name: "h.0.mlp.c_fc.weight".into(),
        index: 0,
        values: (0..=100)
            .map(|i| (i * 10, 0.02 - 0.0001 * i as f64))
            .collect(),
        grads: (1..=100).map(|i| (i * 10, 0.5 / i as f64)).collect(),
    });
    run
}

/// Each panel's line: the `d` of every `tbf-line` path, as its points.
fn lines(figure: &Figure) -> Vec<Vec<(f64, f64)>> {
    let doc = parse(&figure.svg);
    doc.descendants()
        .filter(|n| n.has_tag_name("path") && n.attribute("class") == Some("tbf-line"))
        .map(|n| {
            n.attribute("d")
                .unwrap()
                .split(['M', 'L'])
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (x, y) = p.split_once(' ').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

fn titles(figure: &Figure) -> Vec<String> {
    groups_texts(&figure.svg, "tbf-s tbf-b").concat()
}

#[test]
fn a_log_without_a_followed_weight_draws_loss_rate_and_norm_and_only_those() {
    let figure = draw(Some(training_run())).unwrap();
    assert_eq!(
        titles(&figure),
        [
            "training loss (nats per token)",
            "learning rate: how far a step may go",
            "gradient norm over all weights, before clipping"
        ]
    );
    let lines = lines(&figure);
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| l.len() == 100));
    // It draws those three and tells of no other: neither the notes nor the alt text name a
    // weight panel it does not draw.
    assert!(!figure.svg.contains("single weight"));
    assert!(!figure.alt.contains("weight["));
    assert!(!figure.alt.contains("single weight"));
    // The learning rate warms up over the first tenth, then holds: the line rises, then is flat.
    let lr = &lines[1];
    assert!(
        lr[0].1 > lr[9].1 && (lr[9].1 - lr[99].1).abs() < 0.05,
        "{lr:?}"
    );
}

#[test]
fn a_followed_weight_gets_its_value_and_gradient_panels_on_one_step_axis() {
    let figure = draw(Some(with_weight())).unwrap();
    let titles = titles(&figure);
    assert_eq!(
        titles[0],
        "one weight, h.0.mlp.c_fc.weight[0], after each update"
    );
    assert_eq!(titles.len(), 5);
    let lines = lines(&figure);
    let weight = &lines[0];
    assert_eq!(weight.len(), 101, "the initial value and one per group");
    // Falling weight: every point lower on the page than the one before (y grows downward).
    assert!(weight.windows(2).all(|w| w[1].1 >= w[0].1));
    // Steps line up across panels: step 500 of the weight is above step 500 of the loss.
    assert_eq!(weight[50].0, lines[2][49].0);
    assert!(
        figure
            .alt
            .contains("went from 0.0200 at step 0 to 0.0100 at step 1000"),
        "{}",
        figure.alt
    );
    assert!(!figure.svg.contains("follows no single weight"));
}

#[test]
fn every_value_axis_has_two_ticks_or_more_with_the_decimals_that_tell_them_apart() {
    // A learning rate that peaks just under a round number still gets two ticks.
    let mut run = training_run();
    run.lr = (1..=100)
        .map(|i| (i * 10, 0.0019999 - 0.000018 * i as f64))
        .collect();
    let figure = draw(Some(run)).unwrap();
    assert!(figure.svg.contains(">0.0010</text>") && figure.svg.contains(">0.0015</text>"));
}

/// The site's run: 10,000 steps, and a gradient of a few hundred-thousandths either side of
/// zero, whose lowest tick, −0.00005, is the widest label of any panel.
fn long_run_with_tiny_gradients() -> TrainingSummary {
    let mut run = with_weight();
    run.steps = 10_000;
    for points in [&mut run.loss, &mut run.lr, &mut run.grad_norm] {
        points.iter_mut().for_each(|p| p.0 *= 10);
    }
    let weight = run.weight.as_mut().unwrap();
    weight.values.iter_mut().for_each(|p| p.0 *= 10);
    weight.grads = (1..=100)
        .map(|i| (i * 100, if i % 2 == 0 { 7e-5 } else { -6e-5 }))
        .collect();
    run
}

#[test]
fn every_tick_label_is_drawn_whole_a_minus_sign_and_the_last_step_included() {
    let figure = draw(Some(long_run_with_tiny_gradients())).unwrap();
    // A minus sign cut off at the left edge would print −0.00005 as 0.00005, and the last
    // step's label cut at the right 10000 as 1000.
    assert!(figure.svg.contains(">−0.00005</text>"), "{}", figure.svg);
    assert!(figure.svg.contains(">10000</text>"), "{}", figure.svg);
    assert_eq!(texts_outside(&figure.svg), []);
    // The panels still share one step axis: each line ends at the same x.
    let ends: Vec<f64> = lines(&figure).iter().map(|l| l.last().unwrap().0).collect();
    assert!(ends.windows(2).all(|w| w[0] == w[1]), "{ends:?}");
}

#[test]
fn a_model_without_a_training_log_is_an_error_at_the_prompt() {
    let error = draw(None).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(
        error.message.contains("records no training run"),
        "{}",
        error.message
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(Some(with_weight())).unwrap().svg);
}
