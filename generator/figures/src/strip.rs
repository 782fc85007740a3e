//! Heat strips: one row of cells per vector, coloured on a diverging scale around zero,
//! with a label on the left and a summary on the right. Wide vectors (GPT-2's 768
//! dimensions) are shown by their first few dimensions; the summary speaks for the rest.

use crate::draw::{note, text, Cells};
use crate::format::signed;
use crate::heatmap;
use crate::svg::{text_width, Element, Font, Ramp};
use crate::token_text::{fitted, Shown};

/// One strip: a label, the values on show, and a summary of the whole vector.
#[derive(Debug, Clone)]
pub struct StripRow {
    pub label: Shown,
    pub values: Vec<f64>,
    pub summary: String,
    /// Extra space above this row, to group rows.
    pub gap_before: f64,
}

/// A stack of strips sharing one colour scale.
#[derive(Debug, Clone)]
pub struct Strips<'a> {
    pub rows: &'a [StripRow],
    /// |value| at which colours saturate.
    pub limit: f64,
    /// Over the cells, e.g. "dimensions 0–31 of 768".
    pub header: String,
    /// Over the summaries, e.g. "‖x‖".
    pub summary_title: &'a str,
    pub width: f64,
}

/// Where the strips landed.
#[derive(Debug)]
pub struct PlacedStrips {
    pub elements: Vec<Element>,
    pub left: f64,
    pub bottom: f64,
    /// Top of each row's cells.
    pub row_tops: Vec<f64>,
}

pub const ROW: f64 = 14.0;
const LABEL_SIZE: f64 = 12.0;

/// Lays out and draws `strips` starting at `top`.
pub fn draw(strips: &Strips<'_>, top: f64) -> PlacedStrips {
    let layout = Layout::of(strips);
    let header_y = top + 11.0;
    // The header runs up to the summaries' title (or the edge), cut with a title beyond.
    let room = if strips.summary_title.is_empty() {
        strips.width - layout.left
    } else {
        layout.summary_x - layout.left - 8.0
    };
    let header_text = text(layout.left, header_y).class("tbf-s tbf-dim");
    let mut elements = vec![fitted(header_text, &strips.header, room, Font::Sans, 12.0)];
    if !strips.summary_title.is_empty() {
        elements.push(note(strips.summary_title, layout.summary_x, header_y));
    }
    let rows = draw_rows(strips, &layout, top + 18.0);
    elements.extend(rows.cells.paths(&Ramp::signed(), ROW - 1.0));
    elements.extend([rows.frames, rows.labels]);
    if strips.rows.iter().any(|r| !r.summary.is_empty()) {
        elements.push(rows.summaries);
    }
    PlacedStrips {
        elements,
        left: layout.left,
        bottom: rows.bottom,
        row_tops: rows.tops,
    }
}

/// Where the parts of every row go.
#[derive(Clone, Copy)]
struct Layout {
    /// Left edge of the cells, right of the labels.
    left: f64,
    /// Width of one cell.
    cell: f64,
    /// Left edge of the summaries.
    summary_x: f64,
}

impl Layout {
    fn of(strips: &Strips<'_>) -> Layout {
        let label_width = strips
            .rows
            .iter()
            .map(|r| text_width(&r.label.text(), Font::Mono, LABEL_SIZE))
            .fold(0.0, f64::max);
        // With 15% slack: system fonts run wider than the estimate (DejaVu Sans does).
        let summary_width = 1.15
            * strips
                .rows
                .iter()
                .map(|r| text_width(&r.summary, Font::Sans, 12.0))
                .fold(text_width(strips.summary_title, Font::Sans, 12.0), f64::max);
        let left = (label_width + 8.0).ceil();
        let dims = strips
            .rows
            .iter()
            .map(|r| r.values.len())
            .max()
            .unwrap_or(1);
        let room = strips.width - left - summary_width - 10.0;
        let cell = (room / dims.max(1) as f64).floor().clamp(2.0, 18.0);
        // Summaries sit right of the strips, or right of the header over short strips.
        let header_right = left + text_width(&strips.header, Font::Sans, 12.0) + 12.0;
        let summary_x = (left + cell * dims as f64 + 8.0)
            .max(header_right)
            .min(strips.width - summary_width);
        Layout {
            left,
            cell,
            summary_x,
        }
    }
}

/// The rows' parts, each kind in its own group, and where the rows went.
struct Rows {
    cells: Cells,
    frames: Element,
    labels: Element,
    summaries: Element,
    tops: Vec<f64>,
    bottom: f64,
}

