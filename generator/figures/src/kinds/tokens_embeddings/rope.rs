//! `figure rope`: rotary position embeddings as the real run applied them. RoPE turns each
//! pair of a head's dimensions, pair i being dims (i, i + dh/2) as transformers' rotate_half
//! pairs them, by position × θᵢ. Three panels:
//!
//! - a: θᵢ of every pair, read from the trace by comparing `blocks.L.attn.q_unrotated` and
//!   `.k_unrotated` with `.q` and `.k` (so it stays exact under rope scalings such as
//!   Llama 3's), over the line rope_theta^(−2i/dh) of the plain formula;
//! - b: one pair of the head's q (or k) at each position, before and after turning, on a
//!   circle per position;
//! - c: why the score depends only on the distance between tokens: one token's query and key
//!   (of the key/value head the query head reads), turned to positions m and n by the traced
//!   angles, give q·k/√dh equal for every (m, n) with the same m − n: each pair of positions
//!   is a dot at m − n, on the curve of the score against distance.
//!
//! Options: `prompt`, `caption`, `layer`, `head` (required), `of` = "q" | "k" (default "q",
//! the vector of panel b), `pair` (default 0, the fastest; panel b's pair, ringed in a),
//! `token` (default -1: whose query and key panel c turns).
//!
//! GPT-2 traces are refused by name: GPT-2 has learned positions, no rotation.

use super::rope_model::{Of, Rope, Scores, Turns, DISTANCES, PAIRED};
use super::rope_panels::{circles, distances, frequencies};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, small};
use crate::options::{Block, HeadKey, Int, Layer, LayerKey, TokenKey};
use crate::prompt::{Checked, FamilyPart, Prompt};
use crate::svg::{Canvas, Css, FIGURE_WIDTH};
use crate::Traces;
use serde::Deserialize;
use std::f64::consts::TAU;
use tracebook_trace::Encoding;

pub const KIND: &str = "rope";

/// The options of `rope`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    head: Option<HeadKey>,
    #[serde(default)]
    of: Of,
    #[serde(default)]
    pair: Int<0, 65_536, 0>,
    #[serde(default)]
    token: TokenKey,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    block.prompt.needs_family(KIND, FamilyPart::Rope)?;
    let layer = block.layer(KIND, block.options.layer)?;
    let head = block.head(KIND, block.options.head)?.0;
    let token = block.token(block.options.token)?.0;
    let (of, pair) = (block.options.of, block.options.pair.get());
    let (prompt, caption) = (block.prompt, block.caption);
    let rope = read(&prompt, layer, head, token, (of, pair))?;
    let (mut body, mut relations) = (Vec::new(), Vec::new());
    let top = frequencies(&rope, 0.0, &mut body, &mut relations);
    let top = circles(&rope, &prompt, top + 12.0, &mut body, &mut relations);
    let height = distances(&rope, top + 12.0, &mut body, &mut relations);
    let canvas = Canvas {
        kind: KIND,
        width: FIGURE_WIDTH,
        height,
        title: format!("Rotary position embeddings, {layer}, head {head}"),
        desc: describe(&prompt, &rope),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations))
}

/// Reads the layer's q and k before and after turning, and measures the turns.
fn read(
    prompt: &Prompt<'_>,
    layer: Layer,
    head: usize,
    token: usize,
    (of, pair): (Of, usize),
) -> Result<Rope, FigureError> {
    let n = prompt.tokens()?.len();
    let half = prompt.config().head_width() / 2;
    check_pair(pair, half)?;
    if n < 2 {
        return Err(prompt
            .broken(format!(
                "\"{}\" has one token: the angles are read from position 1 on",
                prompt.name
            ))
            .with_hint("draw it from a prompt of two tokens or more"));
    }
    let [qu, q, ku, k] = ["attn.q_unrotated", "attn.q", "attn.k_unrotated", "attn.k"]
        .map(|what| prompt.heads(layer, what));
    let (qu, q, ku, k) = (qu?, q?, ku?, k?);
    let floor = match prompt.trace.encoding(&format!("blocks.{}.attn.q", layer.0)) {
        Some(Encoding::F32) => 1e-5,
        _ => 2e-3,
    };
    let turns = measure(&[(&qu, &q), (&ku, &k)], half, floor);
    let kv = prompt.kv_head(head);
    let (before, after) = if of == Of::Q { (&qu, &q) } else { (&ku, &k) };
    let shown = if of == Of::Q { head } else { kv };
    let arrows = (0..n)
        .map(|p| {
            (
                split(before, shown, p, pair, half),
                split(after, shown, p, pair, half),
            )
        })
        .collect();
    let scores = score(&turns, &qu.row(&[head, token]), &ku.row(&[kv, token]));
    Ok(Rope {
        layer,
        head,
        kv,
        of,
        pair,
        token,
        half,
        turns,
        arrows,
        scores,
        base: prompt.config().rope_theta,
        floor,
    })
}

