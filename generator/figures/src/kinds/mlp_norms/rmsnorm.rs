//! `figure rmsnorm`: one token's vector through an RMSNorm, the Llama family's LayerNorm.
//! Heat strips of the first dimensions of the input x (`blocks.L.resid_pre`, or `.resid_mid`
//! for ln2), of x ÷ rms and of the output (`blocks.L.ln1.normalized`: x ÷ rms × w), with the
//! traced rms (`blocks.L.ln1.rms`, √(mean(x²) + ε)); then the distribution of all d values
//! of the input and the output, each with ± its rms about zero and its mean marked. What
//! differs from LayerNorm is said in the figure: no mean is subtracted (the mean is scaled,
//! not removed), and no bias is added.
//!
//! Options: `prompt`, `caption`, `norm` = "ln1" (default, before attention) | "ln2" (before
//! the MLP), `layer` (required), `token` (default -1), `dims` (default 32, at most 64),
//! `spread`. GPT-2 traces are refused by name: GPT-2 has LayerNorm (see `layernorm`).

use crate::chart::{histogram, histogram_bars, ticks, x_axis, Axis};
use crate::draw::{line, rect, text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, thousands};
use crate::kinds::strips::{self, DimPick, StripFigure, WIDTH};
use crate::options::{choice, Block, Dims, Layer, LayerKey, TokenKey};
use crate::prompt::{FamilyPart, Prompt};
use crate::relations::Relation;
use crate::shared::{Domain, SharedScale};
use crate::strip::StripRow;
use crate::svg::{Canvas, Element};
use crate::token_text::{visible, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "rmsnorm";

const PANEL: f64 = 96.0;

choice! {
    /// Which RMSNorm of the block: before attention or before the MLP.
    enum Norm { Ln1 = "ln1", Ln2 = "ln2" } default Ln1
}

/// The options of `rmsnorm`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    norm: Norm,
    layer: Option<LayerKey>,
    #[serde(default)]
    token: TokenKey,
    dims: Option<Dims>,
    #[serde(default)]
    spread: bool,
}

/// One token's vector before and after the norm, with the rms the model divided by.
struct Normed {
    input: Vec<f64>,
    output: Vec<f64>,
    /// As traced.
    rms: f64,
    /// √(mean(x²) + ε) of the input as stored, to set beside it.
    recomputed: f64,
    /// The ε under the root.
    eps: f64,
    place: String,
}

impl Normed {
    /// The rms of x ÷ rms, from the traced rms alone: x's own rms is √(rms² − ε), so x ÷ rms
    /// has rms √(rms² − ε) ÷ rms, never above 1. (x as stored is rounded, and its rms over
    /// the traced one can print 1.01, which no x ÷ √(mean(x²) + ε) has.)
    fn unit(&self) -> f64 {
        (self.rms.powi(2) - self.eps).max(0.0).sqrt() / self.rms.max(f64::MIN_POSITIVE)
    }

    /// What a reader can check: the rms are not negative, x ÷ rms has an rms of at most 1,
    /// and x's mean divided by the rms is the mean the note gives.
    fn relations(&self) -> Vec<Relation> {
        let at_least_zero = |value: f64, why| Relation::Bound {
            value: short(value),
            low: 0.0,
            high: f64::INFINITY,
            why,
        };
        let mu = mean(&self.input);
        vec![
            at_least_zero(self.rms, "a root mean square"),
            at_least_zero(rms(&self.output), "a root mean square"),
            Relation::Bound {
                value: short(self.unit()),
                low: 0.0,
                high: 1.0,
                why: "the rms of x ÷ √(mean(x²) + ε)",
            },
            Relation::Product {
                factors: vec![short(mu / self.rms), short(self.rms)],
                result: short(mu),
            },
        ]
    }
}

/// The root mean square of `values`, with nothing added.
fn rms(values: &[f64]) -> f64 {
    (values.iter().map(|v| v * v).sum::<f64>() / values.len().max(1) as f64).sqrt()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    block.prompt.needs_family(KIND, FamilyPart::RmsNorm)?;
    let Opts {
        norm,
        layer,
        token,
        dims,
        spread,
    } = block.options;
    let layer = block.layer(KIND, layer)?;
    let t = block.token(token)?.0;
    let (prompt, caption) = (block.prompt, block.caption);
    let pick = DimPick::read(dims, spread, prompt.config().n_embd, 32)?;
    let normed = read(&prompt, norm, layer, t)?;
    let (body, height, css, domain) = draw(&prompt, t, &pick, &normed, shared);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!("RMSNorm {}", normed.place),
        desc: describe(&prompt, t, &normed),
        css,
    };
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(normed.relations());
    Ok((figure, domain))
}

fn read(prompt: &Prompt<'_>, norm: Norm, layer: Layer, t: usize) -> Result<Normed, FigureError> {
    let (d, n) = (prompt.config().n_embd, prompt.tokens()?.len());
    let (input, which) = match norm {
        Norm::Ln1 => ("resid_pre", "attention"),
        Norm::Ln2 => ("resid_mid", "the MLP"),
    };
    let input = prompt.block(layer, input, d)?.row(&[t]);
    let output = prompt
        .block(layer, &format!("{norm}.normalized"), d)?
        .row(&[t]);
    let rms_name = format!("blocks.{}.{norm}.rms", layer.0);
    let traced = prompt.shaped(&rms_name, &[n])?.at(&[t]);
    let eps = prompt.config().layer_norm_epsilon;
    let recomputed = (rms(&input).powi(2) + eps).sqrt();
    Ok(Normed {
        input,
        output,
        rms: traced,
        recomputed,
        eps,
        place: format!("before {which} in layer {}", layer.0),
    })
}

