//! How `figure attention` colours and labels each stage's values: weights from 0 to 1, or
//! scores symmetric around 0 with future positions blank or −∞; the legend and the cells.

use super::matrix::Matrix;
use super::Stage;
use crate::format::{signed, weight};
use crate::heatmap::{self, Cell};
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
            };
        }
        Scale {
            ramp: Ramp::signed(),
            stage,
            limit: shared::signed_limit(shared, own_limit(matrix, stage)),
            note,
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
            _ => signed(value, 1),
        }
    }

    /// The legend at (`left`, `top`), and its right edge.
    pub(super) fn legend(&self, left: f64, top: f64) -> (Element, f64) {
        let (title, masked) = match self.stage {
            Stage::Pattern => ("attention weight", None),
            Stage::Scores => ("score q·k/√dₕ", None),
            Stage::Masked => ("score q·k/√dₕ", Some("masked: −∞")),
        };
        let ticks = if self.stage == Stage::Pattern {
            vec![
                (0.0, "0".to_string()),
                (0.5, "0.5".to_string()),
                (1.0, "1".to_string()),
            ]
        } else {
            // Bin centres sit at −limit and +limit; the row's ends are half a bin beyond.
            let edge = 0.5 / self.ramp.bins() as f64;
            vec![
                (edge, signed(-self.limit, 1)),
                (0.5, "0".to_string()),
                (1.0 - edge, signed(self.limit, 1)),
            ]
        };
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
