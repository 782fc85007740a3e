//! Drawing one `figure attention` panel: the heatmap with its token labels, the legend
//! under it, and a note when the prompt was cut to its last tokens.

use super::matrix::Matrix;
use super::scale::{cells, Scale};
use crate::draw::wrapped_note;
use crate::heatmap::{self, Grid};
use crate::svg::{Element, Font};
use crate::token_text::Shown;
use tracebook_trace::Token;

/// The figure's width in user units.
const WIDTH: f64 = crate::svg::FIGURE_WIDTH;

/// A drawn panel and the width and height it takes.
pub(super) struct Drawn {
    pub(super) body: Vec<Element>,
    pub(super) width: f64,
    pub(super) height: f64,
}

/// The heatmap, its legend and any truncation note.
pub(super) fn draw(
    prompt_name: &str,
    matrix: &Matrix,
    tokens: &[Token],
    scale: &Scale,
    values: bool,
) -> Drawn {
    // Token labels give up width to the cells, so that on a phone-wide figure every cell is
    // at least as tall as its label's text (24 tokens) or as wide as its printed value.
    let cell = if values {
        heatmap::MIN_VALUE_CELL
    } else {
        heatmap::LABEL_SIZE
    };
    let room = (WIDTH - 12.0 - cell * tokens.len() as f64).clamp(40.0, 96.0);
    let labels: Vec<Shown> = tokens
        .iter()
        .map(|t| Shown::fit(&t.text, room, Font::Mono, 12.0))
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
    let mut right = placed.right.max(legend_right);
    if let Some(shared) = &scale.note {
        let (note, last) = wrapped_note(shared, placed.left, bottom + 10.0, WIDTH, 15.0);
        body.push(note);
        right = WIDTH;
        bottom = last + 8.0;
    }
    if matrix.first > 0 {
        let text = format!(
            "showing the last {} of {} tokens",
            matrix.shown_len(),
            matrix.n
        );
        body.push(note(&text, placed.left, bottom + 10.0));
        bottom += 18.0;
    }
    Drawn {
        body,
        width: right.min(WIDTH).ceil(),
        height: bottom,
    }
}

fn note(text: &str, x: f64, y: f64) -> Element {
    Element::new("text")
        .class("tbf-s tbf-dim")
        .attr("x", x)
        .attr("y", y)
        .text(text)
}
