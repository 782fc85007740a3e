//! `figure attention-grid`: attention patterns as small multiples, one tile per head:
//! every head of one layer (`layer` given), or every layer × head of the model. Each tile
//! is a query × key heatmap over the prompt's last tokens (with the first token in front
//! when the window leaves it out, since heads often rest their attention there), the causal
//! triangle faint and the weights in blue; the alt text sorts the heads into the shapes
//! people look for.
//!
//! Tiles in a row share their queries and tiles in a column their keys, so the tokens are
//! written once per row of tiles (down the left) and once per column (under the lowest
//! tile), at the smallest legible size; one layer's heads are set in as few columns as keep
//! a cell tall enough for its label (see `axes`).
//!
//! Options: `prompt`, `caption`, `layer` (default: every layer), `tokens` (last tokens
//! per tile: for one layer default 12, at most 24; for every layer default 8, at most 10).
//!
//! An encoder-decoder's trace (Marian, BART) needs `stack`, as `attention` does (see
//! `attention::stack`): "encoder" tiles the encoder's layers and heads over the source
//! tokens, every cell open (nothing is masked); "decoder" tiles the decoder's causal
//! self-attention over the positions it read, which are not the prompt's tokens and so are
//! not highlighted with them.

mod axes;
mod describe;

use super::attention::stack::{Stack, View};
use crate::draw::{note, text, Cells};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::heatmap;
use crate::heatmap::grid_marker;
use crate::kinds::strips::{window, WIDTH};
use crate::options::{capped, Block, Layer, LayerKey, Tokens};
use crate::prompt::{Checked, Prompt};
use crate::relations::Relation;
use crate::shared::{self, Domain, SharedScale};
use crate::svg::{number, text_width, Canvas, Element, Font, Ramp};
use crate::token_text::Shown;
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "attention-grid";

/// Space between tiles.
const GAP: f64 = 3.0;
/// The legend's weights, and where they sit along it.
const LEGEND_TICKS: [(f64, &str); 3] = [(0.0, "0"), (0.5, "0.5"), (1.0, "1")];

/// The patterns on show and where the tiles go.
struct Grid {
    layers: Vec<usize>,
    patterns: Vec<Checked>,
    /// Whether a query sees only the keys up to it (all but an encoder's).
    causal: bool,
    /// The token positions shown, ascending: the last ones, and the first token in front of
    /// them when the window leaves it out (heads often rest on it).
    shown: Vec<usize>,
    /// The token text of each shown position, as its labels draw it; none when the cells
    /// are too small for labels.
    labels: Vec<Shown>,
    columns: usize,
    tile: f64,
    cell: f64,
    left: f64,
    top: f64,
}

impl Grid {
    /// Whether the first token is set in front of a later run (positions 0, then n − k…).
    fn gap(&self) -> bool {
        self.shown.len() > 1 && self.shown[1] > 1
    }

    fn heads(&self) -> usize {
        self.patterns[0].shape[0]
    }

    /// Tile position of layer row `row`, head `head`.
    fn origin(&self, row: usize, head: usize) -> (f64, f64) {
        let index = row * self.heads() + head;
        let (r, c) = if self.layers.len() == 1 {
            (index / self.columns, index % self.columns)
        } else {
            (row, head)
        };
        let pitch_y = self.tile + if self.layers.len() == 1 { 18.0 } else { GAP };
        (
            self.left + c as f64 * (self.tile + GAP),
            self.top + r as f64 * pitch_y,
        )
    }
}

/// The options of `attention-grid`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    /// One layer; every layer when absent.
    layer: Option<LayerKey>,
    tokens: Option<Tokens>,
    stack: Option<Stack>,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let view = View::of(&block.prompt, block.options.stack, KIND)?;
    let layer = view.layer_or_all(&block, KIND, block.options.layer)?;
    let (prompt, caption) = (block.prompt, block.caption);
    // Every layer's tiles are small and many: fewer tokens keep the file small.
    let most = if layer.is_some() { 24 } else { 10 };
    let default = if layer.is_some() { 12 } else { 8 };
    let tokens = capped(block.options.tokens, default, most)?;
    let grid = read(&prompt, &view, layer, tokens)?;
    let ramp = Ramp::unit();
    // The decoder's positions are not the prompt's tokens: they take no highlight.
    let highlight = view.prompt_tokens().then_some(prompt.name.as_str());
    let mut body = labels(&grid);
    body.extend(axes::tokens(&grid, highlight));
    body.extend(tiles(&grid, &ramp));
    body.extend(markers(&grid, highlight));
    let mut lines: Vec<String> = shared::note(shared).into_iter().collect();
    lines.extend(tile_notes(&grid, &view, layer.is_none()));
    let height = legend_and_notes(&grid, &ramp, lines, &mut body);
    let canvas = Canvas {
        kind: KIND,
        // Wider only where the last key label, turned upright, reaches past the tiles.
        width: WIDTH.max(axes::keys_right(&grid).ceil()),
        height,
        title: title(&grid, &view, layer),
        desc: describe::describe(&view, &grid),
        css: ramp.css(),
    };
    let relations = relations(&grid, view.tokens.len());
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, Domain::Unit))
}

