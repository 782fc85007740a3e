//! What the intervention kinds (`ablation`, `patching`) share: a heatmap of signed results,
//! one cell per part of the model, coloured on the diverging scale and carrying its number
//! where numbers fit the figure's width; with its legend and the line that says the scale
//! is shared. A grid too wide for its numbers drops them; one too wide for legible labels
//! widens the figure (it scrolls on a phone) rather than shrink text below 12 units.

use crate::draw::wrapped_note;
use crate::format::signed;
use crate::heatmap::{self, Cell, Grid};
use crate::kinds::strips::WIDTH;
use crate::relations::Relation;
use crate::strip::signed_legend;
use crate::svg::{Element, Ramp};
use crate::token_text::Shown;

/// A rows × cols table of signed values to draw, row-major.
pub(super) struct Table {
    pub(super) rows: Vec<Shown>,
    pub(super) cols: Vec<Shown>,
    pub(super) values: Vec<f64>,
    /// What rows and columns are, e.g. ("layer", "head"). Without arrows: with them the
    /// corner takes room from GPT-2 small's 13 columns of numbers.
    pub(super) corner: (&'static str, &'static str),
}

impl Table {
    /// The same values with rows and columns swapped.
    pub(super) fn turned(&self) -> Table {
        let (n_rows, n_cols) = (self.rows.len(), self.cols.len());
        let values = (0..n_cols)
            .flat_map(|c| (0..n_rows).map(move |r| (r, c)))
            .map(|(r, c)| self.values[r * n_cols + c])
            .collect();
        Table {
            rows: self.cols.clone(),
            cols: self.rows.clone(),
            values,
            corner: (self.corner.1, self.corner.0),
        }
    }
}

/// How values become colours and printed numbers.
pub(super) struct Scale {
    /// |value| at which colours saturate.
    pub(super) limit: f64,
    /// A value as printed in a cell.
    pub(super) label: fn(f64) -> String,
    /// The legend's title.
    pub(super) title: String,
    /// The line saying the scale is shared with other figures, if it is.
    pub(super) shared: Option<String>,
}

impl Scale {
    fn bin(&self, ramp: &Ramp, value: f64) -> usize {
        if self.limit > 0.0 {
            ramp.bin_of_signed(value / self.limit)
        } else {
            ramp.bin_of_signed(0.0)
        }
    }
}

/// The drawn grid, legend and note, the bottom of them, and the right edge of the grid.
pub(super) struct Drawn {
    pub(super) body: Vec<Element>,
    pub(super) bottom: f64,
    pub(super) right: f64,
    /// Left edge and width of the cells.
    pub(super) left: f64,
    pub(super) width: f64,
    /// Top of the cells.
    pub(super) grid_top: f64,
    /// What a reader can check: the cells' numbers (where printed) lie within the legend's
    /// ± limit.
    pub(super) relations: Vec<Relation>,
}

/// The cells of `table` on `scale`, each with its number if `values`.
fn cells(table: &Table, scale: &Scale, ramp: &Ramp, values: bool) -> Vec<Cell> {
    table
        .values
        .iter()
        .map(|&v| Cell::Value {
            bin: scale.bin(ramp, v),
            label: values.then(|| (scale.label)(v)),
        })
        .collect()
}

/// `table` as a heatmap from `top`: with numbers if they fit in [`WIDTH`], else without,
/// in cells at least [`heatmap::LABEL_SIZE`] wide; then the legend and the shared note.
pub(super) fn draw(table: &Table, scale: &Scale, top: f64) -> Drawn {
    let ramp = Ramp::signed();
    let grid = |cells| Grid {
        rows: &table.rows,
        cols: &table.cols,
        cells,
        ramp: &ramp,
        corner: table.corner,
        tokens: None,
    };
    let numbered = cells(table, scale, &ramp, true);
    let placed = heatmap::draw(&grid(&numbered), WIDTH, top);
    let numbered = placed.right <= WIDTH;
    let placed = if numbered {
        placed
    } else {
        let plain = cells(table, scale, &ramp, false);
        let plain = grid(&plain);
        let width = WIDTH.max(heatmap::width_for(&plain, heatmap::LABEL_SIZE));
        heatmap::draw(&plain, width, top)
    };
    let cell = placed.width / table.cols.len().max(1) as f64;
    let grid_top = placed.bottom - table.rows.len() as f64 * cell;
    let mut body = placed.elements;
    let legend_top = placed.bottom + 10.0;
    let (legend, legend_right) = signed_legend(&scale.title, scale.limit, placed.left, legend_top);
    body.push(legend);
    let mut bottom = legend_top + heatmap::LEGEND_HEIGHT;
    if let Some(line) = &scale.shared {
        let (note, last) = wrapped_note(line, placed.left, bottom + 8.0, WIDTH, 15.0);
        body.push(note);
        bottom = last + 8.0;
    }
    Drawn {
        body,
        bottom,
        right: placed.right.max(legend_right),
        left: placed.left,
        width: placed.width,
        grid_top,
        relations: if numbered {
            within_legend(table, scale)
        } else {
            Vec::new()
        },
    }
}

