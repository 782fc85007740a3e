//! `figure training` with `other`: two training runs on one chart, for models trained alike
//! (two architectures on the same corpus, say). Each run's validation loss as dots joined by a
//! line, A in blue and B in orange, each labelled with its model; the bigram baseline dashed
//! when both runs measured the same one (the same training split); and the final validation
//! losses with their difference.

use super::training_chart::{as_printed as printed, path, recorded_run, x_axis_for, HEIGHT, TOP};
use crate::chart::{ticks, x_axis, y_axis, Axis};
use crate::draw::{line, note, text, wrapped_notes};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{count, signed};
use crate::kinds::strips::WIDTH;
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{number, Canvas, Css, Element};
use tracebook_trace::TrainingSummary;

/// Both runs' validation curves, drawn as figure `kind`; `a` and `b` name the prompts whose
/// traces record them.
pub fn render(
    kind: &'static str,
    a: &Prompt<'_>,
    b: &Prompt<'_>,
    caption: Option<String>,
) -> Result<Figure, FigureError> {
    let runs = [recorded_run(a)?, recorded_run(b)?];
    let models = [a, b].map(|p| p.trace.meta.model.shown());
    let (x, y) = axes(&runs);
    let mut body = vec![note("validation loss (nats per token)", 0.0, 14.0)];
    body.push(y_axis(&x, &y, &ticks(y.lo, y.hi, 5)));
    body.push(x_axis(
        &x,
        TOP + HEIGHT,
        &ticks(0.0, x.hi, 5),
        "optimiser steps",
    ));
    let bigram = shared_bigram(&runs);
    if let Some(bigram) = bigram {
        let at = y.at(bigram);
        body.push(line("tbf-o", x.start, at, x.end, at).attr("stroke-dasharray", "4 3"));
    }
    for (i, run) in runs.iter().enumerate() {
        body.push(curve(run, i, &x, &y));
    }
    body.push(legend(&models, bigram.is_some(), TOP + HEIGHT + 44.0));
    let lines = summary(&runs, bigram);
    let (notes, last) = wrapped_notes(&lines, 0.0, TOP + HEIGHT + 90.0, WIDTH, 15.0);
    body.extend(notes);
    let canvas = Canvas {
        kind,
        width: WIDTH,
        height: last + 8.0,
        title: format!("Validation loss of {} and {}", models[0], models[1]),
        desc: describe(&runs, &models, bigram),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, a)
        .also_from(b)
        .with_source(Source::TrainingLog)
        .with_relations(relations(
            &runs,
            bigram,
            [&a.trace.meta.model, &b.trace.meta.model],
        )))
}

/// Each run's final validation loss, as printed (to the thousandth).
fn finals(runs: &[&TrainingSummary; 2]) -> [(usize, f64); 2] {
    runs.map(|r| {
        r.val_loss
            .last()
            .map_or((0, f64::NAN), |&(s, l)| (s, printed(l)))
    })
}

/// B − A with its sign, "+" included.
fn difference(la: f64, lb: f64) -> String {
    format!("{}{}", if lb > la { "+" } else { "" }, signed(lb - la, 3))
}

/// What a reader can check in the notes: A's final loss plus B − A is B's, and each run's
/// distance from the baseline is the difference of the two printed losses.
fn relations(
    runs: &[&TrainingSummary; 2],
    bigram: Option<f64>,
    models: [&tracebook_trace::ModelInfo; 2],
) -> Vec<Relation> {
    let [(_, la), (_, lb)] = finals(runs);
    if !la.is_finite() || !lb.is_finite() {
        return Vec::new();
    }
    let mut out = vec![Relation::Sum {
        terms: vec![format!("{la:.3}"), difference(la, lb)],
        total: format!("{lb:.3}"),
    }];
    if let Some(b) = bigram.map(printed) {
        for (l, model) in [la, lb].into_iter().zip(models) {
            let (low, high) = if l <= b { (l, b) } else { (b, l) };
            out.push(Relation::Quantity {
                name: super::training_chart::gap_quantity(model),
                value: format!("{:.3}", high - low),
            });
            out.push(Relation::Sum {
                terms: vec![format!("{low:.3}"), format!("{:.3}", high - low)],
                total: format!("{high:.3}"),
            });
        }
    }
    out
}

