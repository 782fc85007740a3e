use super::render;
use crate::testing::test_svg::{all_texts, parse};
use crate::testing::test_traces::{options, tiny_trace, training_run, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::TrainingSummary;

fn run() -> TrainingSummary {
    training_run()
}

fn draw(training: Option<TrainingSummary>, body: &str) -> Result<Figure, FigureError> {
    let mut trace = tiny_trace();
    trace.meta.training = training;
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

/// The x coordinates of every point of the training-loss path.
fn path_points(svg: &str) -> Vec<(f64, f64)> {
    let doc = parse(svg);
    let d = doc
        .descendants()
        .find(|n| n.has_tag_name("path") && n.attribute("class") == Some("tbf-line"))
        .and_then(|n| n.attribute("d"))
        .expect("a loss path")
        .to_string();
    d.split(['M', 'L'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (x, y) = p.split_once(' ').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

#[test]
fn draws_every_loss_point_every_validation_dot_and_the_baseline() {
    let figure = draw(Some(run()), "").unwrap();
    let points = path_points(&figure.svg);
    assert_eq!(points.len(), 100);
    assert!(points.windows(2).all(|w| w[1].0 > w[0].0), "steps go right");
    assert!(
        points.windows(2).all(|w| w[1].1 >= w[0].1),
        "falling loss goes down the page"
    );
    let dots = parse(&figure.svg)
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(dots, 3 + 1, "three validation dots and the legend's");
    let texts = all_texts(&figure.svg);
    assert!(
        texts.contains(&"bigram baseline 6.015".to_string()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&format!(
            "final validation loss 6.050, {:.3} nats above the bigram baseline",
            6.05 - 6.015
        )),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("1,000 steps × 1,024 tokens = 1.0M")),
        "{texts:?}"
    );
    assert!(
        figure
            .alt
            .contains("from 10.850 (step 0) to 6.050 (step 1000)"),
        "{}",
        figure.alt
    );
}

#[test]
fn tokens_on_the_x_axis_scale_the_steps() {
    let steps = draw(Some(run()), "").unwrap();
    let tokens = draw(Some(run()), "x = \"tokens\"").unwrap();
    assert_eq!(
        path_points(&steps.svg),
        path_points(&tokens.svg),
        "same shape"
    );
    assert!(all_texts(&tokens.svg).contains(&"training tokens seen".to_string()));
    assert!(all_texts(&steps.svg).contains(&"optimiser steps".to_string()));
}

#[test]
fn a_model_without_a_training_log_is_a_clear_error() {
    let err = draw(None, "").unwrap_err();
    assert_eq!(err.key.as_deref(), Some("prompt"));
    assert!(
        err.message.contains("records no training run"),
        "{}",
        err.message
    );
    assert!(err.hint.unwrap().contains("tracebook trace --force"));
}

#[test]
fn the_baseline_label_goes_where_the_curves_leave_it_room() {
    use super::{along, label_place};
    use crate::chart::Axis;
    use crate::kinds::training_loss::training_chart::{LEFT, RIGHT};
    let x = Axis {
        lo: 0.0,
        hi: 1.0,
        start: LEFT,
        end: RIGHT,
    };
    let width = 100.0;
    let (left, right) = (LEFT + 6.0, RIGHT - 6.0 - width);
    // Drawing coordinates: smaller y is higher. The line is at y = 100.
    let far_above = [(60.0, 20.0), (80.0, 30.0), (200.0, 99.0)];
    assert_eq!(label_place(100.0, &far_above, width, &x), (left, 95.0));
    let just_above = [(60.0, 92.0), (80.0, 95.0), (120.0, 90.0)];
    assert_eq!(label_place(100.0, &just_above, width, &x), (left, 114.0));
    // A line crossing the left end both above and below: the label goes right, and its
    // segments count, not only its corners.
    let crossing = along(&[(LEFT, 80.0), (LEFT + 150.0, 120.0)]);
    assert_eq!(label_place(100.0, &crossing, width, &x), (right, 95.0));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(Some(run()), "").unwrap().svg);
}

/// `other`: two runs on one chart, each labelled with its model, the shared baseline once, and
/// the final validation losses with their difference.
#[test]
fn other_draws_both_runs_validation_losses() {
    let mut a = tiny_trace();
    a.meta.training = Some(run());
    let mut b = tiny_trace();
    b.meta.model.name = Some("tiny-llama".to_string());
    let mut better = run();
    for point in &mut better.val_loss {
        point.1 -= 0.25;
    }
    b.meta.training = Some(better.clone());
    let traces = TestTraces(std::collections::BTreeMap::from([
        ("p".to_string(), a.clone()),
        ("q".to_string(), b),
    ]));
    let figure = render(&options("prompt = \"p\"\nother = \"q\""), &traces).unwrap();
    let texts = all_texts(&figure.svg);
    let model = a.meta.model.shown();
    assert!(texts.contains(&format!("A: {model}")), "{texts:?}");
    assert!(texts.contains(&"B: tiny-llama".to_string()), "{texts:?}");
    let (la, lb) = (
        run().val_loss.last().unwrap().1,
        better.val_loss.last().unwrap().1,
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains(&format!("A {la:.3}")) && t.contains(&format!("B {lb:.3}"))),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("B − A = −0.250")),
        "{texts:?}"
    );
    let dots = |class: &str| {
        parse(&figure.svg)
            .descendants()
            .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some(class))
            .flat_map(|g| g.children().filter(|c| c.has_tag_name("circle")))
            .count()
    };
    // Every validation loss after step 0, a dot each (step 0 is said, not drawn).
    let trained = |r: &TrainingSummary| r.val_loss.iter().filter(|p| p.0 > 0).count();
    assert_eq!(dots("tbf-c0"), trained(&run()));
    assert_eq!(dots("tbf-c1"), trained(&better));
    if run().val_loss.iter().any(|p| p.0 == 0) {
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("not drawn: the untrained")),
            "{texts:?}"
        );
    }
    assert_eq!(figure.models, [model, "tiny-llama".to_string()]);

    let error = render(
        &options("prompt = \"p\"\nother = \"q\"\nx = \"tokens\""),
        &traces,
    )
    .unwrap_err();
    assert_eq!(error.key.as_deref(), Some("x"));
}

/// training.html said "0.128 nats below the bigram baseline" beside the printed 5.886 and
/// 6.015, whose difference (and modern-llm.html's pair figure) is 0.129: the gap is now the
/// difference of the printed losses, and the declared sum holds.
#[test]
fn the_gap_to_the_baseline_is_the_difference_of_the_printed_losses() {
    let mut run = run();
    let last = run.val_loss.len() - 1;
    run.val_loss[last].1 = 5.8864;
    run.bigram_val_loss = Some(6.0148);
    let figure = draw(Some(run), "").unwrap();
    let texts = all_texts(&figure.svg);
    assert!(
        texts.contains(&"final validation loss 5.886, 0.129 nats below the bigram baseline".into()),
        "{texts:?}"
    );
    assert!(!figure.relations.is_empty());
    for relation in &figure.relations {
        assert!(relation.check().is_ok(), "{relation:?}");
    }
}
