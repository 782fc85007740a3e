//! Drawing one `figure attention` panel: the heatmap with its token labels, the legend
//! under it, and a note when the prompt was cut to its last tokens.

use super::matrix::Matrix;
use super::scale::{cells, Scale};
use crate::heatmap::{self, Grid};
use crate::svg::{text_width, Element, Font};
use crate::token_text::Shown;
use tracebook_trace::Token;

/// The figure's width in user units.
const WIDTH: f64 = 440.0;

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
    let mut right = placed.right.max(legend_right);
    if let Some(shared) = &scale.note {
        // A long line starts at the left edge rather than run off the figure.
        let width = text_width(shared, Font::Sans, 12.0);
        let x = if placed.left + width <= WIDTH {
            placed.left
        } else {
            0.0
        };
        body.push(note(shared, x, bottom + 10.0));
        right = right.max(x + width);
        bottom += 18.0;
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
