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
//! every layer, "all": every layer and head, at most 48 panels) draws the other heatmaps
//! too, hidden, for the page's layer and head pickers (see [`crate::panels`]).

use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{signed, weight};
use crate::heatmap::{self, Cell, Grid};
use crate::options::{choice, Block, HeadKey, LayerKey};
use crate::options::{Head, Layer};
use crate::panels::{self, Panel};
use crate::prompt::Prompt;
use crate::svg::{Canvas, Element, Font, Ramp};
use crate::token_text::Shown;
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::Token;

pub const KIND: &str = "attention";

const WIDTH: f64 = 440.0;
const MAX_TOKENS: usize = 24;
const VALUES_BY_DEFAULT: usize = 10;
const MAX_VALUES: usize = 14;
/// Panels a figure may carry: each is a whole heatmap, and pages have a size budget.
const MAX_PANELS: usize = 48;

choice! {
    /// Which step of attention to draw.
    enum Stage { Pattern = "pattern", Scores = "scores", Masked = "masked" } default Pattern
}

choice! {
    /// Which other panels to draw, hidden, for the page's pickers.
    enum Pickers { None = "none", Heads = "heads", Layers = "layers", All = "all" } default None
}

/// One head's T×T matrix, with the part of it on show.
struct Matrix {
    data: Vec<f32>,
    n: usize,
    /// First token shown; prompts longer than `MAX_TOKENS` show their end.
    first: usize,
}

impl Matrix {
    fn at(&self, query: usize, key: usize) -> f64 {
        f64::from(self.data[query * self.n + key])
    }

    fn shown(&self) -> std::ops::Range<usize> {
        self.first..self.n
    }

    /// The key on show that `query` rates highest (the earlier one on a tie).
    fn top_key(&self, query: usize) -> Option<usize> {
        self.shown().filter(|&k| k <= query).max_by(|&a, &b| {
            self.at(query, a)
                .total_cmp(&self.at(query, b))
                .then(b.cmp(&a))
        })
    }
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

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
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
    let shown = matrix.n - matrix.first;
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
    let tokens = &prompt.trace.meta.tokens[matrix.first..];
    let scale = Scale::of(&matrix, stage);
    let (body, width, height) = draw(&prompt.name, &matrix, tokens, &scale, values);
    let others = picked(pickers, (layer, head), (config.n_layer, config.n_head));
    if others.len() > MAX_PANELS {
        return Err(FigureError::at(
            "pickers",
            format!(
                "{} panels are too many for one page (at most {MAX_PANELS})",
                others.len()
            ),
        )
        .with_hint("use pickers = \"heads\" (every head of this layer) or \"layers\""));
    }
    let (mut width, mut height) = (width, height);
    let mut panels = Vec::with_capacity(others.len());
    let mut shown = 0;
    for (l, h) in &others {
        let key = vec![("layer", *l), ("head", *h)];
        if (*l, *h) == (layer.0, head.0) {
            shown = panels.len();
            panels.push(Panel {
                key,
                body: Vec::new(),
            });
            continue;
        }
        let m = read_matrix(&prompt, Layer(*l), Head(*h), stage)?;
        let (b, w, ht) = draw(&prompt.name, &m, tokens, &Scale::of(&m, stage), values);
        (width, height) = (width.max(w), height.max(ht));
        panels.push(Panel { key, body: b });
    }
    let live = (!panels.is_empty()).then(|| panels::json(&panels, shown));
    let body = match panels.get_mut(shown) {
        Some(own) => {
            own.body = body;
            panels::stack(panels, shown)
        }
        None => body,
    };
    let canvas = Canvas {
        kind: KIND,
        width,
        height,
        title: format!(
            "Layer {}, head {}: attention {}",
            layer.0,
            head.0,
            stage.word()
        ),
        desc: describe(&matrix, &scale, layer, head, tokens),
        css: scale.ramp.css(),
    };
    let figure = Figure::new(canvas, body, caption, &prompt);
    Ok(match live {
        Some(json) => figure.with_live(json),
        None => figure,
    })
}

