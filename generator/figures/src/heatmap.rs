//! Heatmaps with token labels on both axes (attention patterns and the like): cells
//! coloured by a [`Ramp`] bin, rows labelled on the left, columns labelled at a slant
//! above, and a swatch legend. Each bin's cells are one path of short horizontal strokes
//! as thick as a cell is tall (`M x y h w`, about 12 bytes a cell), so a 24×24 grid
//! stays a few KB.

use crate::svg::{number, text_width, wide_width, Element, Font, Ramp, DESCENT};
use crate::token_text::Shown;

/// One cell of the grid.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Not drawn (e.g. a future position in an attention pattern).
    Blank,
    /// Drawn faintly: there is no value (e.g. masked to −∞); `label` is printed if given.
    Masked { label: Option<String> },
    /// Coloured by ramp bin `bin`; `label` is printed on the cell if given.
    Value { bin: usize, label: Option<String> },
}

impl Cell {
    fn has_label(&self) -> bool {
        matches!(
            self,
            Cell::Masked { label: Some(_) } | Cell::Value { label: Some(_), .. }
        )
    }
}

/// A grid to draw: `rows × cols` cells, row-major, with a label per row and per column.
#[derive(Debug, Clone)]
pub struct Grid<'a> {
    pub rows: &'a [Shown],
    pub cols: &'a [Shown],
    pub cells: &'a [Cell],
    pub ramp: &'a Ramp,
    /// What rows and columns are, shown in the top-left corner, e.g. ("query ↓", "key →").
    pub corner: (&'a str, &'a str),
    /// When row and column i are token `first + i` of prompt `name`: `Some((name, first))`,
    /// so the page's script can highlight a token's row and column (see [`token_key`]).
    pub tokens: Option<(&'a str, usize)>,
}

/// The `data-tb-tok` value that names token `position` of prompt `prompt` on a page.
pub fn token_key(prompt: &str, position: usize) -> String {
    format!("{prompt}:{position}")
}

/// An empty group telling the page's script where a token grid's cells are: token
/// `first + i` is row and column i of `n` cells of size `cell` from `(left, top)`.
pub fn grid_marker(
    prompt: &str,
    first: usize,
    n: usize,
    (left, top): (f64, f64),
    cell: f64,
) -> Element {
    Element::new("g").attr(
        "data-tb-grid",
        format!(
            "{prompt} {first} {n} {} {} {}",
            number(left, 2),
            number(top, 2),
            number(cell, 2)
        ),
    )
}

/// Where the grid landed.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub elements: Vec<Element>,
    /// Left edge and width of the cells.
    pub left: f64,
    pub width: f64,
    /// Bottom edge of the cells.
    pub bottom: f64,
    /// Right edge of everything drawn, slanted column labels included.
    pub right: f64,
}

/// Token labels' size; a cell at least this tall keeps them at it.
pub const LABEL_SIZE: f64 = 12.0;
const MAX_CELL: f64 = 34.0;
/// Column labels are drawn at this slant; sin = cos for 45°.
const SLANT: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// A column label's anchor sits this share of its size right of the column's middle, so
/// that the turned text's glyphs centre on the column.
const LABEL_SHIFT: f64 = 0.3;
/// Narrower cells than this would crowd slanted labels into each other.
const MIN_SLANTED_CELL: f64 = 18.0;
/// Numbers printed in cells are drawn at the smallest legible size (a figure is never shown
/// below 1:1, see `svg::document`), so cells that carry them are at least this wide, even
/// if the grid then outgrows the width it was offered: 12 cells fit a phone-wide figure. A
/// number wider than its cell ("−12.3") is drawn narrower (`textLength`), never smaller.
const VALUE_SIZE: f64 = 12.0;
pub const MIN_VALUE_CELL: f64 = 24.0;

/// Lays out and draws `grid` within `width`, starting at `top`.
pub fn draw(grid: &Grid<'_>, width: f64, top: f64) -> Placed {
    let left = left_of(grid);
    let col_label = label_width(grid.cols);
    let n_cols = grid.cols.len().max(1) as f64;
    let smallest = if grid.cells.iter().any(Cell::has_label) {
        MIN_VALUE_CELL
    } else {
        4.0
    };
    let fit = |upright: bool| {
        ((width - left - col_reach(col_label, upright)) / n_cols)
            .floor()
            .clamp(4.0, MAX_CELL)
            .max(smallest)
    };
    // Slanted column labels lean out to the right of the grid and need room between
    // them; when cells get narrow, labels stand upright instead.
    let slanted = fit(false);
    let (cell, upright) = if slanted >= MIN_SLANTED_CELL {
        (slanted, false)
    } else {
        (fit(true), true)
    };
    let rise = if upright {
        col_label
    } else {
        col_label * SLANT
    };
    // At least room for the corner's two lines when column labels are short.
    let grid_top = (top + rise + 12.0).max(top + 30.0).ceil();
    let size = LABEL_SIZE.min(cell).max(6.0);
    let mut elements = vec![corner(grid.corner, left, grid_top)];
    elements.push(row_labels(grid, left, grid_top, cell, size));
    elements.push(col_labels(grid, left, grid_top, (cell, size), upright));
    elements.extend(cells(grid, left, grid_top, cell));
    if let Some((prompt, first)) = grid.tokens {
        let n = grid.rows.len();
        elements.push(grid_marker(prompt, first, n, (left, grid_top), cell));
    }
    Placed {
        elements,
        left,
        width: cell * n_cols,
        bottom: grid_top + cell * grid.rows.len() as f64,
        right: cols_right(grid.cols, left, cell, upright),
    }
}

