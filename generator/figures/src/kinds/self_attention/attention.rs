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
//! An encoder-decoder's trace (Marian, BART) has two stacks of self-attention, and `stack`
//! (required there, an error on a decoder-only model's) picks one: "encoder", over the source
//! tokens with nothing masked (every cell filled; `masked` is refused) and the encoder's
//! layer and head counts, or "decoder", causal, over the positions the decoder read (its
//! start token, then what it wrote but the last); `cross-attention` draws the third kind.
//! Titles and alt text name the stack ("Encoder layer 1, head 2").
//!
//! By stage of the drawing: `stack` finds the stack's tensors, tokens and size, `matrix`
//! reads the head's numbers, `scale` colours them, `draw` lays out one panel, `pickers` adds
//! the hidden ones, `describe` writes the alt text.

use crate::error::FigureError;
use crate::figure::Figure;
use crate::options::{choice, Block, Head, HeadKey, Layer, LayerKey};
use crate::prompt::Prompt;
use crate::shared::{Domain, SharedScale};
use crate::svg::Canvas;
use crate::Traces;
use draw::{draw, Axes, Drawn};
use matrix::{read_matrix, Matrix};
use scale::Scale;
use serde::Deserialize;
use stack::{Stack, View};

mod describe;
pub(crate) mod draw;
pub(crate) mod matrix;
pub(crate) mod pickers;
pub(crate) mod scale;
pub(super) mod stack;

pub const KIND: &str = "attention";

const VALUES_BY_DEFAULT: usize = 10;
const MAX_VALUES: usize = 14;

choice! {
    /// Which step of attention to draw.
    pub(in crate::kinds) enum Stage { Pattern = "pattern", Scores = "scores", Masked = "masked" } default Pattern
}

choice! {
    /// Which other panels to draw, hidden, for the page's pickers.
    pub(in crate::kinds) enum Pickers { None = "none", Heads = "heads", Layers = "layers", All = "all" } default None
}

/// The options of `attention`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    head: Option<HeadKey>,
    #[serde(default)]
    stage: Stage,
    values: Option<bool>,
    #[serde(default)]
    pickers: Pickers,
    stack: Option<Stack>,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let view = View::of(&block.prompt, block.options.stack, KIND)?;
    let keys = (block.options.layer, block.options.head);
    let (layer, head) = view.layer_head(&block, KIND, keys)?;
    view.allows(block.options.stage)?;
    let Opts {
        stage,
        values,
        pickers,
        ..
    } = block.options;
    let (prompt, caption) = (block.prompt, block.caption);
    let matrix = read_matrix(&prompt, &view, (layer, head), stage)?;
    let values = print_values(values, matrix.shown_len())?;
    let tokens = &view.tokens[matrix.first..];
    let scale = Scale::of(&matrix, stage, shared);
    let highlight = view.prompt_tokens().then_some(prompt.name.as_str());
    let drawing = Drawing {
        prompt: &prompt,
        view: &view,
        axes: Axes::square(highlight, tokens, matrix.first),
        stage,
        shared,
        values,
    };
    let own = draw(&drawing.axes, &matrix, &scale, values);
    let (drawn, live, deferred, domain) = drawing.stacked(own, &matrix, (layer, head), pickers)?;
    let heading = view.layer_words(layer);
    let canvas = Canvas {
        kind: KIND,
        width: drawn.width,
        height: drawn.height,
        title: format!("{heading}, head {}: attention {}", head.0, stage.word()),
        desc: describe::describe(&matrix, &scale, &heading, head, tokens),
        css: scale.ramp.css(),
    };
    let figure = Figure::new(canvas, drawn.body, caption, &prompt).with_relations(drawn.relations);
    let figure = match live {
        Some(json) => figure.with_live(json),
        None => figure,
    };
    Ok((figure.with_deferred(deferred), domain))
}

/// What every panel of the figure shares: the trace and its stack, the axes, the stage, the
/// scale and `values`.
struct Drawing<'a> {
    prompt: &'a Prompt<'a>,
    view: &'a View<'a>,
    axes: Axes<'a>,
    stage: Stage,
    shared: Option<&'a SharedScale>,
    values: bool,
}

/// A figure's panels, with the pickers' JSON, the deferred panels and the domain.
type Stacked = (Drawn, Option<String>, Option<String>, Domain);

impl Drawing<'_> {
    /// The figure's own panel `own` (of `matrix`, at `at`) among the others `pickers` asks
    /// for in the stack (see `pickers::stack`), and the domain of every panel's values.
    fn stacked(
        &self,
        own: Drawn,
        matrix: &Matrix,
        at: (Layer, Head),
        pickers: Pickers,
    ) -> Result<Stacked, FigureError> {
        let (stage, view) = (self.stage, self.view);
        let others = pickers::picked(pickers, at, (view.n_layer, view.n_head))?;
        let read = |l: Layer, h: Head| read_matrix(self.prompt, view, (l, h), stage);
        let (drawn, live, deferred) = pickers::stack(
            own,
            at,
            &others,
            |l, h| {
                let m = read(l, h)?;
                let scale = Scale::of(&m, stage, self.shared);
                Ok(draw(&self.axes, &m, &scale, self.values))
            },
            &|_, _| None,
        )?;
        // Every panel counts towards the domain: a shared scale must cover the hidden ones too.
        let mut domain = Scale::domain(matrix, stage);
        for &(l, h) in &others {
            let m = read(Layer(l), Head(h))?;
            domain = domain.union(Scale::domain(&m, stage)).unwrap_or(domain);
        }
        Ok((drawn, live, deferred, domain))
    }
}

/// Whether the cells carry their numbers: the `values` option, else yes for `shown` tokens
/// up to [`VALUES_BY_DEFAULT`]; past [`MAX_VALUES`] they no longer fit.
pub(in crate::kinds) fn print_values(
    values: Option<bool>,
    shown: usize,
) -> Result<bool, FigureError> {
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

#[cfg(test)]
#[path = "attention_stack_tests.rs"]
mod stack_tests;