/// What a reader can check: the legend's weights and (one layer's tiles, each titled) the
/// heads' numbers count up, and a tile shows at most the prompt's `n` tokens (the note's
/// "the last k of n").
fn relations(grid: &Grid, n: usize) -> Vec<Relation> {
    let shown = grid.shown.len() - usize::from(grid.gap());
    let order = |values: Vec<String>| Relation::Order {
        values,
        descending: false,
    };
    let mut out = vec![
        order(LEGEND_TICKS.iter().map(|(_, t)| t.to_string()).collect()),
        order(vec![shown.to_string(), n.to_string()]),
    ];
    if grid.layers.len() == 1 {
        out.push(order((0..grid.heads()).map(|h| h.to_string()).collect()));
    }
    out
}

/// The figure's title: the heads of one layer, or all of them, naming the stack if any.
fn title(grid: &Grid, view: &View<'_>, layer: Option<Layer>) -> String {
    match (layer, view.stack) {
        (Some(l), None) => format!("Attention patterns of every head in layer {}", l.0),
        (Some(l), Some(_)) => format!(
            "Attention patterns of every head in {}",
            view.layer_words(l).to_lowercase()
        ),
        (None, stack) => format!(
            "Attention patterns of all {} heads{}",
            grid.layers.len() * grid.heads(),
            stack.map_or(String::new(), |s| format!(" of the {}", s.word()))
        ),
    }
}

/// The patterns of `layer` (every layer when `None`) of `view`'s stack over at most
/// `tokens` positions, laid out as tiles.
fn read(
    prompt: &Prompt<'_>,
    view: &View<'_>,
    layer: Option<Layer>,
    tokens: usize,
) -> Result<Grid, FigureError> {
    let n = view.tokens.len();
    if n == 0 {
        return Err(prompt.broken(format!("the trace of \"{}\" has no tokens", prompt.name)));
    }
    let layers: Vec<usize> = match layer {
        Some(Layer(l)) => vec![l],
        None => (0..view.n_layer).collect(),
    };
    let heads = view.n_head;
    let patterns = layers
        .iter()
        .map(|&l| prompt.shaped(&view.tensor(Layer(l), "pattern"), &[heads, n, n]))
        .collect::<Result<Vec<_>, _>>()?;
    let shown = positions(n, tokens);
    let labels = axes::labels(view.tokens, &shown);
    Ok(layout((layers, patterns, view.causal()), shown, labels))
}

/// Where each tile's cells are, for the page's token highlighting (none without
/// `highlight`, the prompt's name): the consecutive run of the last tokens (after the first
/// token's row and column when it is set in front).
fn markers(grid: &Grid, highlight: Option<&str>) -> Vec<Element> {
    let Some(prompt_name) = highlight else {
        return Vec::new();
    };
    let run = grid.shown.len() - usize::from(grid.gap());
    let skip = (grid.shown.len() - run) as f64 * grid.cell;
    let first = grid.shown[grid.shown.len() - run];
    let mut out = Vec::new();
    for row in 0..grid.layers.len() {
        for head in 0..grid.heads() {
            let (x, y) = grid.origin(row, head);
            out.push(grid_marker(
                prompt_name,
                first,
                run,
                (x + skip, y + skip),
                grid.cell,
            ));
        }
    }
    out
}

/// The legend under the tiles, then `lines`; returns the figure's height.
fn legend_and_notes(grid: &Grid, ramp: &Ramp, lines: Vec<String>, body: &mut Vec<Element>) -> f64 {
    let bottom = axes::keys_bottom(grid) + 14.0;
    let ticks = LEGEND_TICKS.map(|(at, t)| (at, t.to_string()));
    let legend_left = 8.0;
    body.push(heatmap::legend(
        ramp,
        "attention weight",
        &ticks,
        None,
        legend_left,
        bottom,
    ));
    let mut height = bottom + heatmap::LEGEND_HEIGHT + 6.0;
    for line in lines {
        body.push(note(line, legend_left, height + 4.0));
        height += 15.0;
    }
    height
}

/// What a tile shows, of `view`'s tokens, and with `every_layer` which rows and columns are
/// which.
fn tile_notes(grid: &Grid, view: &View<'_>, every_layer: bool) -> Vec<String> {
    let n = view.tokens.len();
    let mut what = vec![if grid.gap() {
        format!(
            "each tile: queries ↓ × keys →, the first token, then the last {} of {n}",
            grid.shown.len() - 1
        )
    } else {
        format!(
            "each tile: queries ↓ × keys →, the last {} of {n} tokens",
            grid.shown.len()
        )
    }];
    if every_layer {
        what.push(format!(
            "rows: {}layers 0–{}; columns: heads 0–{}",
            view.stack
                .map_or(String::new(), |s| format!("{} ", s.word())),
            grid.layers.len() - 1,
            grid.heads() - 1
        ));
    }
    what
}

