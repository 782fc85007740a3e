//! What the vector kinds (embeddings, q/k/v, LayerNorm, head outputs) share: which
//! dimensions of a wide vector to show, and a figure of labelled heat strips with a
//! legend and notes.

use crate::draw::wrapped_note;
use crate::error::FigureError;
use crate::format::thousands;
use crate::options::{capped, Dims};
use crate::shared::{self, Domain, SharedScale};
use crate::strip::{self, StripRow, Strips};
use crate::svg::{Css, Element, Ramp};

/// The figures' width in user units.
pub const WIDTH: f64 = crate::svg::FIGURE_WIDTH;
/// Most dimensions a strip shows.
pub const MAX_DIMS: usize = 64;

/// Which dimensions of a `total`-wide vector are on show: the first n, or n spread evenly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimPick {
    pub indices: Vec<usize>,
    pub total: usize,
    pub spread: bool,
}

impl DimPick {
    /// The `dims` option (how many, default `default_count`, at most the vector's width
    /// and [`MAX_DIMS`]) and `spread` for vectors `total` wide.
    pub fn read(
        dims: Option<Dims>,
        spread: bool,
        total: usize,
        default_count: usize,
    ) -> Result<DimPick, FigureError> {
        let count = capped(dims, default_count, total.clamp(1, MAX_DIMS))?;
        Ok(DimPick::new(count, total, spread))
    }

    /// `count` of `total` dimensions, the first ones or spread evenly.
    pub fn new(count: usize, total: usize, spread: bool) -> DimPick {
        let count = count.min(total);
        let indices = if spread && count > 0 {
            (0..count).map(|i| i * total / count).collect()
        } else {
            (0..count).collect()
        };
        DimPick {
            indices,
            total,
            spread,
        }
    }

    /// Over the strips: which dimensions they show.
    pub fn header(&self) -> String {
        let total = thousands(self.total);
        let n = self.indices.len();
        if n == self.total {
            format!("all {total} dimensions")
        } else if self.spread {
            format!(
                "{n} of {total} dimensions, one in every {}",
                self.total / n.max(1)
            )
        } else {
            format!("dimensions 0–{} of {total}", n.saturating_sub(1))
        }
    }

    /// The shown values of `row`.
    pub fn take(&self, row: &[f64]) -> Vec<f64> {
        self.indices.iter().map(|&i| row[i]).collect()
    }
}

/// A strip figure's contents.
#[derive(Debug, Clone)]
pub struct StripFigure {
    pub rows: Vec<StripRow>,
    pub header: String,
    pub summary_title: &'static str,
    pub legend_title: String,
    /// Muted lines under the legend.
    pub notes: Vec<String>,
}

impl StripFigure {
    /// The domain of its values: diverging, to the largest |value| on show.
    pub fn domain(&self) -> Domain {
        Domain::Signed {
            limit: strip::limit_of(self.rows.iter().flat_map(|r| &r.values)),
        }
    }
}

/// The drawing of `figure` starting at `top`, on the scale `shared` if given: its elements,
/// height and colour rules.
pub fn draw(
    figure: &StripFigure,
    top: f64,
    shared: Option<&SharedScale>,
) -> (Vec<Element>, f64, Css) {
    let drawn = draw_placed(figure, top, shared);
    (drawn.elements, drawn.height, drawn.css)
}

/// A drawn strip figure, with where its rows went.
#[derive(Debug)]
pub struct Drawn {
    pub elements: Vec<Element>,
    pub height: f64,
    pub css: Css,
    /// Left edge of the strips, and the top of each row.
    pub left: f64,
    pub row_tops: Vec<f64>,
}

