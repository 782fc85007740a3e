//! How `figure attention` colours and labels each stage's values: weights from 0 to 1, or
//! scores symmetric around 0 with future positions blank or −∞; the legend and the cells.

use super::matrix::Matrix;
use super::Stage;
use crate::format::{signed, weight};
use crate::heatmap::{self, Cell};
use crate::relations::Relation;
use crate::shared::{self, Domain, SharedScale};
use crate::svg::{Element, Ramp};

/// How values map to colours: weights 0 to 1, or scores symmetric around 0.
pub(in crate::kinds) struct Scale {
    pub(in crate::kinds) ramp: Ramp,
    pub(super) stage: Stage,
    /// |score| at which colours saturate (scores and masked stages): the largest on show,
    /// or the shared scale's.
    pub(super) limit: f64,
    /// The legend's line when the scale is shared.
    pub(super) note: Option<String>,
    /// Scores print as whole numbers, where cells are too narrow for a decimal at a
    /// legible size (see [`Scale::whole_numbers`]).
    pub(super) whole: bool,
}

impl Scale {
    /// The scale of `matrix` at `stage`, or `shared` when given.
    pub(in crate::kinds) fn of(
        matrix: &Matrix,
        stage: Stage,
        shared: Option<&SharedScale>,
    ) -> Scale {
        let note = shared::note(shared);
        if stage == Stage::Pattern {
            return Scale {
                ramp: Ramp::unit(),
                stage,
                limit: 1.0,
                note,
                whole: false,
            };
        }
        Scale {
            ramp: Ramp::signed(),
            stage,
            limit: shared::signed_limit(shared, own_limit(matrix, stage)),
            note,
            whole: false,
        }
    }

    /// This scale with scores printed as whole numbers ("−2" for −1.7): fewer digits, kept
    /// at full size in cells too narrow for "−1.7". Weights keep theirs (".42").
    pub(super) fn whole_numbers(&self) -> Scale {
        Scale {
            ramp: self.ramp.clone(),
            stage: self.stage,
            limit: self.limit,
            note: self.note.clone(),
            whole: self.stage != Stage::Pattern,
        }
    }

    /// The domain of the values `matrix` shows at `stage`.
    pub(in crate::kinds) fn domain(matrix: &Matrix, stage: Stage) -> Domain {
        match stage {
            Stage::Pattern => Domain::Unit,
            _ => Domain::Signed {
                limit: own_limit(matrix, stage),
            },
        }
    }

    fn bin(&self, value: f64) -> usize {
        match self.stage {
            Stage::Pattern => self.ramp.bin_of_unit(value),
            _ if self.limit > 0.0 => self.ramp.bin_of_signed(value / self.limit),
            _ => self.ramp.bin_of_signed(0.0),
        }
    }

    pub(in crate::kinds) fn label(&self, value: f64) -> String {
        match self.stage {
            Stage::Pattern => weight(value),
            _ => signed(value, if self.whole { 0 } else { 1 }),
        }
    }

    /// The legend's ticks, left to right: the position along the ramp and the text.
    fn ticks(&self) -> Vec<(f64, String)> {
        if self.stage == Stage::Pattern {
            return vec![
                (0.0, "0".to_string()),
                (0.5, "0.5".to_string()),
                (1.0, "1".to_string()),
            ];
        }
        // Bin centres sit at −limit and +limit; the row's ends are half a bin beyond.
        let edge = 0.5 / self.ramp.bins() as f64;
        vec![
            (edge, signed(-self.limit, 1)),
            (0.5, "0".to_string()),
            (1.0 - edge, signed(self.limit, 1)),
        ]
    }

    /// The legend at (`left`, `top`), and its right edge.
    pub(super) fn legend(&self, left: f64, top: f64) -> (Element, f64) {
        let (title, masked) = match self.stage {
            Stage::Pattern => ("attention weight", None),
            Stage::Scores => ("score q·k/√dₕ", None),
            Stage::Masked => ("score q·k/√dₕ", Some("masked: −∞")),
        };
        let ticks = self.ticks();
        let width = heatmap::legend_width(&self.ramp, title, masked);
        let element = heatmap::legend(&self.ramp, title, &ticks, masked, left, top);
        (element, left + width)
    }
}

