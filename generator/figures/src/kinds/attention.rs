//! `figure attention`: one head of one layer as a heatmap, rows the tokens that attend
//! (queries), columns the tokens attended to (keys), each labelled with its token.
//!
//! Stages: `pattern` (default; softmax weights, each row sums to 1, future positions
//! blank), `scores` (q·k/√dh before the causal mask, every cell, diverging colours), and
//! `masked` (the scores with future positions shown as −∞).
//!
//! Options: `prompt`, `caption`, `layer`, `head` (both required), `stage`, `values`
//! (print each cell's number; default when the prompt has at most 10 tokens, and
//! possible up to 14). Prompts longer than 24 tokens show their last 24, with a note.
//! `pickers` ("none" by default; "heads": every head of the layer, "layers": this head in
//! every layer, "all": every layer and head; past 16 panels only the figure's own is in the
//! page and the others load when the reader first picks) draws the other heatmaps
//! too, hidden, for the page's layer and head pickers (see [`crate::panels`]).
//!
//! By stage of the drawing: `matrix` reads the head's numbers, `scale` colours them,
//! `draw` lays out one panel, `pickers` adds the hidden ones, `describe` writes the alt
//! text.

use crate::error::FigureError;
use crate::figure::Figure;
use crate::options::{choice, Block, Head, HeadKey, Layer, LayerKey};
use crate::shared::{Domain, SharedScale};
use crate::svg::Canvas;
use crate::Traces;
use draw::{draw, Axes};
use matrix::read_matrix;
use scale::Scale;
use serde::Deserialize;

mod describe;
pub(super) mod draw;
pub(super) mod matrix;
pub(super) mod pickers;
pub(super) mod scale;

pub const KIND: &str = "attention";

const VALUES_BY_DEFAULT: usize = 10;
const MAX_VALUES: usize = 14;

choice! {
    /// Which step of attention to draw.
    pub(super) enum Stage { Pattern = "pattern", Scores = "scores", Masked = "masked" } default Pattern
}

choice! {
    /// Which other panels to draw, hidden, for the page's pickers.
    pub(super) enum Pickers { None = "none", Heads = "heads", Layers = "layers", All = "all" } default None
}

/// The options of `attention`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Opts {
    layer: Option<LayerKey>,
    head: Option<HeadKey>,
    #[serde(default)]
    stage: Stage,
    values: Option<bool>,
    #[serde(default)]
    pickers: Pickers,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let layer = block.layer(KIND, block.options.layer)?;
    let head = block.head(KIND, block.options.head)?;
    let Opts {
        stage,
        values,
        pickers,
        ..
    } = block.options;
    let (prompt, caption) = (block.prompt, block.caption);
    let config = &prompt.trace.meta.model.config;
    let matrix = read_matrix(&prompt, layer, head, stage)?;
    let values = print_values(values, matrix.shown_len())?;
    let tokens = &prompt.trace.meta.tokens[matrix.first..];
    let scale = Scale::of(&matrix, stage, shared);
    let axes = Axes::square(&prompt.name, tokens, matrix.first);
    let own = draw(&axes, &matrix, &scale, values);
    let others = pickers::picked(pickers, (layer, head), (config.n_layer, config.n_head))?;
    // Every panel counts towards the domain: a shared scale must cover the hidden ones too.
    let mut domain = Scale::domain(&matrix, stage);
    let (drawn, live, deferred) = pickers::stack(
        own,
        (layer, head),
        &others,
        |l, h| {
            let m = read_matrix(&prompt, l, h, stage)?;
            Ok(draw(&axes, &m, &Scale::of(&m, stage, shared), values))
        },
        &|_, _| None,
    )?;
    for &(l, h) in &others {
        let m = read_matrix(&prompt, Layer(l), Head(h), stage)?;
        domain = domain.union(Scale::domain(&m, stage)).unwrap_or(domain);
    }
    let canvas = Canvas {
        kind: KIND,
        width: drawn.width,
        height: drawn.height,
        title: format!(
            "Layer {}, head {}: attention {}",
            layer.0,
            head.0,
            stage.word()
        ),
        desc: describe::describe(&matrix, &scale, layer, head, tokens),
        css: scale.ramp.css(),
    };
    let figure = Figure::new(canvas, drawn.body, caption, &prompt);
    let figure = match live {
        Some(json) => figure.with_live(json),
        None => figure,
    };
    Ok((figure.with_deferred(deferred), domain))
}

/// Whether the cells carry their numbers: the `values` option, else yes for `shown` tokens
/// up to [`VALUES_BY_DEFAULT`]; past [`MAX_VALUES`] they no longer fit.
pub(super) fn print_values(values: Option<bool>, shown: usize) -> Result<bool, FigureError> {
    let values = values.unwrap_or(shown <= VALUES_BY_DEFAULT);
    if values && shown > MAX_VALUES {
        return Err(FigureError::at(
            "values",
            format!("{shown} tokens are too many to print values in the cells"),
        )
        .with_hint(format!(
            "values fit up to {MAX_VALUES} tokens; remove `values` or use a shorter prompt"
        )));
    }
    Ok(values)
}

#[cfg(test)]
#[path = "attention_tests.rs"]
mod tests;