/// [`draw`], also saying where the rows went, so a kind can annotate between them.
pub fn draw_placed(figure: &StripFigure, top: f64, shared: Option<&SharedScale>) -> Drawn {
    let own = strip::limit_of(figure.rows.iter().flat_map(|r| &r.values));
    let limit = shared::signed_limit(shared, own);
    let strips = Strips {
        rows: &figure.rows,
        limit,
        header: figure.header.clone(),
        summary_title: figure.summary_title,
        width: WIDTH,
    };
    let placed = strip::draw(&strips, top);
    let mut elements = placed.elements;
    let (legend, _) = strip::signed_legend(
        &figure.legend_title,
        limit,
        placed.left,
        placed.bottom + 8.0,
    );
    elements.push(legend);
    let mut bottom = placed.bottom + 8.0 + crate::heatmap::LEGEND_HEIGHT;
    let faint = faint_note(&figure.rows, limit);
    for line in shared::note(shared)
        .iter()
        .chain(&faint)
        .chain(&figure.notes)
    {
        let (note, last) = wrapped_note(line, placed.left, bottom + 16.0, WIDTH, 15.0);
        elements.push(note);
        bottom = last;
    }
    Drawn {
        elements,
        height: bottom + 8.0,
        css: Ramp::signed().css(),
        left: placed.left,
        row_tops: placed.row_tops,
    }
}

/// Rows whose every value stays under this share of the scale show no colour deeper
/// than the palest tint.
const FAINT_SHARE: f64 = 0.3;

/// A line naming the rows that stay near blank on the scale to `limit` (their values are
/// all small beside the other rows', or beside a scale shared across figures), with how far
/// their values reach: the strips keep one scale so that rows compare, and the note says why
/// those rows look empty.
pub fn faint_note(rows: &[StripRow], limit: f64) -> Option<String> {
    let faint: Vec<&StripRow> = rows
        .iter()
        .filter(|r| !r.values.is_empty() && strip::limit_of(&r.values) < FAINT_SHARE * limit)
        .collect();
    let (first, last) = (faint.first()?, faint.last()?);
    let reach = faint
        .iter()
        .map(|r| strip::limit_of(&r.values))
        .fold(0.0, f64::max);
    let name = |r: &StripRow| format!("“{}”", r.label.text().trim());
    let names: Vec<String> = faint.iter().map(|r| name(r)).collect();
    let (who, verb, their) = match names.as_slice() {
        [one] => (one.clone(), "stays", "its"),
        [init @ .., end] if names.len() <= 4 => {
            (format!("{} and {end}", init.join(", ")), "stay", "their")
        }
        _ => (
            format!("{} rows, {} … {},", names.len(), name(first), name(last)),
            "stay",
            "their",
        ),
    };
    Some(format!(
        "{who} {verb} near blank: {their} values reach only ±{} on this one scale to ±{}, kept so that rows compare",
        crate::format::short(reach),
        strip::legend_limit(limit),
    ))
}

/// The last `max` of `n` positions: prompts longer than that show their end.
pub fn window(n: usize, max: usize) -> std::ops::Range<usize> {
    n.saturating_sub(max)..n
}

/// "showing the last 16 of 40 tokens", when some are left out.
pub fn window_note(shown: &std::ops::Range<usize>, n: usize) -> Option<String> {
    (shown.start > 0).then(|| format!("showing the last {} of {n} tokens", shown.len()))
}

#[cfg(test)]
mod tests {
    use super::{window, window_note, DimPick};

    #[test]
    fn dimensions_are_the_first_ones_or_spread_evenly() {
        let first = DimPick::new(4, 768, false);
        assert_eq!(first.indices, [0, 1, 2, 3]);
        assert_eq!(first.header(), "dimensions 0–3 of 768");
        let spread = DimPick::new(4, 768, true);
        assert_eq!(spread.indices, [0, 192, 384, 576]);
        assert_eq!(spread.header(), "4 of 768 dimensions, one in every 192");
        assert_eq!(DimPick::new(9, 8, false).header(), "all 8 dimensions");
        assert_eq!(
            spread.take(&(0..768).map(f64::from).collect::<Vec<_>>()),
            [0.0, 192.0, 384.0, 576.0]
        );
    }

    #[test]
    fn long_prompts_show_their_end() {
        assert_eq!(window(40, 16), 24..40);
        assert_eq!(window(4, 16), 0..4);
        assert_eq!(
            window_note(&(24..40), 40).unwrap(),
            "showing the last 16 of 40 tokens"
        );
        assert_eq!(window_note(&(0..4), 4), None);
    }
}
