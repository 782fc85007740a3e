//! `figure descent`: gradient descent as the training log recorded it, over the optimiser
//! steps: the training loss, the learning rate (how far each step may move a weight) and
//! the gradient's norm (how steep the loss is), and, when the run followed one weight, that
//! weight's value after every update beside the gradient it was given.
//!
//! Everything comes from `meta.training`, which `tracebook trace` copies from the
//! `training_log.json` of `tracebook train`. Runs whose log predates the followed weight
//! have no weight panels: the figure draws the three the log holds and names no other (the
//! prose around it can say why).
//!
//! Options: `prompt` (any prompt traced with the model), `caption`.

use super::training_chart::{path, recorded_run};
use crate::chart::{fit_x_labels, tick_labels, ticks, x_axis, y_axis, y_label_room, Axis};
use crate::draw::{text, wrapped_notes};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{count, signed};
use crate::kinds::strips::WIDTH;
use crate::options::Block;
use crate::relations::Relation;
use crate::svg::{Canvas, Css, Element};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::TrainingSummary;

pub const KIND: &str = "descent";

/// The least room left of the value axes; wider tick labels take more.
const LEFT: f64 = 56.0;
/// The right end of the step axis, unless its last label needs more room.
const RIGHT: f64 = WIDTH - 12.0;
const PANEL: f64 = 64.0;
/// From one panel's bottom to the next one's top (its title sits in between).
const GAP: f64 = 30.0;

/// `descent` takes only the preamble.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {}

/// One panel: a title and a series of `[step, value]`.
struct Series<'a> {
    title: String,
    points: &'a [(usize, f64)],
    class: &'static str,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let Block {
        prompt, caption, ..
    } = Block::<Opts>::read(KIND, table, traces)?;
    let run = recorded_run(&prompt)?;
    let series = series(run);
    let last_step = run.loss.last().map_or(1, |p| p.0).max(1);
    let step_ticks = ticks(0.0, last_step as f64, 5);
    let x = step_axis(&series, last_step, &step_ticks);
    let mut body = Vec::new();
    let mut top = 18.0;
    for s in &series {
        body.extend(panel(s, &x, top));
        top += PANEL + GAP;
    }
    let bottom = top - GAP;
    body.push(x_axis(&x, bottom, &step_ticks, "optimiser steps"));
    let (lines, last) = wrapped_notes(&notes(run), 0.0, bottom + 50.0, WIDTH, 15.0);
    body.extend(lines);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: last + 8.0,
        title: "Gradient descent, step by step".to_string(),
        desc: describe(run, &prompt.trace.meta.model.shown()),
        css: Css::default(),
    };
    let relations = relations(run, &series);
    Ok(Figure::new(canvas, body, caption, &prompt)
        .with_source(Source::TrainingLog)
        .with_relations(relations))
}