/// `pair` must be one of the `half` pairs of a head.
fn check_pair(pair: usize, half: usize) -> Result<(), FigureError> {
    if pair < half {
        return Ok(());
    }
    Err(FigureError::at(
        "pair",
        format!(
            "pair = {pair} is out of range: a head of {} dimensions has {half} pairs",
            2 * half
        ),
    )
    .with_hint(format!(
        "pairs are numbered 0 to {}; pair i is dimensions i and i + {half}",
        half.saturating_sub(1)
    )))
}

/// Pair `i` of `x`'s head `h` at position `p`.
fn split(x: &Checked, h: usize, p: usize, i: usize, half: usize) -> (f64, f64) {
    (x.at(&[h, p, i]), x.at(&[h, p, i + half]))
}

/// The angle each pair turned by at each position, over every head of `pairs` (before,
/// after) at once (weighted by the pairs' lengths), and θᵢ unwrapped from position 1 on.
fn measure(pairs: &[(&Checked, &Checked)], half: usize, floor: f64) -> Turns {
    let n = pairs[0].0.shape[1];
    let at: Vec<Vec<f64>> = (0..n)
        .map(|p| {
            (0..half)
                .map(|i| {
                    let (mut re, mut im) = (0.0, 0.0);
                    for (before, after) in pairs {
                        for h in 0..before.shape[0] {
                            let (u1, u2) = split(before, h, p, i, half);
                            let (r1, r2) = split(after, h, p, i, half);
                            re += u1 * r1 + u2 * r2;
                            im += u1 * r2 - u2 * r1;
                        }
                    }
                    im.atan2(re)
                })
                .collect()
        })
        .collect();
    let theta: Vec<f64> = (0..half)
        .map(|i| {
            let mut theta = at[1][i];
            for (p, row) in at.iter().enumerate().skip(2) {
                let turns = ((p as f64 * theta - row[i]) / TAU).round();
                theta = (row[i] + TAU * turns) / p as f64;
            }
            theta
        })
        .collect();
    let resolved = theta
        .iter()
        .map(|t| (t * (n - 1) as f64).abs() >= floor)
        .collect();
    Turns {
        at,
        theta,
        resolved,
    }
}

/// q·k/√dh for `q` turned by `angle(i)` more than `k`, pair by pair.
fn turned_dot(q: &[f64], k: &[f64], angle: impl Fn(usize) -> f64) -> f64 {
    let half = q.len() / 2;
    let sum: f64 = (0..half)
        .map(|i| {
            let (q1, q2, k1, k2) = (q[i], q[i + half], k[i], k[i + half]);
            let (sin, cos) = angle(i).sin_cos();
            (q1 * k1 + q2 * k2) * cos - (q2 * k1 - q1 * k2) * sin
        })
        .sum();
    sum / (q.len() as f64).sqrt()
}

/// Panel c: the curve from θᵢ × distance, and the dots from the angles traced at m and n.
fn score(turns: &Turns, q: &[f64], k: &[f64]) -> Scores {
    let curve: Vec<f64> = (0..=DISTANCES)
        .map(|d| turned_dot(q, k, |i| d as f64 * turns.theta[i]))
        .collect();
    let paired = turns.at.len().min(PAIRED);
    let mut dots = Vec::new();
    for m in 0..paired {
        for n in 0..=m {
            let value = turned_dot(q, k, |i| turns.at[m][i] - turns.at[n][i]);
            dots.push((m - n, value));
        }
    }
    let worst = dots
        .iter()
        .map(|(d, v)| (v - curve[*d]).abs())
        .fold(0.0, f64::max);
    Scores { curve, dots, worst }
}

fn describe(prompt: &Prompt<'_>, rope: &Rope) -> String {
    let theta = &rope.turns.theta;
    let last = rope.half - 1;
    let formula = match rope.base {
        Some(base) => format!(
            " (the formula rope_theta^(−2i/dh) with rope_theta {} gives {} for pair {last})",
            short(base),
            small(base.powf(-(last as f64) / rope.half as f64))
        ),
        None => String::new(),
    };
    let scaling = if super::rope_panels::scaled(rope) {
        "; some pairs are off the formula, as the model's rope scaling sets them"
    } else {
        ""
    };
    format!(
        "Rotary position embeddings in {}, head {} of {}. Each of the head's {} pairs of \
         dimensions turns by its own angle per position, read from the trace: pair 0 by {} \
         radians, pair {last} by {}{formula}{scaling}. Pair {} of the head's {} at each of the prompt's {} \
         positions is drawn before and after turning. Token {}'s query and key (key/value head \
         {}), turned to positions m and n, give a score q·k/√dh that depends only on m − n: {} \
         pairs of positions, each within {} of the score at its distance.",
        rope.layer,
        rope.head,
        prompt.trace.meta.model.shown(),
        rope.half,
        small(theta[0]),
        small(theta[last]),
        rope.pair,
        rope.of,
        rope.arrows.len(),
        rope.token,
        rope.kv,
        rope.scores.dots.len(),
        small(rope.scores.worst)
    )
}

#[cfg(test)]
#[path = "rope_tests.rs"]
mod tests;