/// The positions a tile shows for `n` tokens and at most `max`: all of them, or the first
/// token and the last `max − 1`.
fn positions(n: usize, max: usize) -> Vec<usize> {
    let last = window(n, max);
    if last.start == 0 || max < 2 {
        return last.collect();
    }
    std::iter::once(0).chain(window(n, max - 1)).collect()
}

/// The tiles of `patterns` (one per layer in `layers`, causal or not) over the `shown`
/// positions, with their `labels`.
fn layout(
    (layers, patterns, causal): (Vec<usize>, Vec<Checked>, bool),
    shown: Vec<usize>,
    labels: Vec<Shown>,
) -> Grid {
    let heads = patterns[0].shape[0];
    let one_layer = layers.len() == 1;
    let top = if one_layer { 16.0 } else { 18.0 };
    // Cells in half units keep the path data short.
    let cell_for = |left: f64, columns: usize| {
        let raw_tile = (WIDTH - left - GAP * (columns as f64 - 1.0)) / columns as f64;
        ((raw_tile / shown.len() as f64) * 2.0).floor().max(1.0) / 2.0
    };
    let (left, columns, labels) = if one_layer {
        // One layer's heads wrap into rows: as many columns (up to four) as leave every
        // cell room for its token label, but at least two, so many heads stay short.
        let left = axes::width(&labels) + 6.0;
        let columns = (2..=heads.min(4))
            .rev()
            .find(|&c| cell_for(left, c) >= axes::LABELLED_CELL)
            .unwrap_or(heads.min(2));
        (left, columns, labels)
    } else if cell_for(26.0, heads) >= axes::LABELLED_CELL {
        (26.0 + axes::width(&labels) + 6.0, heads, labels)
    } else {
        // A row of every head of a layer leaves no cell tall enough for a label: the
        // note under the tiles names the tokens instead.
        (26.0, heads, Vec::new())
    };
    let cell = cell_for(left, columns);
    Grid {
        layers,
        patterns,
        causal,
        tile: cell * shown.len() as f64,
        cell,
        columns,
        shown,
        labels,
        left,
        top,
    }
}

/// Head titles (one layer) or layer and head numbers along the edges (all layers).
fn labels(grid: &Grid) -> Vec<Element> {
    let mut group = Element::new("g").class("tbf-s tbf-dim");
    if grid.layers.len() == 1 {
        for head in 0..grid.heads() {
            let (x, y) = grid.origin(0, head);
            group.push(text(x, y - 4.0).text(format!("head {head}")));
        }
        return vec![group];
    }
    group = group.attr("text-anchor", "middle");
    // Every head is numbered while the numbers fit over their tiles; with many heads (GPT-2
    // XL's 25) every second or third, so two-digit numbers never run together.
    let pitch = grid.tile + GAP;
    let widest = text_width(
        &grid.heads().saturating_sub(1).to_string(),
        Font::Sans,
        12.0,
    ) + 4.0;
    let step = (widest / pitch).ceil().max(1.0) as usize;
    for head in (0..grid.heads()).step_by(step) {
        let (x, _) = grid.origin(0, head);
        group.push(text(x + grid.tile / 2.0, 12.0).text(head.to_string()));
    }
    for (row, layer) in grid.layers.iter().enumerate() {
        let (_, y) = grid.origin(row, 0);
        group.push(text(11.0, y + grid.tile / 2.0 + 4.0).text(format!("L{layer}")));
    }
    vec![group]
}

/// Each tile's open cells in the lightest colour (the causal triangle, or with nothing
/// masked the whole square), then its weights of 0.1 and more.
fn tiles(grid: &Grid, ramp: &Ramp) -> Vec<Element> {
    let mut triangles = String::new();
    let mut cells = Cells::default();
    let c = grid.cell;
    for (row, pattern) in grid.patterns.iter().enumerate() {
        for head in 0..grid.heads() {
            let (x, y) = grid.origin(row, head);
            triangles.push_str(&format!("M{} {}", number(x, 1), number(y, 1)));
            if grid.causal {
                for _ in &grid.shown {
                    triangles.push_str(&format!("h{0}v{0}", number(c, 1)));
                }
            } else {
                triangles.push_str(&format!("h{0}v{0}", number(grid.tile, 1)));
            }
            triangles.push_str(&format!("H{}Z", number(x, 1)));
            for (i, &q) in grid.shown.iter().enumerate() {
                let open = if grid.causal { i + 1 } else { grid.shown.len() };
                for (j, &k) in grid.shown.iter().enumerate().take(open) {
                    let bin = ramp.bin_of_unit(pattern.at(&[head, q, k]));
                    if bin > 0 {
                        cells.add(bin, x + j as f64 * c, y + i as f64 * c, c);
                    }
                }
            }
        }
    }
    let mut out = vec![Element::new("path")
        .class(&ramp.class(0))
        .attr("stroke-width", 0.5)
        .attr("d", triangles)];
    out.extend(cells.paths(ramp, c));
    out
}

#[cfg(test)]
#[path = "attention_grid_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "attention_grid_stack_tests.rs"]
mod stack_tests;