/// The right edge of the cells `cell` wide from `left` and of the column labels over them,
/// each reaching [`col_reach`] past its column's middle.
fn cols_right(cols: &[Shown], left: f64, cell: f64, upright: bool) -> f64 {
    cols.iter()
        .enumerate()
        .map(|(i, label)| {
            let width = text_width(&label.text(), Font::Mono, LABEL_SIZE);
            left + (i as f64 + 0.5) * cell + col_reach(width, upright)
        })
        .fold(left + cell * cols.len().max(1) as f64, f64::max)
}

/// How far past the middle of its column a column label `col_label` wide (at
/// [`LABEL_SIZE`]; a smaller size reaches less) reaches to the right: its anchor sits right
/// of the middle (see [`col_labels`]), then a slanted label leans its length and its
/// descenders' depth out along the slant, an upright one its descenders' depth alone; and
/// a little room after it.
fn col_reach(col_label: f64, upright: bool) -> f64 {
    let shift = LABEL_SIZE * LABEL_SHIFT;
    let depth = LABEL_SIZE * DESCENT;
    let lean = if upright {
        depth
    } else {
        (col_label + depth) * SLANT
    };
    shift + lean + 2.0
}

/// Left edge of the cells: room for the row labels and the corner.
fn left_of(grid: &Grid<'_>) -> f64 {
    let corner_width = text_width(grid.corner.0, Font::Sans, 12.0).max(text_width(
        grid.corner.1,
        Font::Sans,
        12.0,
    ));
    // The corner's arrows render wider than the text-width estimate allows for.
    (label_width(grid.rows) + 8.0)
        .max(corner_width + 22.0)
        .ceil()
}

/// The width [`draw`] needs to give `grid` cells `cell` wide (column labels slanted where
/// cells are wide enough for that, upright otherwise): for a figure that widens rather
/// than shrink its cells below legible.
pub fn width_for(grid: &Grid<'_>, cell: f64) -> f64 {
    let reach = col_reach(label_width(grid.cols), cell < MIN_SLANTED_CELL);
    (left_of(grid) + reach + cell * grid.cols.len().max(1) as f64).ceil()
}

/// The widest of `labels` at the labels' size.
fn label_width(labels: &[Shown]) -> f64 {
    labels
        .iter()
        .map(|l| text_width(&l.text(), Font::Mono, LABEL_SIZE))
        .fold(0.0, f64::max)
}

fn corner((rows, cols): (&str, &str), left: f64, grid_top: f64) -> Element {
    Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end")
        .child(text(left - 8.0, grid_top - 22.0).text(cols))
        .child(text(left - 8.0, grid_top - 7.0).text(rows))
}

fn row_labels(grid: &Grid<'_>, left: f64, grid_top: f64, cell: f64, size: f64) -> Element {
    let mut group = Element::new("g")
        .class("tbf-m")
        .attr("font-size", size)
        .attr("text-anchor", "end");
    for (i, label) in grid.rows.iter().enumerate() {
        let y = grid_top + (i as f64 + 0.5) * cell + size * 0.35;
        group.push(label.append_to(tagged(text(left - 6.0, y), grid, i)));
    }
    group
}

/// `element` with the `data-tb-tok` of row or column `i`, when the grid's lines are tokens.
fn tagged(element: Element, grid: &Grid<'_>, i: usize) -> Element {
    match grid.tokens {
        Some((prompt, first)) => element.attr("data-tb-tok", token_key(prompt, first + i)),
        None => element,
    }
}

fn col_labels(
    grid: &Grid<'_>,
    left: f64,
    grid_top: f64,
    (cell, size): (f64, f64),
    upright: bool,
) -> Element {
    let angle = if upright { -90 } else { -45 };
    let mut group = Element::new("g").class("tbf-m").attr("font-size", size);
    for (i, label) in grid.cols.iter().enumerate() {
        let x = left + (i as f64 + 0.5) * cell + size * LABEL_SHIFT;
        let y = grid_top - 5.0;
        let rotate = format!("rotate({angle} {} {})", number(x, 1), number(y, 1));
        let at = tagged(text(x, y).attr("transform", rotate), grid, i);
        group.push(label.append_to(at));
    }
    group
}

/// The smallest a printed value's glyphs may be squeezed to fit its cell, as a share of
/// their size: 11 of 12 units.
const MIN_SQUEEZE: f64 = 11.0 / 12.0;
/// How much wider the usual system sans (DejaVu Sans) renders than the width estimate.
const RENDERED_WIDE: f64 = 1.15;

