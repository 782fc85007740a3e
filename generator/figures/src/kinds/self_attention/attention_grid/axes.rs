//! The token axes of `attention-grid`: the shown tokens down the left of each row of tiles
//! (the queries every tile in that row shares) and under the lowest tile of each column
//! (the keys), at the smallest legible size. Where cells are thinner than a label, every
//! few rows or columns carry one, counted back from the last token.

use super::Grid;
use crate::draw::text;
use crate::heatmap::token_key;
use crate::svg::{number, text_width, Element, Font, DESCENT, MIN_TEXT_SIZE};
use crate::token_text::Shown;
use tracebook_trace::Token;

/// Cells at least this tall (or wide) take a label each: labels at the smallest legible
/// size set one per line, as tight as text runs but not overlapping.
pub(super) const LABELLED_CELL: f64 = MIN_TEXT_SIZE;
/// The widest a label may be; longer tokens are cut with "…" and keep their whole text in
/// a `<title>`.
const MAX_LABEL: f64 = 84.0;

/// The labels of the `shown` positions.
pub(super) fn labels(tokens: &[Token], shown: &[usize]) -> Vec<Shown> {
    shown
        .iter()
        .map(|&p| Shown::fit(&tokens[p].text, MAX_LABEL, Font::Mono, MIN_TEXT_SIZE))
        .collect()
}

/// How wide the widest label is drawn.
pub(super) fn width(labels: &[Shown]) -> f64 {
    labels
        .iter()
        .map(|l| text_width(&l.text(), Font::Mono, MIN_TEXT_SIZE))
        .fold(0.0, f64::max)
        .ceil()
}

/// The bottom of the key labels under the lowest tiles.
pub(super) fn keys_bottom(grid: &Grid) -> f64 {
    lowest_tiles(grid)
        .map(|(_, y)| y + grid.tile + 4.0 + width(&grid.labels))
        .fold(0.0, f64::max)
}

/// A key label's baseline sits this share of its size right of its column's middle; its
/// descenders reach [`DESCENT`] further (turned upright, they point right).
const KEY_SHIFT: f64 = 0.35;

/// The right edge of the key labels under the lowest tiles: the last column's label, turned
/// upright, reaches a little past its tile where cells are narrower than its text is tall.
pub(super) fn keys_right(grid: &Grid) -> f64 {
    if grid.labels.is_empty() {
        return 0.0;
    }
    let last = grid.labels.len() as f64 - 0.5;
    lowest_tiles(grid)
        .map(|(x, _)| x + last * grid.cell + MIN_TEXT_SIZE * (KEY_SHIFT + DESCENT))
        .fold(0.0, f64::max)
}

/// Query labels left of each row of tiles, key labels under the lowest tile of each column,
/// each tagged for the page's highlighting of the prompt `highlight`'s tokens (untagged
/// without one).
pub(super) fn tokens(grid: &Grid, highlight: Option<&str>) -> Vec<Element> {
    if grid.labels.is_empty() {
        return Vec::new();
    }
    let size = MIN_TEXT_SIZE;
    let every = every(grid.cell);
    let labelled = || {
        let n = grid.labels.len();
        (0..n).filter(move |i| (n - 1 - i).is_multiple_of(every))
    };
    let tag = |element: Element, i: usize| {
        let element = match highlight {
            Some(prompt) => element.attr("data-tb-tok", token_key(prompt, grid.shown[i])),
            None => element,
        };
        grid.labels[i].append_to(element)
    };
    let mut queries = Element::new("g")
        .class("tbf-m")
        .attr("font-size", size)
        .attr("text-anchor", "end");
    for y in row_tops(grid) {
        for i in labelled() {
            let baseline = y + (i as f64 + 0.5) * grid.cell + size * 0.35;
            queries.push(tag(text(grid.left - 4.0, baseline), i));
        }
    }
    let mut keys = Element::new("g")
        .class("tbf-m")
        .attr("font-size", size)
        .attr("text-anchor", "end");
    for (x, y) in lowest_tiles(grid) {
        for i in labelled() {
            let (x, y) = (
                x + (i as f64 + 0.5) * grid.cell + size * KEY_SHIFT,
                y + grid.tile + 4.0,
            );
            let turn = format!("rotate(-90 {} {})", number(x, 1), number(y, 1));
            keys.push(tag(text(x, y).attr("transform", turn), i));
        }
    }
    vec![queries, keys]
}

/// One label in this many rows: every row when cells are tall enough for one.
fn every(cell: f64) -> usize {
    (LABELLED_CELL / cell).ceil().max(1.0) as usize
}

/// The top edge of each row of tiles.
fn row_tops(grid: &Grid) -> Vec<f64> {
    let mut tops: Vec<f64> = (0..grid.layers.len())
        .flat_map(|row| (0..grid.heads()).map(move |head| (row, head)))
        .map(|(row, head)| grid.origin(row, head).1)
        .collect();
    tops.dedup();
    tops
}

/// The top-left corner of the lowest tile in each column.
fn lowest_tiles(grid: &Grid) -> impl Iterator<Item = (f64, f64)> {
    let mut lowest: Vec<(f64, f64)> = Vec::new();
    for row in 0..grid.layers.len() {
        for head in 0..grid.heads() {
            let (x, y) = grid.origin(row, head);
            match lowest.iter_mut().find(|(lx, _)| *lx == x) {
                Some(tile) => tile.1 = tile.1.max(y),
                None => lowest.push((x, y)),
            }
        }
    }
    lowest.into_iter()
}
