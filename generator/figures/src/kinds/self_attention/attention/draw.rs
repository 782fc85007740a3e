//! Drawing one `figure attention` panel (and `cross-attention`'s): the heatmap with its
//! token labels, the legend under it, and a note when the prompt was cut to its last tokens.

use super::matrix::Matrix;
use super::scale::{cells, relations, Scale};
use crate::draw::wrapped_note;
use crate::heatmap::{self, Grid, Placed};
use crate::relations::Relation;
use crate::svg::{Element, Font};
use crate::token_text::Shown;
use tracebook_trace::Token;

/// The figure's width in user units.
const WIDTH: f64 = crate::svg::FIGURE_WIDTH;

/// A drawn panel and the width and height it takes.
pub(in crate::kinds) struct Drawn {
    pub(in crate::kinds) body: Vec<Element>,
    pub(in crate::kinds) width: f64,
    pub(in crate::kinds) height: f64,
    /// What a reader can check among the numbers it prints (see `scale::relations`).
    pub(in crate::kinds) relations: Vec<Relation>,
}

/// What labels a panel's rows and columns (the tokens on show), and what they are.
pub(in crate::kinds) struct Axes<'a> {
    pub(in crate::kinds) rows: Vec<&'a str>,
    pub(in crate::kinds) cols: Vec<&'a str>,
    /// Shown in the top-left corner: what rows are, then what columns are.
    pub(in crate::kinds) corner: (&'a str, &'a str),
    /// `Some((prompt, first))` when row and column i are both token `first + i` of the
    /// prompt, for the page's token highlight.
    pub(in crate::kinds) tokens: Option<(&'a str, usize)>,
}

impl<'a> Axes<'a> {
    /// Self-attention's: queries and keys are the tokens on show, from `first`; they are
    /// prompt `highlight`'s tokens (for the page's token highlight) unless it is `None` (a
    /// decoder's positions).
    pub(super) fn square(
        highlight: Option<&'a str>,
        tokens: &'a [Token],
        first: usize,
    ) -> Axes<'a> {
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        Axes {
            rows: texts.clone(),
            cols: texts,
            corner: ("query ↓", "key →"),
            tokens: highlight.map(|prompt| (prompt, first)),
        }
    }
}

/// The heatmap, its legend and any truncation note.
pub(in crate::kinds) fn draw(axes: &Axes, matrix: &Matrix, scale: &Scale, values: bool) -> Drawn {
    // Token labels give up width to the cells, so that on a phone-wide figure every cell is
    // at least as tall as its label's text (24 tokens) or as wide as its printed value.
    let cell = if values {
        heatmap::MIN_VALUE_CELL
    } else {
        heatmap::LABEL_SIZE
    };
    let room = (WIDTH - 12.0 - cell * axes.cols.len() as f64).clamp(40.0, 96.0);
    let mut placed = grid(axes, &cells(matrix, scale, values), scale, room);
    // Scores too wide for their cells at a legible size print as whole numbers instead
    // (the legend keeps its decimal), and a line under the legend says so.
    let whole = scale.whole_numbers();
    let rounded = values && whole.whole && !labels_legible(matrix, scale, &placed, axes);
    let scale = if rounded {
        placed = grid(axes, &cells(matrix, &whole, values), &whole, room);
        &whole
    } else {
        scale
    };
    let mut body = placed.elements;
    let mut bottom = placed.bottom + 12.0;
    let (legend, legend_right) = scale.legend(placed.left, bottom);
    body.push(legend);
    bottom += heatmap::LEGEND_HEIGHT;
    let mut right = placed.right.max(legend_right);
    let rounding =
        rounded.then_some("scores in the cells rounded to whole numbers, to fit at a legible size");
    let mut next = bottom + 10.0;
    for line in scale.note.as_deref().into_iter().chain(rounding) {
        let (note, last) = wrapped_note(line, placed.left, next, WIDTH, 15.0);
        body.push(note);
        right = right.max(WIDTH);
        bottom = last + 8.0;
        next = last + 15.0;
    }
    let mut relations = relations(matrix, scale, values);
    if matrix.first > 0 {
        let (shown, n) = (matrix.shown_len().to_string(), matrix.n.to_string());
        let text = format!("showing the last {shown} of {n} tokens");
        body.push(note(&text, placed.left, bottom + 10.0));
        bottom += 18.0;
        relations.push(Relation::Order {
            values: vec![shown, n],
            descending: false,
        });
    }
    Drawn {
        body,
        // Past the phone-wide width where the grid and its slanted labels need more (a
        // grid of printed values with long tokens): clipped, the last label would be cut.
        width: right.ceil(),
        height: bottom,
        relations,
    }
}

/// Whether every number `scale` prints in the cells of `matrix` keeps a legible size in the
/// cells `placed` drew.
fn labels_legible(matrix: &Matrix, scale: &Scale, placed: &Placed, axes: &Axes) -> bool {
    let cell = placed.width / axes.cols.len().max(1) as f64;
    matrix
        .shown()
        .flat_map(|q| matrix.shown_cols().map(move |k| (q, k)))
        // Past the mask a cell prints "−∞" or nothing, not its number.
        .filter(|&(q, k)| scale.stage == super::Stage::Scores || !matrix.future(q, k))
        .all(|(q, k)| heatmap::legible(&scale.label(matrix.at(q, k)), cell))
}

/// The heatmap of `cells`, its token labels given `room` at first; long labels with printed
/// values can push the last column's slanted label past the figure's edge, so they give up
/// width until it fits (or reach the shortest room).
fn grid(axes: &Axes, cells: &[heatmap::Cell], scale: &Scale, mut room: f64) -> Placed {
    let fit = |texts: &[&str], room: f64| -> Vec<Shown> {
        texts
            .iter()
            .map(|t| Shown::fit(t, room, Font::Mono, 12.0))
            .collect()
    };
    loop {
        let (rows, cols) = (fit(&axes.rows, room), fit(&axes.cols, room));
        let grid = Grid {
            rows: &rows,
            cols: &cols,
            cells,
            ramp: &scale.ramp,
            corner: axes.corner,
            tokens: axes.tokens,
        };
        let placed = heatmap::draw(&grid, WIDTH, 0.0);
        if placed.right <= WIDTH || room <= 40.0 {
            return placed;
        }
        room = (room - 8.0).max(40.0);
    }
}

fn note(text: &str, x: f64, y: f64) -> Element {
    Element::new("text")
        .class("tbf-s tbf-dim")
        .attr("x", x)
        .attr("y", y)
        .text(text)
}