/// The (layer, head) panels that `pickers` asks for, in order; empty for "none".
fn picked(
    pickers: Pickers,
    (layer, head): (Layer, Head),
    (n_layer, n_head): (usize, usize),
) -> Vec<(usize, usize)> {
    match pickers {
        Pickers::Heads => (0..n_head).map(|h| (layer.0, h)).collect(),
        Pickers::Layers => (0..n_layer).map(|l| (l, head.0)).collect(),
        Pickers::All => (0..n_layer)
            .flat_map(|l| (0..n_head).map(move |h| (l, h)))
            .collect(),
        Pickers::None => Vec::new(),
    }
}

/// The heatmap, its legend and any truncation note; and the width and height they take.
fn draw(
    prompt_name: &str,
    matrix: &Matrix,
    tokens: &[Token],
    scale: &Scale,
    values: bool,
) -> (Vec<Element>, f64, f64) {
    let labels: Vec<Shown> = tokens
        .iter()
        .map(|t| Shown::fit(&t.text, 96.0, Font::Mono, 12.0))
        .collect();
    let cells = cells(matrix, scale, values);
    let grid = Grid {
        rows: &labels,
        cols: &labels,
        cells: &cells,
        ramp: &scale.ramp,
        corner: ("query ↓", "key →"),
        tokens: Some((prompt_name, matrix.first)),
    };
    let placed = heatmap::draw(&grid, WIDTH, 0.0);
    let mut body = placed.elements;
    let mut bottom = placed.bottom + 12.0;
    let (legend, legend_right) = scale.legend(placed.left, bottom);
    body.push(legend);
    bottom += heatmap::LEGEND_HEIGHT;
    if matrix.first > 0 {
        let shown = matrix.n - matrix.first;
        let text = format!("showing the last {shown} of {} tokens", matrix.n);
        body.push(note(&text, placed.left, bottom + 10.0));
        bottom += 18.0;
    }
    let width = placed.right.max(legend_right).min(WIDTH).ceil();
    (body, width, bottom)
}

/// Reads the head's matrix for `stage` and checks its shape against the prompt.
fn read_matrix(
    prompt: &Prompt<'_>,
    layer: Layer,
    head: Head,
    stage: Stage,
) -> Result<Matrix, FigureError> {
    let name = match stage {
        Stage::Pattern => format!("blocks.{}.attn.pattern", layer.0),
        Stage::Scores | Stage::Masked => format!("blocks.{}.attn.scores", layer.0),
    };
    let tensor = prompt.tensor(&name, 3)?;
    let n = prompt.trace.meta.tokens.len();
    if n == 0 {
        return Err(prompt.broken(format!("the trace of \"{}\" has no tokens", prompt.name)));
    }
    let heads = prompt.trace.meta.model.config.n_head;
    if tensor.shape != [heads, n, n] {
        return Err(prompt.broken(format!(
            "`{name}` has shape {:?}; a prompt of {n} tokens needs [{heads}, {n}, {n}]",
            tensor.shape
        )));
    }
    if let Some(bad) = tensor.data.iter().position(|v| !v.is_finite()) {
        return Err(prompt.broken(format!("`{name}` holds a non-finite value at index {bad}")));
    }
    let data = tensor.data[head.0 * n * n..(head.0 + 1) * n * n].to_vec();
    Ok(Matrix {
        data,
        n,
        first: n.saturating_sub(MAX_TOKENS),
    })
}

/// How values map to colours: weights 0 to 1, or scores symmetric around 0.
struct Scale {
    ramp: Ramp,
    stage: Stage,
    /// Largest |score| on show (scores and masked stages).
    limit: f64,
}

impl Scale {
    fn of(matrix: &Matrix, stage: Stage) -> Scale {
        if stage == Stage::Pattern {
            return Scale {
                ramp: Ramp::unit(),
                stage,
                limit: 1.0,
            };
        }
        let limit = matrix
            .shown()
            .flat_map(|q| matrix.shown().map(move |k| (q, k)))
            .filter(|&(q, k)| stage == Stage::Scores || k <= q)
            .map(|(q, k)| matrix.at(q, k).abs())
            .fold(0.0, f64::max);
        Scale {
            ramp: Ramp::signed(),
            stage,
            limit,
        }
    }

    fn bin(&self, value: f64) -> usize {
        match self.stage {
            Stage::Pattern => self.ramp.bin_of_unit(value),
            _ if self.limit > 0.0 => self.ramp.bin_of_signed(value / self.limit),
            _ => self.ramp.bin_of_signed(0.0),
        }
    }

