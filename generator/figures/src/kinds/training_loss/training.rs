//! `figure training`: how the model that made the trace learned. Its training loss (mean
//! over groups of steps) as a line, its validation loss as dots, and the bigram baseline as
//! a dashed line, from `meta.training`, which `tracebook trace` copies from the
//! `training_log.json` that `tracebook train` leaves beside the weights. Models trained
//! elsewhere (GPT-2 itself) have no such log, and the figure says so.
//!
//! Options: `prompt` (any prompt traced with the model), `caption`, `x` = "steps" (default)
//! | "tokens" (training tokens seen on the horizontal axis), `other` (a prompt traced with
//! another trained model: both runs' validation losses on one chart, `training_pair.rs`).

use super::training_chart::{as_printed, path, recorded_run, x_axis_for, HEIGHT, TOP};
use super::training_pair;
use crate::chart::{ticks, x_axis, y_axis, Axis};
use crate::draw::{line, note, text, wrapped_notes};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{count, short};
use crate::kinds::strips::WIDTH;
use crate::options::{choice, resolve_prompt, Block};
use crate::relations::{printed, Relation};
use crate::svg::{number, text_width, Canvas, Css, Element, Font};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::TrainingSummary;

pub const KIND: &str = "training";

choice! {
    /// What the x axis counts.
    enum XAxis { Steps = "steps", Tokens = "tokens" } default Steps
}

/// The options of `training`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    x: XAxis,
    /// A prompt traced with another trained model, drawn beside this one's.
    other: Option<String>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let by_tokens = block.options.x == XAxis::Tokens;
    if let Some(other) = &block.options.other {
        if by_tokens {
            return Err(FigureError::at(
                "x",
                "figure `training` with `other` draws both runs by optimiser steps",
            )
            .with_hint("drop x = \"tokens\", or drop `other`"));
        }
        let other = resolve_prompt(other, traces).map_err(|mut e| {
            e.key = Some("other".to_string());
            e
        })?;
        return training_pair::render(KIND, &prompt, &other, caption);
    }
    let run = recorded_run(&prompt)?;
    let axes = Axes::of(run, by_tokens);
    let mut body = vec![note("loss (nats per token)", 0.0, 14.0)];
    body.push(y_axis(&axes.x, &axes.y, &ticks(axes.y.lo, axes.y.hi, 5)));
    let title = if by_tokens {
        "training tokens seen"
    } else {
        "optimiser steps"
    };
    body.push(x_axis(
        &axes.x,
        TOP + HEIGHT,
        &ticks(0.0, axes.x.hi, 5),
        title,
    ));
    if let Some(bigram) = run.bigram_val_loss {
        body.extend(baseline(run, bigram, &axes));
    }
    body.push(path(
        "tbf-line",
        run.loss.iter().map(|&(s, l)| axes.point(s, l)),
    ));
    body.push(validation_dots(run, &axes));
    body.push(legend(TOP + HEIGHT + 44.0));
    let (lines, last) = wrapped_notes(&summary(run), 0.0, TOP + HEIGHT + 70.0, WIDTH, 15.0);
    body.extend(lines);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: last + 8.0,
        title: "Training loss".to_string(),
        desc: describe(run, &prompt.trace.meta.model.shown()),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, &prompt)
        .with_source(Source::TrainingLog)
        .with_relations(relations(run, &prompt.trace.meta.model)))
}

/// What a reader can check in the notes: the tokens seen are the steps times the tokens per
/// step (where all three print as numbers, not "1.8M"); the final validation loss and the
/// baseline are not negative, and their difference is the gap printed beside them.
fn relations(run: &TrainingSummary, model: &tracebook_trace::ModelInfo) -> Vec<Relation> {
    let mut out = vec![Relation::Product {
        factors: vec![count(run.steps), count(run.tokens_per_step)],
        result: count(run.steps * run.tokens_per_step),
    }];
    let at_least_zero = |loss: f64| Relation::Bound {
        value: nats(loss),
        low: 0.0,
        high: f64::INFINITY,
        why: "a loss",
    };
    if let Some(&(_, last)) = run.val_loss.last() {
        out.push(at_least_zero(last));
        if let Some(bigram) = run.bigram_val_loss {
            let gap = nats((as_printed(last) - as_printed(bigram)).abs());
            let (low, high) = if last > bigram {
                (bigram, last)
            } else {
                (last, bigram)
            };
            out.push(at_least_zero(bigram));
            out.push(Relation::Quantity {
                name: super::training_chart::gap_quantity(model),
                value: gap.clone(),
            });
            out.push(Relation::Sum {
                terms: vec![nats(low), gap],
                total: nats(high),
            });
        }
    }
    out.retain(|r| r.texts().iter().all(|t| printed(t).is_some()));
    out
}

