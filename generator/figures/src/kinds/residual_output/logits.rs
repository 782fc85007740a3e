//! `figure logits`: the raw scores the model gives its likeliest next tokens (the logits,
//! before the softmax) beside the probabilities the softmax makes of them.
//!
//! A logit has no zero that means anything: adding one number to every logit leaves every
//! probability as it was. So the logit bars stand on an axis that starts a little below the
//! smallest shown and is labelled with its values, and the notes say what does count: the
//! normalizer m = log Σ exp over all V logits (p = exp(logit − m)), and how a difference of d
//! between two logits is a ratio of e^d between their probabilities, with the top two.
//! Both columns come from one [`crate::candidates`] read, so they are exact at any position.
//!
//! Options: `prompt`, `caption`, `k` (candidates, default 8, at most the trace's top_k),
//! `position` (the token after which to predict, default -1, the last).

use crate::candidates::{self, Candidate};
use crate::chart::{bar_column, label_column, ticks, x_axis, Axis, Bar};
use crate::draw::{text, wrapped_notes};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{percent, signed, thousands};
use crate::kinds::strips::WIDTH;
use crate::options::{capped, Block, PositionKey, TopK};
use crate::relations::{printed, Func, Relation};
use crate::svg::{text_width, Canvas, Css, Element, Font, MIN_TEXT_SIZE};
use crate::token_text::{one_line, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "logits";

const PITCH: f64 = 22.0;
const TOP: f64 = 30.0;
/// Room after a bar for its number ("−123.45" at 12 units) or percentage.
const NUMBER_ROOM: f64 = 48.0;
/// Between the logit column and the probability column.
const GUTTER: f64 = 14.0;
const MAX_LABEL: f64 = 100.0;

/// The options of `logits`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    k: Option<TopK>,
    #[serde(default)]
    position: PositionKey,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let position = block.token(block.options.position)?.0;
    let (prompt, caption) = (block.prompt, block.caption);
    let tokens = prompt.tokens()?;
    let distribution = candidates::at(&prompt, position)?;
    let stored = distribution.candidates.len();
    let k = capped(block.options.k, 8, stored)?;
    let shown = &distribution.candidates[..k];
    let text = &prompt.trace.meta.prompt.text;
    let context = one_line(text.get(..tokens[position].end).unwrap_or(text));
    let vocab = distribution.vocab;
    let (body, height) = draw(shown, vocab);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!("Logits and probabilities after \"{context}\""),
        desc: describe(&context, shown, vocab),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations(shown)))
}

/// What a reader can check: each probability is exp(logit − m) with the printed m, both
/// columns fall from the top, and the top two's gap is their logits' difference, e^gap the
/// ratio of their probabilities.
fn relations(shown: &[Candidate]) -> Vec<Relation> {
    let Some(first) = shown.first() else {
        return Vec::new();
    };
    let m = signed(normalizer(first), 2);
    let logits: Vec<String> = shown.iter().map(|c| signed(c.logit, 2)).collect();
    let probs: Vec<String> = shown.iter().map(|c| percent(c.prob)).collect();
    let mut out: Vec<Relation> = (logits.iter().zip(&probs))
        .filter(|(_, p)| printed(p).is_some())
        .map(|(l, p)| Relation::Shifted {
            f: Func::Exp,
            input: l.clone(),
            minus: m.clone(),
            output: p.clone(),
        })
        .collect();
    out.push(Relation::Order {
        values: logits.clone(),
        descending: true,
    });
    out.push(Relation::Order {
        values: probs
            .iter()
            .filter(|p| printed(p).is_some())
            .cloned()
            .collect(),
        descending: true,
    });
    if let Some(second) = shown.get(1) {
        let gap = signed(first.logit - second.logit, 2);
        let r = ratio(first.prob / second.prob);
        out.push(Relation::Sum {
            terms: vec![logits[1].clone(), gap.clone()],
            total: logits[0].clone(),
        });
        out.push(Relation::Function {
            f: Func::Exp,
            input: gap,
            output: r.clone(),
        });
        if probs[..2].iter().all(|p| printed(p).is_some()) {
            out.push(Relation::Product {
                factors: vec![probs[1].clone(), r],
                result: probs[0].clone(),
            });
        }
    }
    out
}

/// m = log Σ exp over all logits, from the likeliest candidate: logit − ln p.
fn normalizer(first: &Candidate) -> f64 {
    first.logit - first.prob.ln()
}