/// The lowest and the highest cell, as printed, lie within the legend's ± limit as printed
/// (the legend's ticks: [`signed_legend`]'s decimals).
fn within_legend(table: &Table, scale: &Scale) -> Vec<Relation> {
    let decimals = match scale.limit {
        l if l < 0.5 => 2,
        l if l >= 10.0 => 0,
        _ => 1,
    };
    let Some(legend) = crate::relations::printed(&signed(scale.limit, decimals)) else {
        return Vec::new();
    };
    let limit = legend.value + legend.half_unit;
    let (lo, hi) = (table.values.iter()).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
        (a.min(v), b.max(v))
    });
    [lo, hi]
        .into_iter()
        .filter(|v| v.is_finite())
        .map(|v| Relation::Bound {
            value: (scale.label)(v),
            low: -limit,
            high: limit,
            why: "a cell of the grid, within the legend's ± limit",
        })
        .collect()
}

/// Whether `table` fits [`WIDTH`] with cells wide enough for legible labels.
pub(super) fn fits(table: &Table) -> bool {
    let ramp = Ramp::signed();
    let grid = Grid {
        rows: &table.rows,
        cols: &table.cols,
        cells: &[],
        ramp: &ramp,
        corner: table.corner,
        tokens: None,
    };
    heatmap::width_for(&grid, heatmap::LABEL_SIZE) <= WIDTH
}

/// A number in a cell: one decimal without the leading zero, none from 10 on, and a plain
/// "0" for what rounds to zero ("−5.2", "−.7", "12", "0"), so most fit a 24-unit cell.
pub(super) fn tenths(value: f64) -> String {
    let decimals = if value.abs() >= 9.95 { 0 } else { 1 };
    bare(&signed(value, decimals), ".0")
}

/// A fraction in a cell: two decimals without the leading zero, whole numbers bare
/// (".87", "−.12", "1.04", "1", "0").
pub(super) fn hundredths(value: f64) -> String {
    bare(&signed(value, 2), ".00")
}

/// `text` (a number from [`signed`]) without a leading zero or the `zeros` of a whole number.
fn bare(text: &str, zeros: &str) -> String {
    let (sign, digits) = match text.strip_prefix('−') {
        Some(rest) => ("−", rest),
        None => ("", text),
    };
    let digits = digits.strip_suffix(zeros).unwrap_or(digits);
    let digits = match digits.strip_prefix("0.") {
        Some(rest) => format!(".{rest}"),
        None => digits.to_string(),
    };
    if digits == "0" {
        "0".to_string()
    } else {
        format!("{sign}{digits}")
    }
}

/// The largest |value| of `values`, at least a tiny positive number.
pub(super) fn limit(values: impl IntoIterator<Item = f64>) -> f64 {
    values
        .into_iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::{hundredths, tenths, Table};
    use crate::token_text::Shown;

    #[test]
    fn numbers_in_cells_are_short() {
        assert_eq!(tenths(-5.24), "−5.2");
        assert_eq!(tenths(-0.74), "−.7");
        assert_eq!(tenths(2.0), "2");
        assert_eq!(tenths(12.4), "12");
        assert_eq!(tenths(-0.04), "0");
        assert_eq!(tenths(0.04), "0");
        assert_eq!(hundredths(0.874), ".87");
        assert_eq!(hundredths(-0.12), "−.12");
        assert_eq!(hundredths(1.0), "1");
        assert_eq!(hundredths(1.04), "1.04");
        assert_eq!(hundredths(-0.001), "0");
    }

    #[test]
    fn a_turned_table_swaps_rows_and_columns() {
        let table = Table {
            rows: vec![Shown::plain("0"), Shown::plain("1")],
            cols: vec![Shown::plain("a"), Shown::plain("b"), Shown::plain("c")],
            values: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            corner: ("layer", "token"),
        };
        let turned = table.turned();
        assert_eq!(turned.values, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(turned.corner, ("token", "layer"));
        assert_eq!(turned.rows.len(), 3);
    }
}