    fn label(&self, value: f64) -> String {
        match self.stage {
            Stage::Pattern => weight(value),
            _ => signed(value, 1),
        }
    }

    fn legend(&self, left: f64, top: f64) -> (Element, f64) {
        let (title, masked) = match self.stage {
            Stage::Pattern => ("attention weight", None),
            Stage::Scores => ("score q·k/√dₕ", None),
            Stage::Masked => ("score q·k/√dₕ", Some("masked: −∞")),
        };
        let ticks = if self.stage == Stage::Pattern {
            vec![
                (0.0, "0".to_string()),
                (0.5, "0.5".to_string()),
                (1.0, "1".to_string()),
            ]
        } else {
            // Bin centres sit at −limit and +limit; the row's ends are half a bin beyond.
            let edge = 0.5 / self.ramp.bins() as f64;
            vec![
                (edge, signed(-self.limit, 1)),
                (0.5, "0".to_string()),
                (1.0 - edge, signed(self.limit, 1)),
            ]
        };
        let width = heatmap::legend_width(&self.ramp, title, masked);
        let element = heatmap::legend(&self.ramp, title, &ticks, masked, left, top);
        (element, left + width)
    }
}

fn cells(matrix: &Matrix, scale: &Scale, values: bool) -> Vec<Cell> {
    let mut cells = Vec::new();
    for q in matrix.shown() {
        for k in matrix.shown() {
            let future = k > q;
            cells.push(match scale.stage {
                Stage::Pattern if future => Cell::Blank,
                Stage::Masked if future => Cell::Masked {
                    label: values.then(|| "−∞".to_string()),
                },
                _ => {
                    let value = matrix.at(q, k);
                    Cell::Value {
                        bin: scale.bin(value),
                        label: values.then(|| scale.label(value)),
                    }
                }
            });
        }
    }
    cells
}

fn note(text: &str, x: f64, y: f64) -> Element {
    Element::new("text")
        .class("tbf-s tbf-dim")
        .attr("x", x)
        .attr("y", y)
        .text(text)
}

fn describe(matrix: &Matrix, scale: &Scale, layer: Layer, head: Head, tokens: &[Token]) -> String {
    let quote = |i: usize| format!("{:?}", tokens[i - matrix.first].text);
    let mut out = format!(
        "Layer {}, head {}, over {} tokens. {}",
        layer.0,
        head.0,
        tokens.len(),
        what(scale)
    );
    let last = matrix.n - 1;
    if let Some(k) = matrix.top_key(last) {
        let verb = if scale.stage == Stage::Pattern {
            "attends most to"
        } else {
            "scores highest with"
        };
        let value = scale.label(matrix.at(last, k));
        out.push_str(&format!(
            " The last token, {}, {verb} {} ({value}).",
            quote(last),
            quote(k)
        ));
    }
    if scale.stage == Stage::Pattern {
        // The first row attends only to itself; the last was just described.
        let strongest = matrix
            .shown()
            .skip(1)
            .filter(|&q| q != last)
            .filter_map(|q| matrix.top_key(q).map(|k| (q, k)))
            .max_by(|a, b| matrix.at(a.0, a.1).total_cmp(&matrix.at(b.0, b.1)));
        if let Some((q, k)) = strongest {
            let value = weight(matrix.at(q, k));
            out.push_str(&format!(
                " The strongest other link is {} to {} ({value}).",
                quote(q),
                quote(k)
            ));
        }
    }
    out
}

/// What the stage shows, in a sentence.
fn what(scale: &Scale) -> String {
    match scale.stage {
        Stage::Pattern => "Attention pattern: each row is a token (the query) and how it divides \
                           its attention, summing to 1, among itself and the tokens before it."
            .to_string(),
        Stage::Scores => format!(
            "Attention scores q·k/√dₕ before the causal mask, from {} to {}.",
            signed(-scale.limit, 2),
            signed(scale.limit, 2)
        ),
        Stage::Masked => {
            "Attention scores q·k/√dₕ after the causal mask: each token (row) keeps \
                          its scores for itself and earlier tokens, and later tokens are set to −∞."
                .to_string()
        }
    }
}

#[cfg(test)]
#[path = "attention_tests.rs"]
mod tests;
