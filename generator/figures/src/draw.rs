//! Small drawing helpers shared by the figure kinds: positioned text, notes, lines,
//! rectangles, and paths of cells coloured by ramp bin.

use crate::svg::{number, wide_width, wrap, Element, Font, Ramp, WIDE_FONT};
use std::collections::BTreeMap;

/// An empty `<text>` at `(x, y)`.
pub fn text(x: f64, y: f64) -> Element {
    Element::new("text").attr("x", x).attr("y", y)
}

/// A muted line of small text at `(x, y)`.
pub fn note(content: impl Into<String>, x: f64, y: f64) -> Element {
    text(x, y).class("tbf-s tbf-dim").text(content)
}

/// A note that may be too long for one line: from `x` if it fits in one line between there
/// and `right`, else from the left edge, broken into lines `pitch` apart. The first
/// baseline is `y`; returns the note (one `<text>`, a `<tspan>` a line, so that its text is
/// the whole sentence) and the last baseline.
pub fn wrapped_note(content: &str, x: f64, y: f64, right: f64, pitch: f64) -> (Element, f64) {
    let one_line = wide_width(content, Font::Sans, 12.0) <= right - x;
    let x = if one_line { x } else { 0.0 };
    let lines = wrap(content, (right - x) / WIDE_FONT, Font::Sans, 12.0);
    if lines.len() < 2 {
        return (note(content.trim(), x, y), y);
    }
    let mut text = note(String::new(), x, y);
    let last = lines.len() - 1;
    for (i, line) in lines.into_iter().enumerate() {
        // The space between two lines' words ends the first, so the text reads as one.
        let words = if i < last { format!("{line} ") } else { line };
        let dy = if i == 0 { 0.0 } else { pitch };
        text.push(
            Element::new("tspan")
                .attr("x", x)
                .attr("dy", dy)
                .text(words),
        );
    }
    (text, y + last as f64 * pitch)
}

/// A bold line of small text from the left edge, wrapped to `right` in lines `pitch` apart
/// (one `<text>` a line): a panel's title. Returns the texts and the last baseline.
pub fn wrapped_title(content: &str, y: f64, right: f64, pitch: f64) -> (Vec<Element>, f64) {
    let mut last = y;
    let mut out = Vec::new();
    for (i, words) in wrap(content, right / WIDE_FONT, Font::Sans, 12.0)
        .iter()
        .enumerate()
    {
        last = y + pitch * i as f64;
        out.push(text(0.0, last).class("tbf-s tbf-b").text(words.trim()));
    }
    (out, last)
}

/// [`wrapped_note`] for each of `paragraphs`, one under another; returns the notes and the
/// last baseline (`y - pitch` when there are none).
pub fn wrapped_notes(
    paragraphs: &[String],
    x: f64,
    y: f64,
    right: f64,
    pitch: f64,
) -> (Vec<Element>, f64) {
    let (mut out, mut last) = (Vec::new(), y - pitch);
    for paragraph in paragraphs {
        let (note, end) = wrapped_note(paragraph, x, last + pitch, right, pitch);
        out.push(note);
        last = end;
    }
    (out, last)
}

/// A line from `(x1, y1)` to `(x2, y2)` with `class`.
pub fn line(class: &str, x1: f64, y1: f64, x2: f64, y2: f64) -> Element {
    Element::new("line")
        .class(class)
        .attr("x1", x1)
        .attr("y1", y1)
        .attr("x2", x2)
        .attr("y2", y2)
}

/// A rectangle with `class` (none if empty).
pub fn rect(class: &str, x: f64, y: f64, width: f64, height: f64) -> Element {
    let element = Element::new("rect");
    let element = if class.is_empty() {
        element
    } else {
        element.class(class)
    };
    element
        .attr("x", x)
        .attr("y", y)
        .attr("width", width)
        .attr("height", height)
}