/// Column heads, token labels, the two bar columns, the logit axis and the notes; returns
/// them with the figure's height.
fn draw(shown: &[Candidate], vocab: usize) -> (Vec<Element>, f64) {
    let labels: Vec<Shown> = shown
        .iter()
        .map(|c| Shown::fit(&c.text, MAX_LABEL, Font::Mono, MIN_TEXT_SIZE))
        .collect();
    let label_width = labels
        .iter()
        .map(|l| text_width(&l.text(), Font::Mono, MIN_TEXT_SIZE))
        .fold(24.0, f64::max)
        .ceil();
    let logit_x = label_width + 12.0;
    let column = ((WIDTH - logit_x - GUTTER) / 2.0).floor();
    let room = column - NUMBER_ROOM;
    let prob_x = logit_x + column + GUTTER;
    let (axis, step) = logit_axis(shown, logit_x, room);
    let logit_bars: Vec<Bar> = shown
        .iter()
        .enumerate()
        .map(|(i, c)| Bar {
            value: c.logit - axis.lo,
            text: signed(c.logit, 2),
            strong: i == 0,
        })
        .collect();
    let prob_bars: Vec<Bar> = shown
        .iter()
        .enumerate()
        .map(|(i, c)| Bar {
            value: c.prob,
            text: percent(c.prob),
            strong: i == 0,
        })
        .collect();
    let top_p = shown.first().map_or(1.0, |c| c.prob);
    let bottom = TOP + shown.len() as f64 * PITCH;
    let heads = Element::new("g")
        .class("tbf-s tbf-dim")
        .child(text(logit_x, 14.0).text("logit: the raw score"))
        .child(text(prob_x, 14.0).text("probability: its softmax"));
    let mut body = vec![
        heads,
        label_column(&labels, logit_x - 8.0, TOP, PITCH, MIN_TEXT_SIZE),
        bar_column(&logit_bars, logit_x, room, axis.hi - axis.lo, TOP, PITCH),
        bar_column(&prob_bars, prob_x, room, top_p, TOP, PITCH),
        x_axis(&axis, bottom + 2.0, &axis_ticks(&axis, step), "logit"),
    ];
    let (lines, last) = wrapped_notes(&notes(shown, vocab), 0.0, bottom + 52.0, WIDTH, 15.0);
    body.extend(lines);
    (body, last + 15.0)
}

/// The logit axis, and its ticks' spacing: from a round value a little below the smallest
/// shown logit (so the smallest bar is not a sliver) to the largest, over `room` units
/// from `x`.
fn logit_axis(shown: &[Candidate], x: f64, room: f64) -> (Axis, f64) {
    let hi = shown.iter().map(|c| c.logit).fold(f64::MIN, f64::max);
    let lo = shown.iter().map(|c| c.logit).fold(f64::MAX, f64::min);
    let step = match ticks(lo, hi, 3)[..] {
        [a, b, ..] => b - a,
        _ => 1.0,
    };
    let mut start = (lo / step).floor() * step;
    if lo - start < step / 2.0 {
        start -= step;
    }
    let axis = Axis {
        lo: start,
        hi,
        start: x,
        end: x + room,
    };
    (axis, step)
}

/// Ticks `step` apart from the axis's start up to its largest value.
fn axis_ticks(axis: &Axis, step: f64) -> Vec<f64> {
    let count = ((axis.hi - axis.lo) / step + 1e-9).floor() as usize;
    (0..=count).map(|i| axis.lo + i as f64 * step).collect()
}

/// What the two columns have to do with each other, in the shown candidates' numbers.
fn notes(shown: &[Candidate], vocab: usize) -> Vec<String> {
    let Some(first) = shown.first() else {
        return Vec::new();
    };
    let m = normalizer(first);
    let mut lines = vec![format!(
        "p = exp(logit − m), m = log Σ exp over all {} logits = {}",
        thousands(vocab),
        signed(m, 2)
    )];
    if let Some(second) = shown.get(1) {
        let gap = first.logit - second.logit;
        lines.push(format!(
            "top two: a gap of {0} in logit is e^{0} = {1}× in probability",
            signed(gap, 2),
            ratio(first.prob / second.prob)
        ));
    }
    lines.push("adding one number to every logit changes no probability".to_string());
    lines
}

/// A ratio with two significant digits or more: "1.3", "12", "340".
fn ratio(r: f64) -> String {
    if r >= 10.0 {
        thousands(r.round() as usize)
    } else {
        format!("{r:.1}")
    }
}

fn describe(context: &str, shown: &[Candidate], vocab: usize) -> String {
    let (Some(first), Some(last)) = (shown.first(), shown.last()) else {
        return format!("No candidates after {context:?}.");
    };
    let mut out = format!(
        "The {} likeliest next tokens after {context:?} out of {}: their raw scores (logits) \
         from {} for {:?} down to {} for {:?}, and the probabilities the softmax makes of \
         them, from {} down to {}.",
        shown.len(),
        thousands(vocab),
        signed(first.logit, 2),
        first.text,
        signed(last.logit, 2),
        last.text,
        percent(first.prob),
        percent(last.prob),
    );
    if let Some(second) = shown.get(1) {
        out.push_str(&format!(
            " The top two differ by {} in logit, a factor of {} in probability.",
            signed(first.logit - second.logit, 2),
            ratio(first.prob / second.prob)
        ));
    }
    out
}

#[cfg(test)]
#[path = "logits_tests.rs"]
mod tests;
