//! `figure layernorm`: one token's vector before and after a LayerNorm. Heat strips of
//! the first dimensions, then the distribution of all d values before and after, each
//! with its mean μ and a band of ± one standard deviation σ: LayerNorm subtracts μ,
//! divides by σ, then scales and shifts each dimension by learned weights γ and β.
//!
//! Options: `prompt`, `caption`, `norm` = "ln1" (default, before attention) | "ln2"
//! (before the MLP) | "final" (after the last layer), `layer` (required for ln1 and ln2;
//! not for final), `token` (default -1), `dims` (default 32, at most 64), `spread`.

use crate::chart::{histogram, histogram_bars, ticks, x_axis, Axis};
use crate::draw::{line, rect, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, thousands};
use crate::kinds::strips::{self, DimPick, StripFigure, WIDTH};
use crate::options::{choice, Block, Dims, Layer, LayerKey, TokenKey};
use crate::prompt::{Gpt2Part, Prompt};
use crate::relations::Relation;
use crate::shared::{Domain, SharedScale};
use crate::strip::StripRow;
use crate::svg::{wide_width, Canvas, Css, Element, Font};
use crate::token_text::{visible, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "layernorm";

const PANEL: f64 = 96.0;

/// A vector with its mean and standard deviation.
struct Described {
    values: Vec<f64>,
    mean: f64,
    std: f64,
}

impl Described {
    fn of(values: Vec<f64>) -> Described {
        let n = values.len().max(1) as f64;
        let mean = values.iter().sum::<f64>() / n;
        let std = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
        Described { values, mean, std }
    }

    fn summary(&self) -> String {
        format!("μ {} σ {}", short(self.mean), short(self.std))
    }

    /// What a reader can check of the printed statistics: σ is not negative.
    fn relation(&self) -> Relation {
        Relation::Bound {
            value: short(self.std),
            low: 0.0,
            high: f64::INFINITY,
            why: "a standard deviation",
        }
    }
}

choice! {
    /// Which LayerNorm: before attention, before the MLP, or the final one.
    enum Norm { Ln1 = "ln1", Ln2 = "ln2", Final = "final" } default Ln1
}

/// The options of `layernorm`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    norm: Norm,
    /// Required for ln1 and ln2; the final LayerNorm has none.
    layer: Option<LayerKey>,
    #[serde(default)]
    token: TokenKey,
    dims: Option<Dims>,
    #[serde(default)]
    spread: bool,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let Opts {
        norm,
        layer,
        token,
        dims,
        spread,
    } = block.options;
    let t = block.token(token)?.0;
    let layer = match norm {
        Norm::Final => None,
        Norm::Ln1 | Norm::Ln2 => Some(block.layer(KIND, layer)?),
    };
    let (prompt, caption) = (block.prompt, block.caption);
    prompt.needs(KIND, Gpt2Part::LayerNorm)?;
    let n = prompt.tokens()?.len();
    let pick = DimPick::read(dims, spread, prompt.config().n_embd, 32)?;
    let normed = match layer {
        None => {
            if table.contains_key("layer") {
                return Err(FigureError::at("layer", "the final LayerNorm has no layer")
                    .with_hint("remove `layer`, or use norm = \"ln1\" or \"ln2\""));
            }
            Normed::last(&prompt, n, t)?
        }
        Some(layer) => Normed::in_block(&prompt, norm, layer, n, t)?,
    };
    let Drawing {
        body,
        height,
        css,
        domain,
    } = draw(&prompt, t, &pick, &normed, shared);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!("LayerNorm {}", normed.place),
        desc: describe(&prompt, t, &normed),
        css,
    };
    let relations = vec![normed.before.relation(), normed.after.relation()];
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

/// One token's vector before and after a LayerNorm, and where that LayerNorm sits.
struct Normed {
    before: Described,
    after: Described,
    /// "after the last layer", "before attention in layer 3".
    place: String,
}

impl Normed {
    /// The final LayerNorm, after the last layer, for token `t` of `n`.
    fn last(prompt: &Prompt<'_>, n: usize, t: usize) -> Result<Normed, FigureError> {
        let config = prompt.config();
        let d = config.n_embd;
        let last = Layer(config.n_layer.saturating_sub(1));
        let before = prompt.block(last, "resid_post", d)?.row(&[t]);
        let after = prompt.shaped("ln_final.normalized", &[n, d])?.row(&[t]);
        Ok(Normed {
            before: Described::of(before),
            after: Described::of(after),
            place: "after the last layer".to_string(),
        })
    }