/// A line from `from` to `to` ending in an arrowhead, in the muted axis tone.
pub fn arrow(from: (f64, f64), to: (f64, f64)) -> Element {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let length = (dx * dx + dy * dy).sqrt().max(1e-9);
    let (ux, uy) = (dx / length, dy / length);
    let base = (to.0 - ux * 6.0, to.1 - uy * 6.0);
    let head = format!(
        "M{} {}L{} {}L{} {}Z",
        number(to.0, 1),
        number(to.1, 1),
        number(base.0 - uy * 3.5, 1),
        number(base.1 + ux * 3.5, 1),
        number(base.0 + uy * 3.5, 1),
        number(base.1 - ux * 3.5, 1)
    );
    Element::new("g")
        .child(line("tbf-ax", from.0, from.1, base.0, base.1))
        .child(Element::new("path").class("tbf-head").attr("d", head))
}

/// A box with a bold title and an optional line of muted detail under it, centred.
pub fn labelled_box(x: f64, y: f64, width: f64, height: f64, title: &str, detail: &str) -> Element {
    let centre = x + width / 2.0;
    let mut group = Element::new("g")
        .attr("text-anchor", "middle")
        .child(rect("tbf-box", x, y, width, height).attr("rx", 4.0));
    let title_y = if detail.is_empty() {
        y + height / 2.0 + 4.5
    } else {
        y + height / 2.0 - 2.0
    };
    group.push(text(centre, title_y).class("tbf-b").text(title));
    if !detail.is_empty() {
        group.push(
            text(centre, y + height / 2.0 + 12.0)
                .class("tbf-s tbf-dim")
                .text(detail),
        );
    }
    group
}

/// Cells of `width × height` at `(x, y)`, coloured by bin of `ramp`: one path per bin, each
/// cell a horizontal stroke as thick as the cell is tall (`M x y h w`, a few bytes a cell).
/// Neighbouring cells of one bin on one row merge into one stroke.
#[derive(Debug, Default)]
pub struct Cells {
    by_bin: BTreeMap<usize, Vec<(f64, f64, f64)>>,
}

impl Cells {
    /// Adds a cell of bin `bin` at `(x, y)`, `width` wide.
    pub fn add(&mut self, bin: usize, x: f64, y: f64, width: f64) {
        let strokes = self.by_bin.entry(bin).or_default();
        if let Some(last) = strokes.last_mut() {
            if last.1 == y && (last.0 + last.2 - x).abs() < 1e-9 {
                last.2 += width;
                return;
            }
        }
        strokes.push((x, y, width));
    }

    /// The paths, `height` thick, one per bin in bin order.
    pub fn paths(&self, ramp: &Ramp, height: f64) -> Vec<Element> {
        self.by_bin
            .iter()
            .map(|(bin, strokes)| {
                let mut d = String::new();
                for (x, y, w) in strokes {
                    d.push_str(&format!(
                        "M{} {}h{}",
                        number(*x, 1),
                        number(y + height / 2.0, 1),
                        number(*w, 1)
                    ));
                }
                Element::new("path")
                    .class(&ramp.class(*bin))
                    .attr("stroke-width", height)
                    .attr("d", d)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Cells;
    use crate::svg::Ramp;

    #[test]
    fn neighbouring_cells_of_a_bin_merge_into_one_stroke() {
        let mut cells = Cells::default();
        cells.add(3, 0.0, 0.0, 5.0);
        cells.add(3, 5.0, 0.0, 5.0);
        cells.add(4, 10.0, 0.0, 5.0);
        cells.add(3, 15.0, 0.0, 5.0);
        cells.add(3, 0.0, 6.0, 5.0);
        let paths: Vec<String> = cells
            .paths(&Ramp::signed(), 6.0)
            .iter()
            .map(|p| p.render())
            .collect();
        assert_eq!(
            paths,
            [
                "<path class=\"tbf-v3\" stroke-width=\"6\" d=\"M0 3h10M15 3h5M0 9h5\"/>",
                "<path class=\"tbf-v4\" stroke-width=\"6\" d=\"M10 3h5\"/>"
            ]
        );
    }
}
