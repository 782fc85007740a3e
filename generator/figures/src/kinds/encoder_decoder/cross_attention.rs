//! `figure cross-attention`: where an encoder-decoder's decoder looked in the source while it
//! wrote its translation, for one layer: rows the decoder's positions, each labelled with the
//! token it wrote, columns the source tokens (`</s>` included), each row summing to 1. One
//! head, or the mean over the layer's heads (the default: the usual "alignment" view).
//!
//! Options: `prompt`, `caption`, `layer` (required), `head` (a head, or "mean", the default),
//! `values` and `pickers` as `attention`'s; among the picked heads the mean is one more,
//! labelled "mean" in the head picker.
//!
//! The drawing is `attention`'s (its `matrix`, `scale`, `draw` and `pickers`); `read` finds
//! the decoder's and the encoder's tokens and the layer's matrix, `describe` writes the
//! alt text.

use crate::error::FigureError;
use crate::figure::Figure;
use crate::kinds::self_attention::attention::draw::{draw, Axes, Drawn};
use crate::kinds::self_attention::attention::pickers;
use crate::kinds::self_attention::attention::scale::Scale;
use crate::kinds::self_attention::attention::{print_values, Pickers, Stage};
use crate::options::{Block, Head, HeadKey, Layer, LayerKey, Problem};
use crate::prompt::Prompt;
use crate::shared::{Domain, SharedScale};
use crate::svg::Canvas;
use crate::Traces;
use read::{Sides, Which};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

mod describe;
mod read;

pub const KIND: &str = "cross-attention";

/// `head = N`, or `head = "mean"` for the mean over the layer's heads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeadChoice {
    Index(i64),
    Mean,
}

impl<'de> Deserialize<'de> for HeadChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(HeadVisitor)
    }
}

struct HeadVisitor;

impl Visitor<'_> for HeadVisitor {
    type Value = HeadChoice;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a head number or \"mean\"")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<HeadChoice, E> {
        Ok(HeadChoice::Index(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<HeadChoice, E> {
        if v == "mean" {
            return Ok(HeadChoice::Mean);
        }
        Err(E::custom(Problem::new(
            format!("{{key}} = \"{v}\" is neither a head nor \"mean\""),
            "write {key} = 0 for head 0, or {key} = \"mean\" (the default) for the mean over the layer's heads",
        )))
    }
}

/// The options of `cross-attention`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    head: Option<HeadChoice>,
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
    let sides = Sides::of(&block.prompt, KIND)?;
    let layer = block.layer(KIND, block.options.layer)?;
    let n_head = block.prompt.config().n_head;
    let which = match block.options.head {
        None | Some(HeadChoice::Mean) => Which::Mean,
        Some(HeadChoice::Index(h)) => Which::Head(block.head(KIND, Some(HeadKey(h)))?.0),
    };
    let Opts {
        values, pickers, ..
    } = block.options;
    let (prompt, caption) = (block.prompt, block.caption);
    let values = print_values(values, sides.written.len().max(sides.source.len()))?;
    let drawing = Drawing {
        prompt: &prompt,
        sides: &sides,
        axes: Axes {
            rows: sides.written.iter().map(String::as_str).collect(),
            cols: sides.source.iter().map(String::as_str).collect(),
            corner: ("wrote ↓", "source →"),
            // Rows are the decoder's positions, not the prompt's tokens: no token highlight.
            tokens: None,
        },
        shared,
        values,
    };
    let matrix = read::matrix(&prompt, &sides, layer, which)?;
    let scale = Scale::of(&matrix, Stage::Pattern, shared);
    let own = draw(&drawing.axes, &matrix, &scale, values);
    let (drawn, live, deferred) = drawing.stacked(own, layer, which, pickers)?;
    let canvas = Canvas {
        kind: KIND,
        width: drawn.width,
        height: drawn.height,
        title: format!(
            "Layer {}, {}: cross-attention",
            layer.0,
            which.words(n_head)
        ),
        desc: describe::describe(&matrix, &sides, layer, which.words(n_head)),
        css: scale.ramp.css(),
    };
    let figure = Figure::new(canvas, drawn.body, caption, &prompt).with_relations(drawn.relations);
    let figure = match live {
        Some(json) => figure.with_live(json),
        None => figure,
    };
    Ok((figure.with_deferred(deferred), Domain::Unit))
}

/// What every panel of the figure shares: the trace, the axes, the scale and `values`.
struct Drawing<'a> {
    prompt: &'a Prompt<'a>,
    sides: &'a Sides,
    axes: Axes<'a>,
    shared: Option<&'a SharedScale>,
    values: bool,
}

impl Drawing<'_> {
    /// The figure's own panel `own` (of `layer` and `which`) among the others `pickers` asks
    /// for, with the pickers' JSON and the deferred panels (see `attention::pickers::stack`).
    /// The panels are numbered by head, 0 to H − 1, and H for the mean, labelled "mean".
    fn stacked(
        &self,
        own: Drawn,
        layer: Layer,
        which: Which,
        pickers: Pickers,
    ) -> Result<(Drawn, Option<String>, Option<String>), FigureError> {
        let config = self.prompt.config();
        let n_head = config.n_head;
        let at = (
            layer,
            Head(match which {
                Which::Head(h) => h,
                Which::Mean => n_head,
            }),
        );
        let others = pickers::picked(pickers, at, (config.n_layer, n_head + 1))?;
        let label = |axis: &str, v: usize| match axis {
            "head" if v == n_head => Some("mean".to_string()),
            "head" => Some(v.to_string()),
            _ => None,
        };
        let panel = |l: Layer, h: Head| {
            let w = if h.0 == n_head {
                Which::Mean
            } else {
                Which::Head(h.0)
            };
            let m = read::matrix(self.prompt, self.sides, l, w)?;
            let scale = Scale::of(&m, Stage::Pattern, self.shared);
            Ok(draw(&self.axes, &m, &scale, self.values))
        };
        pickers::stack(own, at, &others, panel, &label)
    }
}

#[cfg(test)]
#[path = "cross_attention_tests.rs"]
mod tests;