    /// `norm` (ln1 or ln2) of `layer` for token `t` of `n`, with the statistics it used as
    /// traced.
    fn in_block(
        prompt: &Prompt<'_>,
        norm: Norm,
        layer: Layer,
        n: usize,
        t: usize,
    ) -> Result<Normed, FigureError> {
        let d = prompt.config().n_embd;
        let input = if norm == Norm::Ln1 {
            "resid_pre"
        } else {
            "resid_mid"
        };
        let before = prompt.block(layer, input, d)?.row(&[t]);
        let after = prompt
            .block(layer, &format!("{norm}.normalized"), d)?
            .row(&[t]);
        // The statistics LayerNorm used, as traced (σ includes its epsilon).
        let stat = |what: &str| -> Result<f64, FigureError> {
            let name = format!("blocks.{}.{norm}.{what}", layer.0);
            Ok(prompt.shaped(&name, &[n])?.at(&[t]))
        };
        let before = Described {
            values: before,
            mean: stat("mean")?,
            std: stat("std")?,
        };
        let which = if norm == Norm::Ln1 {
            "attention"
        } else {
            "the MLP"
        };
        Ok(Normed {
            before,
            after: Described::of(after),
            place: format!("before {which} in layer {}", layer.0),
        })
    }
}

/// The drawing: its elements, the height they take, the strips' colour rules and the
/// domain of their values.
struct Drawing {
    body: Vec<Element>,
    height: f64,
    css: Css,
    domain: Domain,
}

/// The formula, the strips of both vectors (on the scale `shared` if given), then a
/// histogram panel for each.
fn draw(
    prompt: &Prompt<'_>,
    t: usize,
    pick: &DimPick,
    normed: &Normed,
    shared: Option<&SharedScale>,
) -> Drawing {
    let (before, after) = (&normed.before, &normed.after);
    let figure = StripFigure {
        rows: vec![strip("before", before, pick), strip("after", after, pick)],
        header: format!(
            "{} (token {t}): {}",
            visible(&prompt.trace.meta.tokens[t].text),
            pick.header()
        ),
        summary_title: "",
        legend_title: "value".to_string(),
        notes: Vec::new(),
    };
    let drawn = strips::draw_placed(&figure, 18.0, shared);
    let mut body = vec![text(0.0, 12.0)
        .class("tbf-s")
        .text("LayerNorm: (x − μ) ÷ σ, then × γ + β in each dimension")];
    body.extend(drawn.elements);
    let mut top = drawn.height + 6.0;
    for (name, vector) in [("before", before), ("after", after)] {
        body.extend(panel(name, vector, top));
        top += PANEL + 20.0;
    }
    Drawing {
        body,
        height: top,
        css: drawn.css,
        domain: figure.domain(),
    }
}

fn strip(name: &str, vector: &Described, pick: &DimPick) -> StripRow {
    StripRow {
        label: Shown::plain(name),
        values: pick.take(&vector.values),
        summary: vector.summary(),
        gap_before: 0.0,
    }
}

/// A histogram of every value over μ ± 4σ (values beyond count at the ends), with μ and a
/// ± σ band.
fn panel(name: &str, vector: &Described, top: f64) -> Vec<Element> {
    let spread = (4.0 * vector.std).max(1e-6);
    let (lo, hi) = (vector.mean - spread, vector.mean + spread);
    let axis = Axis {
        lo,
        hi,
        start: 20.0,
        end: WIDTH - 12.0,
    };
    let base = top + PANEL - 34.0;
    let outside = vector
        .values
        .iter()
        .filter(|v| **v < lo || **v > hi)
        .count();
    let mut title = format!(
        "{name}: {} values · {}",
        thousands(vector.values.len()),
        vector.summary()
    );
    if outside > 0 {
        let long = format!("{title} · {outside} past ±4σ, drawn at the ends");
        title = if wide_width(&long, Font::Sans, 12.0) <= WIDTH {
            long
        } else {
            format!("{title} · {outside} past ±4σ")
        };
    }
    let band = rect(
        "tbf-track",
        axis.at(vector.mean - vector.std),
        top + 16.0,
        axis.at(vector.mean + vector.std) - axis.at(vector.mean - vector.std),
        base - top - 16.0,
    );
    vec![
        text(0.0, top + 10.0).class("tbf-s").text(title),
        band,
        histogram_bars(
            &histogram(&vector.values, 40, lo, hi),
            &axis,
            base,
            base - top - 20.0,
            "tbf-hist",
        ),
        line(
            "tbf-line",
            axis.at(vector.mean),
            top + 16.0,
            axis.at(vector.mean),
            base,
        ),
        x_axis(&axis, base + 1.0, &ticks(lo, hi, 6), ""),
    ]
}

fn describe(prompt: &Prompt<'_>, t: usize, normed: &Normed) -> String {
    let Normed {
        before,
        after,
        place,
    } = normed;
    format!(
        "The LayerNorm {place}, for {:?} (token {t}). Before, its {} values have mean {} and \
         standard deviation {}; LayerNorm subtracts the mean, divides by the standard \
         deviation, then multiplies each dimension by a learned weight and adds a learned \
         bias. After: mean {}, standard deviation {}.",
        prompt.trace.meta.tokens[t].text,
        thousands(before.values.len()),
        short(before.mean),
        short(before.std),
        short(after.mean),
        short(after.std)
    )
}

#[cfg(test)]
#[path = "layernorm_tests.rs"]
mod tests;