/// Every row from `top` down: its cells, a frame round them, its label and its summary.
fn draw_rows(strips: &Strips<'_>, layout: &Layout, top: f64) -> Rows {
    let ramp = Ramp::signed();
    let Layout {
        left,
        cell,
        summary_x,
    } = *layout;
    let mut cells = Cells::default();
    let mut labels = Element::new("g")
        .class("tbf-m")
        .attr("font-size", LABEL_SIZE)
        .attr("text-anchor", "end");
    let mut summaries = Element::new("g").class("tbf-s");
    let mut frames = Element::new("g").class("tbf-o");
    let mut y = top;
    let mut tops = Vec::new();
    for row in strips.rows {
        y += row.gap_before;
        tops.push(y);
        for (i, v) in row.values.iter().enumerate() {
            let bin = ramp.bin_of_signed(if strips.limit > 0.0 {
                v / strips.limit
            } else {
                0.0
            });
            cells.add(bin, left + i as f64 * cell, y, cell);
        }
        labels.push(row.label.append_to(text(left - 6.0, y + 10.5)));
        if !row.summary.is_empty() {
            summaries.push(text(summary_x, y + 10.5).text(row.summary.clone()));
        }
        frames.push(
            Element::new("rect")
                .attr("x", left)
                .attr("y", y)
                .attr("width", cell * row.values.len() as f64)
                .attr("height", ROW - 1.0),
        );
        y += ROW + 2.0;
    }
    Rows {
        cells,
        frames,
        labels,
        summaries,
        tops,
        bottom: y,
    }
}

/// Decimals of a diverging legend's end at `limit`.
fn legend_decimals(limit: f64) -> usize {
    if limit >= 10.0 {
        0
    } else if limit < 0.5 {
        2
    } else {
        1
    }
}

/// `limit` as a diverging legend prints its end: "4.7", "0.45".
pub fn legend_limit(limit: f64) -> String {
    signed(limit, legend_decimals(limit))
}

/// A legend for the diverging scale from `-limit` to `limit`, titled `title`; returns it
/// and its right edge.
pub fn signed_legend(title: &str, limit: f64, left: f64, top: f64) -> (Element, f64) {
    let ramp = Ramp::signed();
    // Bin centres sit at −limit and +limit; the row's ends are half a bin beyond.
    let edge = 0.5 / ramp.bins() as f64;
    let decimals = legend_decimals(limit);
    let ticks = vec![
        (edge, signed(-limit, decimals)),
        (0.5, "0".to_string()),
        (1.0 - edge, signed(limit, decimals)),
    ];
    let width = heatmap::legend_width(&ramp, title, None);
    (
        heatmap::legend(&ramp, title, &ticks, None, left, top),
        left + width,
    )
}

/// The largest |value| over `rows`, at least a tiny positive number.
pub fn limit_of<'v>(values: impl IntoIterator<Item = &'v f64>) -> f64 {
    values
        .into_iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-9)
}

/// The Euclidean norm of `values`.
pub fn norm(values: &[f64]) -> f64 {
    values.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::{draw, limit_of, norm, StripRow, Strips};
    use crate::token_text::Shown;

    #[test]
    fn rows_get_one_cell_per_value_coloured_by_sign() {
        let rows = [StripRow {
            label: Shown::plain("x"),
            values: vec![-2.0, 0.0, 2.0, 1.0],
            summary: "s".to_string(),
            gap_before: 0.0,
        }];
        let strips = Strips {
            rows: &rows,
            limit: 2.0,
            header: "dims".to_string(),
            summary_title: "‖x‖",
            width: 300.0,
        };
        let placed = draw(&strips, 0.0);
        let svg: String = placed.elements.iter().map(|e| e.render()).collect();
        // −2 at the blue end, 0 neutral, +2 at the red end, +1 halfway to red.
        for class in ["tbf-v0\"", "tbf-v5\"", "tbf-v10\"", "tbf-v8\""] {
            assert!(svg.contains(class), "{class} in {svg}");
        }
        assert_eq!(placed.row_tops.len(), 1);
    }

    #[test]
    fn limits_and_norms() {
        assert_eq!(limit_of(&[1.0, -3.0, 2.0]), 3.0);
        assert!(limit_of(&[]) > 0.0);
        assert_eq!(norm(&[3.0, 4.0]), 5.0);
    }
}