/// What a reader can check: each panel's value axis rises up the page, tick after tick; and
/// the loss, the learning rate and the gradient norm the alt text gives are not negative.
fn relations(run: &TrainingSummary, series: &[Series<'_>]) -> Vec<Relation> {
    let mut out: Vec<Relation> = series
        .iter()
        .map(|s| Relation::Order {
            values: tick_labels(&value_ticks(s).2),
            descending: false,
        })
        .collect();
    for (points, why) in [
        (&run.loss, "a loss"),
        (&run.lr, "a learning rate"),
        (&run.grad_norm, "a norm"),
    ] {
        for &(_, v) in points.first().into_iter().chain(points.last()) {
            out.push(Relation::Bound {
                value: signed(v, 4),
                low: 0.0,
                high: f64::INFINITY,
                why,
            });
        }
    }
    out
}

/// A panel's value range and its ticks: three or so, and never fewer than two (one tick
/// cannot say its own precision).
fn value_ticks(s: &Series) -> (f64, f64, Vec<f64>) {
    let (lo, hi) = s
        .points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    let (lo, hi) = if lo < hi {
        (lo, hi)
    } else {
        (lo - 1.0, hi + 1.0)
    };
    let mut tick_values = ticks(lo, hi, 3);
    if tick_values.len() < 2 {
        tick_values = ticks(lo, hi, 6);
    }
    (lo, hi, tick_values)
}

/// The panels the run has data for, top to bottom.
fn series(run: &TrainingSummary) -> Vec<Series<'_>> {
    let mut out = Vec::new();
    if let Some(w) = &run.weight {
        out.push(Series {
            title: format!("one weight, {}[{}], after each update", w.name, w.index),
            points: &w.values,
            class: "tbf-line",
        });
        out.push(Series {
            title: "its gradient ∂loss/∂w (the update goes against it)".to_string(),
            points: &w.grads,
            class: "tbf-line",
        });
    }
    out.push(Series {
        title: "training loss (nats per token)".to_string(),
        points: &run.loss,
        class: "tbf-line",
    });
    if !run.lr.is_empty() {
        out.push(Series {
            title: "learning rate: how far a step may go".to_string(),
            points: &run.lr,
            class: "tbf-line",
        });
    }
    if !run.grad_norm.is_empty() {
        out.push(Series {
            title: "gradient norm over all weights, before clipping".to_string(),
            points: &run.grad_norm,
            class: "tbf-line",
        });
    }
    out
}

/// The step axis all panels share: from where every panel's value labels leave room (a
/// minus sign included) to where its own last label still fits the figure.
fn step_axis(series: &[Series], last_step: usize, step_ticks: &[f64]) -> Axis {
    let left = series
        .iter()
        .map(|s| y_label_room(&value_ticks(s).2))
        .fold(LEFT, f64::max);
    let x = Axis {
        lo: 0.0,
        hi: last_step as f64,
        start: left,
        end: RIGHT,
    };
    fit_x_labels(x, step_ticks, 0.0, WIDTH)
}

/// A panel at `top`: its title, a value axis with three or so ticks and grid lines, and the
/// series as a line.
fn panel(s: &Series, x: &Axis, top: f64) -> Vec<Element> {
    let (lo, hi, tick_values) = value_ticks(s);
    let y = Axis {
        lo,
        hi,
        start: top + PANEL,
        end: top,
    };
    let axis = y_axis(x, &y, &tick_values);
    vec![
        Element::new("g")
            .class("tbf-s tbf-b")
            .child(text(0.0, top - 8.0).text(s.title.clone())),
        axis,
        path(
            s.class,
            s.points
                .iter()
                .map(|&(step, v)| (x.at(step as f64), y.at(v))),
        ),
    ]
}

/// What to read in the panels, in this run's numbers.
fn notes(run: &TrainingSummary) -> Vec<String> {
    vec![format!(
        "{} steps; each moves every weight a little against its gradient, by at most about \
         the learning rate (AdamW scales each step)",
        count(run.steps)
    )]
}

fn describe(run: &TrainingSummary, model: &str) -> String {
    let ends = |points: &[(usize, f64)]| -> Option<String> {
        let (a, b) = (points.first()?, points.last()?);
        Some(format!(
            "from {} at step {} to {} at step {}",
            signed(a.1, 4),
            a.0,
            signed(b.1, 4),
            b.0
        ))
    };
    let mut out = format!(
        "Gradient descent in the training of {model}, over {} optimiser steps.",
        count(run.steps)
    );
    if let Some(w) = &run.weight {
        if let Some(e) = ends(&w.values) {
            out.push_str(&format!(" The weight {}[{}] went {e}.", w.name, w.index));
        }
    }
    if let Some(e) = ends(&run.loss) {
        out.push_str(&format!(" The training loss went {e}."));
    }
    if let Some(e) = ends(&run.lr) {
        out.push_str(&format!(" The learning rate went {e}."));
    }
    if let Some(e) = ends(&run.grad_norm) {
        out.push_str(&format!(" The gradient norm went {e}."));
    }
    out
}

#[cfg(test)]
#[path = "descent_tests.rs"]
mod tests;