/// Where steps and losses go: steps (or tokens seen) across, losses up.
struct Axes {
    x: Axis,
    y: Axis,
    /// Units of the x axis per step: 1, or the tokens each step sees.
    per_step: f64,
}

impl Axes {
    fn of(run: &TrainingSummary, by_tokens: bool) -> Axes {
        let per_step = if by_tokens {
            run.tokens_per_step as f64
        } else {
            1.0
        };
        let last_step = run.loss.last().map_or(1, |p| p.0).max(1);
        let values = run
            .loss
            .iter()
            .chain(&run.val_loss)
            .map(|p| p.1)
            .chain(run.bigram_val_loss);
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        // A little room around the curves, so a baseline near the lowest stays off the axis.
        let pad = 0.05 * (hi - lo).max(0.1);
        let y = Axis {
            lo: lo - pad,
            hi: hi + pad,
            start: TOP + HEIGHT,
            end: TOP,
        };
        let hi = last_step as f64 * per_step;
        let x = x_axis_for(hi, &ticks(0.0, hi, 5), &ticks(y.lo, y.hi, 5));
        Axes { x, y, per_step }
    }

    /// Where the loss `loss` at step `step` is drawn.
    fn point(&self, step: usize, loss: f64) -> (f64, f64) {
        (self.x.at(step as f64 * self.per_step), self.y.at(loss))
    }
}

/// The bigram baseline as a dashed line across, with its label where the drawn curves leave
/// it room: at the left above the line, else below, else at the right (see [`label_place`]).
fn baseline(run: &TrainingSummary, bigram: f64, axes: &Axes) -> [Element; 2] {
    let at = axes.y.at(bigram);
    let dashed = line("tbf-o", axes.x.start, at, axes.x.end, at).attr("stroke-dasharray", "4 3");
    let label = format!("bigram baseline {}", nats(bigram));
    let width = text_width(&label, Font::Sans, 12.0) * LABEL_SLACK;
    let line_points: Vec<(f64, f64)> = run.loss.iter().map(|&(s, l)| axes.point(s, l)).collect();
    let mut curves = along(&line_points);
    curves.extend(run.val_loss.iter().map(|&(s, l)| axes.point(s, l)));
    let (x, y) = label_place(at, &curves, width, &axes.x);
    let label = text(x, y).class("tbf-s tbf-dim").text(label);
    [dashed, label]
}

/// The points of the polyline through `points`, with more along every segment (one per
/// 2 units across), so that a label placed by them keeps off the line between its corners.
fn along(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = points.first().into_iter().copied().collect();
    for pair in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
        let n = ((x1 - x0).abs() / 2.0).ceil().max(1.0) as usize;
        out.extend((1..=n).map(|i| {
            let t = i as f64 / n as f64;
            (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
        }));
    }
    out
}

/// The validation losses, a dot each.
fn validation_dots(run: &TrainingSummary, axes: &Axes) -> Element {
    let mut dots = Element::new("g").class("tbf-c1");
    for &(step, loss) in &run.val_loss {
        let (cx, cy) = axes.point(step, loss);
        dots.push(
            Element::new("circle")
                .attr("cx", number(cx, 1))
                .attr("cy", number(cy, 1))
                .attr("r", "3"),
        );
    }
    dots
}

