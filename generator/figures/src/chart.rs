//! Chart parts shared by kinds: nice tick values, a linear axis, histograms, and columns
//! of horizontal bars with token labels.

use crate::draw::{line, text};
use crate::format::signed;
use crate::heatmap::token_key;
use crate::svg::{number, wide_width, Element, Font};
use crate::token_text::Shown;

/// A linear map from data values `lo..hi` to drawing coordinates `start..end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub start: f64,
    pub end: f64,
}

impl Axis {
    /// Where `value` lands (clamped to the axis).
    pub fn at(&self, value: f64) -> f64 {
        let span = self.hi - self.lo;
        let t = if span > 0.0 {
            ((value - self.lo) / span).clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.start + t * (self.end - self.start)
    }
}

/// Round tick values covering `lo..hi`, about `target` of them (1, 2 or 5 × 10ⁿ apart).
pub fn ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let span = hi - lo;
    if span <= 0.0 || !span.is_finite() {
        return vec![lo];
    }
    let raw = span / target.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    // A hair of slack, so 0.3 / 0.1 = 2.9999999999999996 still reaches 0.3.
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Decimals that tell ticks `step` apart.
pub fn tick_decimals(ticks: &[f64]) -> usize {
    let step = match ticks {
        [a, b, ..] => (b - a).abs(),
        _ => 1.0,
    };
    if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// The labels an axis prints for `tick_values`: each with the decimals that tell them
/// apart, negative ones with a minus sign.
pub fn tick_labels(tick_values: &[f64]) -> Vec<String> {
    let decimals = tick_decimals(tick_values);
    tick_values.iter().map(|&v| signed(v, decimals)).collect()
}

/// Tick labels' size (`tbf-s`).
const TICK_SIZE: f64 = 12.0;
/// From a value axis to the right end of its labels.
const Y_LABEL_GAP: f64 = 6.0;

/// The widest of `labels` at the tick labels' size, with room for a wide system font.
fn widest_label(labels: &[String]) -> f64 {
    labels
        .iter()
        .map(|l| wide_width(l, Font::Sans, TICK_SIZE))
        .fold(0.0, f64::max)
}

/// The room [`y_axis`]'s labels for `tick_values` take left of the axis, their gap to it
/// included, in a wide system font too: an axis at least this far from the figure's left
/// edge shows every label whole, a minus sign included.
pub fn y_label_room(tick_values: &[f64]) -> f64 {
    (widest_label(&tick_labels(tick_values)) + Y_LABEL_GAP).ceil()
}

/// A vertical value axis `y` at `x.start`: a baseline, its tick labels right-aligned left of
/// it (they need [`y_label_room`]) and faint grid lines across to `x.end`.
pub fn y_axis(x: &Axis, y: &Axis, tick_values: &[f64]) -> Element {
    let mut group = Element::new("g").class("tbf-s tbf-dim");
    group.push(line("tbf-ax", x.start, y.start, x.start, y.end));
    let mut labels = Element::new("g").attr("text-anchor", "end");
    for (&value, label) in tick_values.iter().zip(tick_labels(tick_values)) {
        let at = y.at(value);
        group.push(line("tbf-grid", x.start, at, x.end, at));
        labels.push(text(x.start - Y_LABEL_GAP, at + 4.0).text(label));
    }
    group.push(labels);
    group
}

/// `axis` with its ends drawn in just enough that [`x_axis`]'s labels for `tick_values`,
/// each centred on its tick, stay between `left` and `right` in a wide system font too (a
/// label at the end of the axis reaches half its width past it).
pub fn fit_x_labels(axis: Axis, tick_values: &[f64], left: f64, right: f64) -> Axis {
    // Each tick at its share `t` of the axis, with its label's half width.
    let span = axis.hi - axis.lo;
    let ticks: Vec<(f64, f64)> = tick_values
        .iter()
        .zip(tick_labels(tick_values))
        .map(|(&v, l)| {
            let t = if span > 0.0 {
                ((v - axis.lo) / span).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (t, wide_width(&l, Font::Sans, TICK_SIZE) / 2.0)
        })
        .collect();
    let mut fitted = axis;
    // A tick sits at (1 − t)·start + t·end: each end in turn goes where the tightest label
    // just fits; moving one end moves the ticks near the other end little, so a few rounds
    // settle both.
    for _ in 0..4 {
        let (start, end) = (fitted.start, fitted.end);
        fitted.end = ticks
            .iter()
            .filter(|(t, _)| *t > 0.0)
            .map(|(t, half)| start + (right - half - start) / t)
            .fold(end, f64::min);
        let end = fitted.end;
        fitted.start = ticks
            .iter()
            .filter(|(t, _)| *t < 1.0)
            .map(|(t, half)| (left + half - t * end) / (1.0 - t))
            .fold(start, f64::max);
    }
    fitted
}

/// A horizontal axis at `y`: a baseline, tick marks with labels below, and a title. Its
/// labels reach half their width past the axis's ends (see [`fit_x_labels`]).
pub fn x_axis(axis: &Axis, y: f64, tick_values: &[f64], title: &str) -> Element {
    let mut group = Element::new("g").class("tbf-s tbf-dim");
    group.push(line("tbf-ax", axis.start, y, axis.end, y));
    let mut labels = Element::new("g").attr("text-anchor", "middle");
    let mut marks = String::new();
    for (&value, label) in tick_values.iter().zip(tick_labels(tick_values)) {
        let x = axis.at(value);
        marks.push_str(&format!("M{} {}v4", number(x, 1), number(y, 1)));
        labels.push(text(x, y + 15.0).text(label));
    }
    group.push(Element::new("path").class("tbf-ax").attr("d", marks));
    group.push(labels);
    group.push(
        text(axis.end, y + 30.0)
            .attr("text-anchor", "end")
            .text(title),
    );
    group
}

/// Counts of `values` in `bins` equal bins over `lo..hi` (values outside go to the ends).
pub fn histogram(values: &[f64], bins: usize, lo: f64, hi: f64) -> Vec<usize> {
    let mut counts = vec![0; bins];
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    for v in values {
        let i = (((v - lo) / span) * bins as f64).floor();
        counts[(i.max(0.0) as usize).min(bins - 1)] += 1;
    }
    counts
}

/// Histogram bars standing on `base`, the tallest `height` high, as one path with class
/// `class`. Returns nothing visible for empty bins.
pub fn histogram_bars(
    counts: &[usize],
    axis: &Axis,
    base: f64,
    height: f64,
    class: &str,
) -> Element {
    let most = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let width = (axis.end - axis.start) / counts.len().max(1) as f64;
    let mut d = String::new();
    for (i, &count) in counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        // At least a sliver, so a bin of one is visible next to a bin of thousands.
        let h = (count as f64 / most * height).max(1.5);
        let x = axis.start + (i as f64 + 0.5) * width;
        d.push_str(&format!(
            "M{} {}v-{}",
            number(x, 1),
            number(base, 1),
            number(h, 1)
        ));
    }
    Element::new("path")
        .class(class)
        .attr("stroke-width", (width - 1.0).max(0.5))
        .attr("d", d)
}

/// One horizontal bar: its length in data units, the text after it, and whether it is
/// drawn in the accent colour (else a lighter tone).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub text: String,
    pub strong: bool,
}

/// The widest text written after a bar of `bars`, with room for a wide system font.
pub fn bar_text_width(bars: &[Bar]) -> f64 {
    bars.iter()
        .map(|b| wide_width(&b.text, Font::Sans, 12.0))
        .fold(0.0, f64::max)
}

/// The longest bar a column of `bars` from `x` may draw so that every bar's number, written
/// after it, ends by `right`, in a wide system font too.
pub fn bar_room(bars: &[Bar], x: f64, right: f64) -> f64 {
    (right - x - 4.0 - bar_text_width(bars)).max(20.0)
}

/// Bars from `x`, `room` long at `full`, one per row `pitch` apart from `top`, each
/// `thickness` high; with their texts after them.
pub fn bar_column(bars: &[Bar], x: f64, room: f64, full: f64, top: f64, pitch: f64) -> Element {
    bar_column_tagged(bars, x, room, full, top, pitch, None)
}

/// [`bar_column`], with `data-tb-col` on the column and `data-tb-bar` / `data-tb-pct` (the
/// row) on its bars and numbers when `tag` names the column, for the page's controls.
pub fn bar_column_tagged(
    bars: &[Bar],
    x: f64,
    room: f64,
    full: f64,
    top: f64,
    pitch: f64,
    tag: Option<usize>,
) -> Element {
    let thickness = (pitch - 6.0).max(4.0);
    let mut strong = Element::new("g").class("tbf-bar");
    let mut light = Element::new("g").class("tbf-bar2");
    let mut texts = Element::new("g").class("tbf-s");
    for (i, bar) in bars.iter().enumerate() {
        let y = top + i as f64 * pitch;
        let length = if full > 0.0 {
            (bar.value / full * room).clamp(0.0, room)
        } else {
            0.0
        };
        let mut rect = Element::new("rect")
            .attr("x", x)
            .attr("y", y)
            .attr("width", length.max(0.5))
            .attr("height", thickness)
            .attr("rx", 1.5);
        let mut label = text(x + length + 4.0, y + thickness / 2.0 + 4.0);
        if tag.is_some() {
            rect = rect.attr("data-tb-bar", i);
            label = label.attr("data-tb-pct", i);
        }
        if bar.strong {
            strong.push(rect);
        } else {
            light.push(rect);
        }
        let label = label.text(bar.text.clone());
        texts.push(if bar.strong {
            label.class("tbf-b")
        } else {
            label
        });
    }
    let column = Element::new("g");
    match tag {
        Some(c) => column.attr("data-tb-col", c),
        None => column,
    }
    .child(light)
    .child(strong)
    .child(texts)
}

/// Token labels right-aligned at `right`, one per row `pitch` apart from `top`.
pub fn label_column(labels: &[Shown], right: f64, top: f64, pitch: f64, size: f64) -> Element {
    token_label_column(labels, None, right, top, pitch, size)
}

/// [`label_column`] for rows that are tokens `first + i` of prompt `name` (`tokens` =
/// `Some((name, first))`): each label carries its token's `data-tb-tok` (see
/// [`crate::heatmap::token_key`]), so the page highlights it with the token.
pub fn token_label_column(
    labels: &[Shown],
    tokens: Option<(&str, usize)>,
    right: f64,
    top: f64,
    pitch: f64,
    size: f64,
) -> Element {
    let thickness = (pitch - 6.0).max(4.0);
    let mut group = Element::new("g")
        .class("tbf-m")
        .attr("font-size", size)
        .attr("text-anchor", "end");
    for (i, label) in labels.iter().enumerate() {
        let y = top + i as f64 * pitch + thickness / 2.0 + size * 0.35;
        let mut at = text(right, y);
        if let Some((name, first)) = tokens {
            at = at.attr("data-tb-tok", token_key(name, first + i));
        }
        group.push(label.append_to(at));
    }
    group
}

#[cfg(test)]
mod tests {
    use super::{fit_x_labels, histogram, tick_decimals, tick_labels, ticks, y_label_room, Axis};
    use crate::svg::{wide_width, Font};

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(-3.2, 4.7, 4), vec![-2.0, 0.0, 2.0, 4.0]);
        let small = ticks(0.0, 0.3, 3);
        assert_eq!(small.len(), 4);
        assert!((small[3] - 0.3).abs() < 1e-12);
        assert_eq!(tick_decimals(&small), 1);
        assert_eq!(ticks(1.0, 1.0, 4), vec![1.0]);
    }

    #[test]
    fn histograms_count_every_value_once() {
        let values = [-5.0, 0.0, 0.1, 0.9, 1.0, 7.0];
        let counts = histogram(&values, 4, 0.0, 1.0);
        assert_eq!(counts, vec![3, 0, 0, 3]);
        assert_eq!(counts.iter().sum::<usize>(), values.len());
    }

    #[test]
    fn axes_map_and_clamp() {
        let axis = Axis {
            lo: -1.0,
            hi: 1.0,
            start: 100.0,
            end: 300.0,
        };
        assert_eq!(axis.at(0.0), 200.0);
        assert_eq!(axis.at(5.0), 300.0);
    }

    #[test]
    fn a_value_axis_leaves_room_for_its_widest_label_minus_sign_included() {
        let values = ticks(-0.00006, 0.00007, 3);
        let labels = tick_labels(&values);
        assert_eq!(labels, ["−0.00005", "0.00000", "0.00005"]);
        let room = y_label_room(&values);
        assert!(
            room >= wide_width("−0.00005", Font::Sans, 12.0) + 6.0,
            "{room}"
        );
        assert!(room > y_label_room(&ticks(0.0, 0.0001, 2)));
    }

    #[test]
    fn fitted_x_axes_keep_every_label_between_the_edges() {
        let axis = Axis {
            lo: 0.0,
            hi: 10_000.0,
            start: 56.0,
            end: 364.0,
        };
        let values = ticks(0.0, 10_000.0, 5);
        let fitted = fit_x_labels(axis, &values, 0.0, 376.0);
        let half = wide_width("10000", Font::Sans, 12.0) / 2.0;
        assert!((fitted.end + half - 376.0).abs() < 1e-9, "{fitted:?}");
        assert_eq!(fitted.start, 56.0);
        // Labels that already fit leave the axis as it was.
        assert_eq!(fit_x_labels(axis, &values, 0.0, 400.0), axis);
        // The last label short of the axis's end: the end pulled in until that label fits.
        let wide = [0.0, 9_000.0];
        let fitted = fit_x_labels(Axis { end: 400.0, ..axis }, &wide, 0.0, 376.0);
        let right = fitted.at(9_000.0) + wide_width("9000", Font::Sans, 12.0) / 2.0;
        assert!(
            (right - 376.0).abs() < 1e-9 && fitted.end > 376.0,
            "{fitted:?}"
        );
        // And at the left, a label centred on the start.
        let fitted = fit_x_labels(Axis { start: 4.0, ..axis }, &values, 0.0, 376.0);
        assert!(fitted.start - wide_width("0", Font::Sans, 12.0) / 2.0 >= -1e-9);
    }
}