/// The formula, the three strips (on `shared` if given), the two histograms and the note on
/// LayerNorm: the elements, height, colour rules and domain.
fn draw(
    prompt: &Prompt<'_>,
    t: usize,
    pick: &DimPick,
    normed: &Normed,
    shared: Option<&SharedScale>,
) -> (Vec<Element>, f64, crate::svg::Css, Domain) {
    let scaled: Vec<f64> = normed.input.iter().map(|v| v / normed.rms).collect();
    let row = |name: &str, values: &[f64], rms: f64| StripRow {
        label: Shown::plain(name),
        values: pick.take(values),
        summary: format!("rms {}", short(rms)),
        gap_before: 0.0,
    };
    // x's rms is the one the model divided by, as traced (ε included): one number for it on
    // the page, whatever x's stored (rounded) values give.
    let figure = StripFigure {
        rows: vec![
            row("x", &normed.input, normed.rms),
            row("x ÷ rms", &scaled, normed.unit()),
            row("output", &normed.output, rms(&normed.output)),
        ],
        header: format!(
            "{} (token {t}): {}",
            visible(&prompt.trace.meta.tokens[t].text),
            pick.header()
        ),
        summary_title: "",
        legend_title: "value".to_string(),
        notes: Vec::new(),
    };
    let mut body = vec![text(0.0, 12.0)
        .class("tbf-s")
        .text("RMSNorm: x ÷ rms, then × w in each dimension")];
    let drawn = strips::draw_placed(&figure, 18.0, shared);
    body.extend(drawn.elements);
    let mut top = drawn.height + 6.0;
    for (name, values, spread) in [
        ("x", &normed.input, normed.rms),
        ("output", &normed.output, rms(&normed.output)),
    ] {
        body.extend(panel(name, values, spread, top));
        top += PANEL + 20.0;
    }
    let (note, last) = wrapped_note(&differences(normed), 0.0, top + 4.0, WIDTH, 15.0);
    body.push(note);
    (body, last + 10.0, drawn.css, figure.domain())
}

/// A histogram of every value over ± 4 rms (`spread`) about zero (values beyond count at the
/// ends), with a band of ± one rms and a line at the mean.
fn panel(name: &str, values: &[f64], spread: f64, top: f64) -> Vec<Element> {
    let (spread, centre) = (spread.max(1e-6), mean(values));
    let (lo, hi) = (-4.0 * spread, 4.0 * spread);
    let axis = Axis {
        lo,
        hi,
        start: 20.0,
        end: WIDTH - 12.0,
    };
    let base = top + PANEL - 34.0;
    let title = format!(
        "{name}: {} values · rms {} · mean {}",
        thousands(values.len()),
        short(spread),
        short(centre)
    );
    let band = rect(
        "tbf-track",
        axis.at(-spread),
        top + 16.0,
        axis.at(spread) - axis.at(-spread),
        base - top - 16.0,
    );
    vec![
        text(0.0, top + 10.0).class("tbf-s").text(title),
        band,
        histogram_bars(
            &histogram(values, 40, lo, hi),
            &axis,
            base,
            base - top - 20.0,
            "tbf-hist",
        ),
        line(
            "tbf-line",
            axis.at(centre),
            top + 16.0,
            axis.at(centre),
            base,
        ),
        x_axis(&axis, base + 1.0, &ticks(lo, hi, 6), ""),
    ]
}

/// What RMSNorm leaves out, with this token's numbers. The rms recomputed from x as stored
/// is said only where it prints differently from the traced one (x is stored rounded).
fn differences(normed: &Normed) -> String {
    let mu = mean(&normed.input);
    let (traced, recomputed) = (short(normed.rms), short(normed.recomputed));
    let rounding = if traced == recomputed {
        String::new()
    } else {
        format!(" (x as stored, rounded, gives {recomputed})")
    };
    format!(
        "Unlike LayerNorm, no mean is subtracted: x's mean {} is only divided by the rms, to \
         {}, not moved to 0 (the line in each panel is the mean, the band ± rms about zero), \
         and no bias is added. rms = √(mean(x²) + ε) = {traced}, as traced{rounding}.",
        short(mu),
        short(mu / normed.rms),
    )
}

fn describe(prompt: &Prompt<'_>, t: usize, normed: &Normed) -> String {
    format!(
        "The RMSNorm {}, for {:?} (token {t}). Its {} input values have root mean square {} \
         (as traced) and mean {}; RMSNorm divides them by the rms and multiplies each \
         dimension by a learned weight, subtracting no mean and adding no bias. After: rms {}, \
         mean {}.",
        normed.place,
        prompt.trace.meta.tokens[t].text,
        thousands(normed.input.len()),
        short(normed.rms),
        short(mean(&normed.input)),
        short(rms(&normed.output)),
        short(mean(&normed.output))
    )
}

#[cfg(test)]
#[path = "rmsnorm_tests.rs"]
mod tests;
