//! How precisely a trace stores its tensors: `compact` (default), `f16` or `f32` (exact).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The precision a trace is written with; `docs/trace-format.md` gives each one's error bound.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Per tensor kind: 8-bit attention patterns, f16 logits, int8-per-row activations.
    #[default]
    Compact,
    /// IEEE half precision for every float tensor.
    F16,
    /// Exact: every value as written by the model.
    F32,
}

impl Precision {
    /// Every precision, in the order the docs list them.
    pub const ALL: [Precision; 3] = [Precision::Compact, Precision::F16, Precision::F32];

    /// The name used in tracebook.toml, on the command line and in trace files.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Compact => "compact",
            Precision::F16 => "f16",
            Precision::F32 => "f32",
        }
    }
}

impl Precision {
    /// What a logit `x` decodes to from a trace of this precision, in a row of logits whose
    /// largest is `row_max` (`logits.last`, a row of `logits.topk_values` or of
    /// `logit_lens.topk_logits`: one logit rounds alike in each). The tracer computes
    /// `loss.per_token` from this value, so a loss and the probability of the same token agree
    /// exactly. (Where a tensor falls back to f32, only for spreads beyond f16's range, its
    /// logits are exact instead.)
    pub fn stored_logit(self, x: f32, row_max: f32) -> f32 {
        match self {
            Precision::F32 => x,
            Precision::F16 => half::f16::from_f32(x).to_f32(),
            Precision::Compact => row_max + half::f16::from_f32(x - row_max).to_f32(),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A precision name that is not `compact`, `f16` or `f32`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown precision {given:?}: expected compact, f16 or f32")]
pub struct ParsePrecisionError {
    pub given: String,
}

impl FromStr for Precision {
    type Err = ParsePrecisionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Precision::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| ParsePrecisionError {
                given: s.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_display_and_from_str() {
        for p in Precision::ALL {
            assert_eq!(p.to_string().parse::<Precision>(), Ok(p));
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                format!("\"{}\"", p.as_str())
            );
        }
        assert_eq!(Precision::default(), Precision::Compact);
    }

    #[test]
    fn unknown_names_are_rejected_with_the_choices() {
        let err = "F32".parse::<Precision>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown precision \"F32\": expected compact, f16 or f32"
        );
    }
}