/// Steps across (the longer run's), validation losses and the baseline up.
fn axes(runs: &[&TrainingSummary; 2]) -> (Axis, Axis) {
    let last = runs
        .iter()
        .flat_map(|r| r.val_loss.last().map(|p| p.0))
        .max()
        .unwrap_or(1)
        .max(1);
    let values = runs
        .iter()
        .flat_map(|r| trained(r).map(|p| p.1).chain(r.bigram_val_loss));
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let pad = 0.05 * (hi - lo).max(0.1);
    let y = Axis {
        lo: lo - pad,
        hi: hi + pad,
        start: TOP + HEIGHT,
        end: TOP,
    };
    let hi = last as f64;
    let x = x_axis_for(hi, &ticks(0.0, hi, 5), &ticks(y.lo, y.hi, 5));
    (x, y)
}

/// The bigram baseline when both runs measured it alike (to the thousandth of a nat).
fn shared_bigram(runs: &[&TrainingSummary; 2]) -> Option<f64> {
    match (runs[0].bigram_val_loss, runs[1].bigram_val_loss) {
        (Some(a), Some(b)) if (a - b).abs() < 5e-4 => Some(a),
        _ => None,
    }
}

/// The validation losses after training began: the untrained model's (step 0, near
/// ln 50,257 for any model) would squeeze the differences that matter into a sliver.
fn trained(run: &TrainingSummary) -> impl Iterator<Item = &(usize, f64)> {
    run.val_loss.iter().filter(|p| p.0 > 0)
}

/// Run `i`'s validation losses: a line through dots, in its colour.
fn curve(run: &TrainingSummary, i: usize, x: &Axis, y: &Axis) -> Element {
    let points: Vec<(f64, f64)> = trained(run)
        .map(|&(s, l)| (x.at(s as f64), y.at(l)))
        .collect();
    // The colour class on the group: the line inherits its stroke, and its own fill="none"
    // wins over the inherited fill (a class on the path itself would fill it).
    let mut group = Element::new("g").class(&format!("tbf-c{i}"));
    group.push(
        path("", points.iter().copied())
            .attr("fill", "none")
            .attr("stroke-width", "1.5"),
    );
    for (cx, cy) in points {
        group.push(
            Element::new("circle")
                .attr("cx", number(cx, 1))
                .attr("cy", number(cy, 1))
                .attr("r", "3"),
        );
    }
    group
}

fn legend(models: &[String; 2], bigram: bool, top: f64) -> Element {
    let mut group = Element::new("g").class("tbf-s");
    for (i, model) in models.iter().enumerate() {
        let y = top + i as f64 * 16.0;
        group.push(
            Element::new("circle")
                .class(&format!("tbf-c{i}"))
                .attr("cx", "6")
                .attr("cy", number(y - 4.0, 1))
                .attr("r", "3"),
        );
        group.push(text(16.0, y).text(format!("{}: {model}", ["A", "B"][i])));
    }
    if bigram {
        let y = top + 32.0;
        group.push(line("tbf-o", 0.0, y - 4.0, 12.0, y - 4.0).attr("stroke-dasharray", "4 3"));
        group.push(text(16.0, y).text("bigram baseline"));
    }
    group
}

/// Where each run ended, and the difference.
fn summary(runs: &[&TrainingSummary; 2], bigram: Option<f64>) -> Vec<String> {
    let [(sa, la), (sb, lb)] = finals(runs);
    let mut lines = vec![format!(
        "final validation loss: A {la:.3} after {} steps, B {lb:.3} after {} steps; B − A = \
         {} nats per token",
        count(sa),
        count(sb),
        difference(la, lb)
    )];
    if let Some(b) = bigram.map(printed) {
        let side = |l: f64| {
            let (gap, where_) = if l <= b {
                (b - l, "below")
            } else {
                (l - b, "above")
            };
            format!("{gap:.3} {where_} it")
        };
        lines.push(format!(
            "bigram baseline {b:.3}: A ends {}, B {}",
            side(la),
            side(lb)
        ));
    }
    let start = |r: &TrainingSummary| r.val_loss.iter().find(|p| p.0 == 0).map(|p| p.1);
    if let (Some(a), Some(b)) = (start(runs[0]), start(runs[1])) {
        lines.push(format!(
            "not drawn: the untrained models' losses at step 0, A {a:.3} and B {b:.3}"
        ));
    }
    lines
}

fn describe(runs: &[&TrainingSummary; 2], models: &[String; 2], bigram: Option<f64>) -> String {
    let curve = |r: &TrainingSummary| {
        r.val_loss
            .iter()
            .map(|&(s, l)| format!("{l:.3} at step {s}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "Validation loss of A, {}: {}. Of B, {}: {}.",
        models[0],
        curve(runs[0]),
        models[1],
        curve(runs[1])
    );
    if let Some(b) = bigram {
        out.push_str(&format!(" Both runs' bigram baseline scores {b:.3}."));
    }
    out
}