fn legend(top: f64) -> Element {
    let mut group = Element::new("g").class("tbf-s");
    group.push(line("tbf-line", 0.0, top - 4.0, 18.0, top - 4.0));
    group.push(text(24.0, top).text("training loss"));
    group.push(
        Element::new("circle")
            .class("tbf-c1")
            .attr("cx", "128")
            .attr("cy", number(top - 4.0, 1))
            .attr("r", "3"),
    );
    group.push(text(136.0, top).text("validation loss"));
    group.push(line("tbf-o", 250.0, top - 4.0, 268.0, top - 4.0).attr("stroke-dasharray", "4 3"));
    group.push(text(274.0, top).text("bigram baseline"));
    group
}

/// How much wider than the width estimate a label may render (DejaVu Sans, the usual sans
/// on Linux, runs about a fifth wider).
const LABEL_SLACK: f64 = 1.25;

/// Where the baseline's label (`width` wide) goes, its left end and text baseline, for a
/// line at `at` across the chart's step axis `x`: the first of left above the line, left below, right above and right below
/// that none of the drawn points (`curves`, in drawing coordinates, with a line's or a dot's
/// thickness around them) fall in; where every place has some, the one with fewest.
fn label_place(at: f64, curves: &[(f64, f64)], width: f64, x: &Axis) -> (f64, f64) {
    // The text's band over its baseline, and the points' half thickness.
    const ABOVE: f64 = 11.0;
    const BELOW: f64 = 3.0;
    const THICK: f64 = 3.0;
    let left = x.start + 6.0;
    let right = (x.end - 6.0 - width).max(left);
    let places = [
        (left, at - 5.0),
        (left, at + 14.0),
        (right, at - 5.0),
        (right, at + 14.0),
    ];
    let hits = |&(x, y): &(f64, f64)| {
        curves
            .iter()
            .filter(|&&(px, py)| {
                (x - THICK..=x + width + THICK).contains(&px)
                    && (y - ABOVE - THICK..=y + BELOW + THICK).contains(&py)
            })
            .count()
    };
    places
        .iter()
        .copied()
        .min_by_key(hits)
        .unwrap_or((left, at - 5.0))
}

/// What the run saw and where it ended, a paragraph each.
fn summary(run: &TrainingSummary) -> Vec<String> {
    let tokens = run.steps * run.tokens_per_step;
    let mut lines = vec![format!(
        "{} steps × {} tokens = {} training tokens seen, {} passes over the {} tokens of the \
         training split",
        count(run.steps),
        count(run.tokens_per_step),
        count(tokens),
        short(tokens as f64 / run.corpus_tokens.max(1) as f64),
        count(run.corpus_tokens)
    )];
    if let Some(&(_, last)) = run.val_loss.last() {
        let mut line = format!("final validation loss {}", nats(last));
        if let Some(bigram) = run.bigram_val_loss {
            let gap = as_printed(last) - as_printed(bigram);
            let side = if gap > 0.0 { "above" } else { "below" };
            line.push_str(&format!(
                ", {} nats {side} the bigram baseline",
                nats(gap.abs())
            ));
        }
        lines.push(line);
    }
    lines
}

/// A loss in nats, to the third decimal: the differences that matter are hundredths.
fn nats(value: f64) -> String {
    format!("{value:.3}")
}

fn describe(run: &TrainingSummary, model: &str) -> String {
    let first = run.loss.first().map_or(0.0, |p| p.1);
    let last = run.loss.last().map_or(0.0, |p| p.1);
    let mut out = format!(
        "Training loss of {model} over {} optimiser steps: from {} to {} nats per token.",
        count(run.steps),
        nats(first),
        nats(last)
    );
    if let (Some(a), Some(b)) = (run.val_loss.first(), run.val_loss.last()) {
        out.push_str(&format!(
            " Validation loss from {} (step {}) to {} (step {}).",
            nats(a.1),
            a.0,
            nats(b.1),
            b.0
        ));
    }
    if let Some(bigram) = run.bigram_val_loss {
        out.push_str(&format!(" A bigram baseline scores {}.", nats(bigram)));
    }
    out
}

#[cfg(test)]
#[path = "training_tests.rs"]
mod tests;
