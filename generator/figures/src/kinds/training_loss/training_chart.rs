//! The chart both views of `figure training` draw on: its frame, the vertical axis, a line
//! through points, and the training run a trace records (`training.rs` for one run,
//! `training_pair.rs` for two; `descent.rs` reads runs too).

use crate::chart::{fit_x_labels, y_label_room, Axis};
use crate::error::FigureError;
use crate::kinds::strips::WIDTH;
use crate::prompt::Prompt;
use crate::svg::{number, Element};
use tracebook_trace::TrainingSummary;

/// The chart's left and right ends, unless its tick labels need more room.
pub(super) const LEFT: f64 = 44.0;
pub(super) const RIGHT: f64 = WIDTH - 24.0;
pub(super) const TOP: f64 = 40.0;
pub(super) const HEIGHT: f64 = 200.0;

/// The training run the prompt's trace records, with at least one step.
pub(super) fn recorded_run<'p>(prompt: &'p Prompt<'_>) -> Result<&'p TrainingSummary, FigureError> {
    let meta = &prompt.trace.meta;
    let run = meta.training.as_ref().ok_or_else(|| {
        FigureError::at(
            "prompt",
            format!(
                "the trace of \"{}\" records no training run: its model, {}, has no \
                 training_log.json beside its weights",
                prompt.name,
                meta.model.shown()
            ),
        )
        .with_hint(
            "this figure draws models trained by `tracebook train`; if the model folder has \
             a training_log.json, run `tracebook trace --force --only NAME` to record it",
        )
    })?;
    if run.loss.is_empty() {
        return Err(FigureError::at(
            "prompt",
            "the training run records no steps",
        ));
    }
    Ok(run)
}

/// The chart's step axis (`hi` the last step, or tokens seen, with `x_ticks`) for a loss
/// axis with `y_ticks`: from [`LEFT`], or further in where the loss labels need the room, to
/// [`RIGHT`], or less where the last step's label needs it.
pub(super) fn x_axis_for(hi: f64, x_ticks: &[f64], y_ticks: &[f64]) -> Axis {
    let x = Axis {
        lo: 0.0,
        hi,
        start: LEFT.max(y_label_room(y_ticks)),
        end: RIGHT,
    };
    fit_x_labels(x, x_ticks, 0.0, WIDTH)
}

/// The name of one model's gap between its final validation loss and the bigram baseline, a
/// quantity the training figures of a site print alike (`Relation::Quantity`).
pub(super) fn gap_quantity(model: &tracebook_trace::ModelInfo) -> String {
    let sha = model
        .weights_sha256
        .get(..12)
        .unwrap_or(&model.weights_sha256);
    format!(
        "{} ({sha}): final validation loss's distance from the bigram baseline",
        model.shown()
    )
}

/// A loss as printed, to the thousandth: differences are taken between printed values, so a
/// reader subtracting them gets the printed difference (6.015 − 5.886 = 0.129, not the
/// 0.128 of the unrounded losses).
pub(super) fn as_printed(loss: f64) -> f64 {
    (loss * 1000.0).round() / 1000.0
}

pub(super) fn path(class: &str, points: impl Iterator<Item = (f64, f64)>) -> Element {
    let mut d = String::new();
    for (i, (px, py)) in points.enumerate() {
        let verb = if i == 0 { 'M' } else { 'L' };
        d.push_str(&format!("{verb}{} {}", number(px, 1), number(py, 1)));
    }
    Element::new("path").class(class).attr("d", d)
}