/// The largest |score| on show: every cell for scores, the causal ones when masked.
fn own_limit(matrix: &Matrix, stage: Stage) -> f64 {
    matrix
        .shown()
        .flat_map(|q| matrix.shown_cols().map(move |k| (q, k)))
        .filter(|&(q, k)| stage == Stage::Scores || !matrix.future(q, k))
        .map(|(q, k)| matrix.at(q, k).abs())
        .fold(0.0, f64::max)
}

/// The cells on show, row by row, each with its number when `values` asks for it.
pub(in crate::kinds) fn cells(matrix: &Matrix, scale: &Scale, values: bool) -> Vec<Cell> {
    let mut cells = Vec::new();
    for q in matrix.shown() {
        for k in matrix.shown_cols() {
            let future = matrix.future(q, k);
            cells.push(match scale.stage {
                Stage::Pattern if future => Cell::Blank,
                Stage::Masked if future => Cell::Masked {
                    label: values.then(|| "−∞".to_string()),
                },
                _ => {
                    let value = matrix.at(q, k);
                    Cell::Value {
                        bin: scale.bin(value),
                        label: values.then(|| scale.label(value)),
                    }
                }
            });
        }
    }
    cells
}

/// What a reader can check among the numbers a panel prints: the legend's ticks in order;
/// with `values`, every weight a probability and every row that shows all its keys summing
/// to 1 (as the alt text says), or every score inside the legend's range; and the last row's
/// top key (named in the alt text) at least as high as the others.
pub(in crate::kinds) fn relations(matrix: &Matrix, scale: &Scale, values: bool) -> Vec<Relation> {
    let ticks: Vec<String> = scale.ticks().into_iter().map(|(_, t)| t).collect();
    let mut out = vec![Relation::Order {
        values: ticks.clone(),
        descending: false,
    }];
    if !values {
        return out;
    }
    // A row shows all its keys when no column was cut off the front.
    let whole_rows = matrix.shown_cols().start == 0;
    for q in matrix.shown() {
        let open: Vec<usize> = matrix
            .shown_cols()
            .filter(|&k| !matrix.future(q, k))
            .collect();
        let labels: Vec<String> = open.iter().map(|&k| scale.label(matrix.at(q, k))).collect();
        if scale.stage == Stage::Pattern {
            out.extend(labels.iter().map(|label| Relation::Bound {
                value: label.clone(),
                low: 0.0,
                high: 1.0,
                why: "an attention weight",
            }));
            if whole_rows && !labels.is_empty() {
                out.push(Relation::Sum {
                    terms: labels,
                    total: "1".to_string(),
                });
            }
        } else {
            // Before the mask every cell is printed; after it, the open ones.
            let printed: Vec<String> = match scale.stage {
                Stage::Scores => matrix
                    .shown_cols()
                    .map(|k| scale.label(matrix.at(q, k)))
                    .collect(),
                _ => labels,
            };
            out.extend(printed.into_iter().map(|label| Relation::Order {
                values: vec![ticks[2].clone(), label, ticks[0].clone()],
                descending: true,
            }));
        }
        if q + 1 == matrix.n {
            out.extend(top_key(matrix, scale, q, &open));
        }
    }
    out
}

/// The last row's top key, which the alt text names, is at least as high as its other keys.
fn top_key(matrix: &Matrix, scale: &Scale, q: usize, open: &[usize]) -> Vec<Relation> {
    let Some(top) = matrix.top_key(q) else {
        return Vec::new();
    };
    let label = |k: usize| scale.label(matrix.at(q, k));
    open.iter()
        .filter(|&&k| k != top)
        .map(|&k| Relation::Order {
            values: vec![label(top), label(k)],
            descending: true,
        })
        .collect()
}