/// Whether `label`, printed in a cell `cell` wide, keeps a legible size: it fits, or
/// squeezing it to fit (as [`draw`] does) leaves its glyphs at least [`MIN_SQUEEZE`] of
/// their size.
pub fn legible(label: &str, cell: f64) -> bool {
    let side = (cell - 1.0).max(1.0);
    wide_width(label, Font::Sans, VALUE_SIZE) <= side - 2.0
        || text_width(label, Font::Sans, VALUE_SIZE) * RENDERED_WIDE * MIN_SQUEEZE <= side - 3.0
}

/// One path per bin (and one for masked cells), then the printed values.
fn cells(grid: &Grid<'_>, left: f64, grid_top: f64, cell: f64) -> Vec<Element> {
    let mut paths: std::collections::BTreeMap<Option<usize>, String> = Default::default();
    let mut values = Element::new("g")
        .attr("font-size", VALUE_SIZE)
        .attr("text-anchor", "middle");
    // Cells are a stroke `side` thick and long, leaving a one-unit gap between them.
    let side = (cell - 1.0).max(1.0);
    let cols = grid.cols.len();
    let mut printed = false;
    for (index, content) in grid.cells.iter().enumerate() {
        let x = left + (index % cols) as f64 * cell;
        let y = grid_top + (index / cols) as f64 * cell;
        let (bin, label) = match content {
            Cell::Blank => continue,
            Cell::Masked { label } => (None, label),
            Cell::Value { bin, label } => (Some(*bin), label),
        };
        let d = paths.entry(bin).or_default();
        let stroke = format!(
            "M{} {}h{}",
            number(x, 1),
            number(y + side / 2.0, 1),
            number(side, 1)
        );
        d.push_str(&stroke);
        if let Some(label) = label {
            let class = bin.map_or("tbf-dim".to_string(), |b| grid.ramp.text_class(b));
            let mut centre = text(x + side / 2.0, y + side / 2.0 + VALUE_SIZE * 0.35);
            if wide_width(label, Font::Sans, VALUE_SIZE) > side - 2.0 {
                centre = centre
                    .attr("textLength", number(side - 3.0, 1))
                    .attr("lengthAdjust", "spacingAndGlyphs");
            }
            values.push(centre.class(&class).text(label.clone()));
            printed = true;
        }
    }
    let mut out: Vec<Element> = paths
        .into_iter()
        .map(|(bin, d)| {
            let path = match bin {
                Some(b) => Element::new("path").class(&grid.ramp.class(b)),
                None => Element::new("path")
                    .attr("stroke", "currentColor")
                    .attr("stroke-opacity", "0.07"),
            };
            path.attr("stroke-width", side).attr("d", d)
        })
        .collect();
    if printed {
        out.push(values);
    }
    out
}

/// A row of swatches, one per bin, titled on the left, with `ticks` (position in `[0, 1]`
/// along the row, label) beneath; `masked` adds a faint swatch with that label.
pub fn legend(
    ramp: &Ramp,
    title: &str,
    ticks: &[(f64, String)],
    masked: Option<&str>,
    left: f64,
    top: f64,
) -> Element {
    const SWATCH: f64 = 14.0;
    let mut group = Element::new("g").class("tbf-s tbf-dim");
    group.push(text(left, top + 10.0).text(title));
    let row = top + 16.0;
    let bins = ramp.bins();
    for i in 0..bins {
        let x = left + i as f64 * SWATCH;
        group.push(swatch(&ramp.class(i), x, row, SWATCH));
    }
    let span = SWATCH * bins as f64;
    let mut tick_labels = Element::new("g").attr("text-anchor", "middle");
    for (at, label) in ticks {
        tick_labels.push(text(left + at * span, row + 24.0).text(label.clone()));
    }
    group.push(tick_labels);
    if let Some(label) = masked {
        let x = left + span + 16.0;
        group.push(swatch("", x, row, SWATCH));
        group.push(text(x + SWATCH + 5.0, row + 9.5).text(label));
    }
    group
}

/// Height [`legend`] takes.
pub const LEGEND_HEIGHT: f64 = 44.0;

/// Width [`legend`] takes, from its left edge, with these arguments.
pub fn legend_width(ramp: &Ramp, title: &str, masked: Option<&str>) -> f64 {
    let swatches = 14.0 * ramp.bins() as f64 + 10.0;
    let masked = masked.map_or(0.0, |label| 35.0 + text_width(label, Font::Sans, 12.0));
    (swatches + masked).max(text_width(title, Font::Sans, 12.0))
}

/// A legend swatch: a horizontal stroke, like the cells, so the ramp's class colours it.
fn swatch(class: &str, x: f64, y: f64, width: f64) -> Element {
    let d = format!(
        "M{} {}h{}",
        number(x, 1),
        number(y + 5.0, 1),
        number(width, 1)
    );
    let path = Element::new("path");
    let path = if class.is_empty() {
        path.attr("stroke", "currentColor")
            .attr("stroke-opacity", "0.07")
    } else {
        path.class(class)
    };
    path.attr("stroke-width", 10.0).attr("d", d)
}

fn text(x: f64, y: f64) -> Element {
    Element::new("text").attr("x", x).attr("y", y)
}
