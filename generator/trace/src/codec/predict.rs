//! Predicted tensors of format version 2, still read: a tensor that follows from tensors stored
//! before it was stored as its difference from that prediction. Version 3 writes such tensors
//! as derived instead (`derive`), which stores nothing and keeps the relation exact.
//!
//! The prediction is computed from the *decoded* bases, so the stored difference also corrects
//! their rounding, and the tensor keeps its own encoding's error bound (see `int8_rows`).

use serde::{Deserialize, Serialize};

/// How a prediction is computed from its bases, with f32 arithmetic in a fixed order so that
/// every reader computes the same bits.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredictOp {
    /// The element-wise sum of the bases, added left to right (one base: a copy).
    #[serde(rename = "sum")]
    Sum,
    /// GPT-2's `gelu_new` of the one base, with `tanh` replaced by a rational function
    /// (see [`gelu_new`]); any close prediction serves, an exact one from only +, ×, ÷ is
    /// the same on every machine.
    #[serde(rename = "gelu_new")]
    GeluNew,
    /// `A·B` over the last two dimensions of two bases `[..., m, k]` and `[..., k, n]` (the
    /// leading dimensions alike), each sum accumulated from 0 in order of k: `attn.z` from
    /// `attn.pattern` and `attn.v`.
    #[serde(rename = "matmul")]
    Matmul,
    /// `A·Bᵀ / √k` for bases `[..., m, k]` and `[..., n, k]`, each dot product accumulated as
    /// in `matmul`, then divided by the f32 square root of k: `attn.scores` from `q` and `k`.
    #[serde(rename = "scaled_dot")]
    ScaledDot,
}

impl PredictOp {
    /// The name in trace files.
    pub fn as_str(self) -> &'static str {
        match self {
            PredictOp::Sum => "sum",
            PredictOp::GeluNew => "gelu_new",
            PredictOp::Matmul => "matmul",
            PredictOp::ScaledDot => "scaled_dot",
        }
    }
}

/// A decoded base tensor: its shape and values.
#[derive(Clone, Copy, Debug)]
pub struct Base<'a> {
    pub shape: &'a [usize],
    pub data: &'a [f32],
}

/// A tensor entry's `predict`: its values are this plus the values its data decodes to.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    pub op: PredictOp,
    /// The names of the base tensors, each of the predicted tensor's shape.
    pub from: Vec<String>,
}

/// How many levels of bases a prediction may go through: a base may itself be predicted, but
/// not a base of a base. Readers refuse deeper chains, so that decoding a tensor decodes at
/// most `MAX_BASES + MAX_BASES²` others, whatever the file says.
pub const MAX_DEPTH: usize = 2;

/// The most bases one prediction may name.
pub const MAX_BASES: usize = 3;

impl Prediction {
    #[cfg(test)]
    fn new(op: PredictOp, from: &[String]) -> Prediction {
        Prediction {
            op,
            from: from.to_vec(),
        }
    }

    /// Whether the op takes as many bases as `from` names (checked before they are decoded).
    pub fn check_arity(&self) -> Result<(), String> {
        let fits = match self.op {
            PredictOp::Sum => (1..=MAX_BASES).contains(&self.from.len()),
            PredictOp::GeluNew => self.from.len() == 1,
            PredictOp::Matmul | PredictOp::ScaledDot => self.from.len() == 2,
        };
        if fits {
            Ok(())
        } else {
            Err(format!(
                "its prediction \"{}\" cannot take {} bases",
                self.op.as_str(),
                self.from.len()
            ))
        }
    }

    /// The prediction of a tensor of `shape` from the decoded `bases` (in the order of
    /// `from`); an error says why the bases do not fit the op.
    pub fn apply(&self, bases: &[Base<'_>], shape: &[usize]) -> Result<Vec<f32>, String> {
        let elementwise = || {
            if bases.iter().any(|b| b.shape != shape) {
                return Err("a base of its prediction has another shape".to_string());
            }
            Ok(bases.iter().map(|b| b.data))
        };
        if bases.len() != self.from.len() {
            return Err("its prediction got another number of bases than it names".to_string());
        }
        self.check_arity()?;
        match self.op {
            PredictOp::Sum => {
                let mut data = elementwise()?;
                let mut out = data.next().unwrap_or_default().to_vec();
                for base in data {
                    out.iter_mut().zip(base).for_each(|(o, b)| *o += b);
                }
                Ok(out)
            }
            PredictOp::GeluNew => Ok(elementwise()?.flatten().map(|&a| gelu_new(a)).collect()),
            PredictOp::Matmul => products(bases[0], bases[1], shape, false),
            PredictOp::ScaledDot => {
                let root = (bases[0].shape.last().copied().unwrap_or(0) as f32).sqrt();
                let mut out = products(bases[0], bases[1], shape, true)?;
                out.iter_mut().for_each(|o| *o /= root);
                Ok(out)
            }
        }
    }
}

/// Batched `A·B` (or `A·Bᵀ` when `transposed`) over the last two dimensions, each value summed
/// in f32 from 0 in order of k, checked against the result's `shape`.
pub(crate) fn products(
    a: Base<'_>,
    b: Base<'_>,
    shape: &[usize],
    transposed: bool,
) -> Result<Vec<f32>, String> {
    let mismatch = || Err("the shapes of its bases do not multiply to its own".to_string());
    let (Some(([m, k], batch)), Some(([r0, r1], b_batch))) =
        (split_matrix(a.shape), split_matrix(b.shape))
    else {
        return mismatch();
    };
    let (n, k2) = if transposed { (r0, r1) } else { (r1, r0) };
    let (Some(([sm, sn], s_batch)), true) = (split_matrix(shape), k == k2) else {
        return mismatch();
    };
    if batch != b_batch || batch != s_batch || (m, n) != (sm, sn) {
        return mismatch();
    }
    let count: usize = batch.iter().product();
    let mut out = vec![0.0f32; count * m * n];
    let mut b_t = Vec::new();
    for (i, out) in out.chunks_exact_mut((m * n).max(1)).take(count).enumerate() {
        let a = &a.data[i * m * k..(i + 1) * m * k];
        let mut b = &b.data[i * k * n..(i + 1) * k * n];
        if transposed {
            b_t = transpose(b, n, k, b_t);
            b = &b_t;
        }
        // Row by row of B (k × n), so that each sum runs in order of k, as in a dot product.
        for (r, out_row) in out.chunks_exact_mut(n.max(1)).take(m).enumerate() {
            for (&x, b_row) in a[r * k..(r + 1) * k].iter().zip(b.chunks_exact(n.max(1))) {
                out_row.iter_mut().zip(b_row).for_each(|(o, y)| *o += x * y);
            }
        }
    }
    Ok(out)
}

/// `matrix` (rows × cols, row-major) transposed into `out` (cols × rows), reusing its memory.
fn transpose(matrix: &[f32], rows: usize, cols: usize, mut out: Vec<f32>) -> Vec<f32> {
    out.clear();
    out.extend((0..cols).flat_map(|c| (0..rows).map(move |r| matrix[r * cols + c])));
    out
}

/// A shape's last two dimensions and the ones before them; None below two dimensions.
fn split_matrix(shape: &[usize]) -> Option<([usize; 2], &[usize])> {
    let (batch, last) = shape.split_at(shape.len().checked_sub(2)?);
    Some(([last[0], last[1]], batch))
}

/// `0.5·a·(1 + tanh(√(2/π)·(a + 0.044715·a³)))` in f32, each operation in this order, with
/// tanh(u) as Lambert's continued fraction `u(135135 + 17325u² + 378u⁴ + u⁶) / (135135 +
/// 62370u² + 3150u⁴ + 28u⁶)` clamped to [−1, 1] (±1 for |u| ≥ 9): within 1.1·10⁻⁴ of tanh.
pub fn gelu_new(a: f32) -> f32 {
    let cube = a * a * a;
    let u = 0.797_884_6_f32 * (a + 0.044_715_f32 * cube);
    let th = if u.abs() >= 9.0 {
        1.0f32.copysign(u)
    } else {
        let u2 = u * u;
        let num = u * (135_135.0 + u2 * (17_325.0 + u2 * (378.0 + u2)));
        let den = 135_135.0 + u2 * (62_370.0 + u2 * (3_150.0 + u2 * 28.0));
        (num / den).clamp(-1.0, 1.0)
    };
    0.5 * a * (1.0 + th)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gelu_new_is_within_a_ten_thousandth_of_the_exact_one() {
        for i in -4000..=4000 {
            let a = i as f32 / 400.0;
            let u = 0.797_884_560_802_865_4 * (f64::from(a) + 0.044_715 * f64::from(a).powi(3));
            let exact = 0.5 * f64::from(a) * (1.0 + u.tanh());
            let err = (f64::from(gelu_new(a)) - exact).abs();
            assert!(err <= 1.1e-4 * f64::from(a.abs()).max(1.0), "{a}: {err}");
        }
        assert_eq!(gelu_new(0.0), 0.0);
        assert_eq!(gelu_new(1e6), 1e6);
        assert_eq!(gelu_new(-1e6), 0.0);
    }

    fn base<'a>(shape: &'a [usize], data: &'a [f32]) -> Base<'a> {
        Base { shape, data }
    }

    #[test]
    fn sums_add_left_to_right_and_bad_bases_are_reported() {
        let p = Prediction::new(PredictOp::Sum, &["a".into(), "b".into()]);
        let (a, b) = ([1.0, 2.0], [0.5, -2.0]);
        assert_eq!(
            p.apply(&[base(&[2], &a), base(&[2], &b)], &[2]),
            Ok(vec![1.5, 0.0])
        );
        assert!(p
            .apply(&[base(&[1], &[1.0]), base(&[2], &b)], &[2])
            .is_err());
        let g = Prediction::new(PredictOp::GeluNew, &["a".into(), "b".into()]);
        let one = base(&[1], &[1.0]);
        assert!(g.apply(&[one, one], &[1]).is_err());
    }

    #[test]
    fn products_multiply_per_head() {
        // Two heads of a 2×2 pattern times 2×3 values.
        let pattern = [1.0, 0.0, 0.5, 0.5, 0.0, 1.0, 0.25, 0.75];
        let v: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let z = Prediction::new(PredictOp::Matmul, &["p".into(), "v".into()]);
        let out = z
            .apply(
                &[base(&[2, 2, 2], &pattern), base(&[2, 2, 3], &v)],
                &[2, 2, 3],
            )
            .unwrap();
        assert_eq!(
            out,
            [0.0, 1.0, 2.0, 1.5, 2.5, 3.5, 9.0, 10.0, 11.0, 8.25, 9.25, 10.25]
        );
        // q·kᵀ/√4 for one head of two positions.
        let q = [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0];
        let k = [1.0, 1.0, 1.0, 1.0, 2.0, 0.0, 0.0, 0.0];
        let scores = Prediction::new(PredictOp::ScaledDot, &["q".into(), "k".into()]);
        let out = scores
            .apply(&[base(&[1, 2, 4], &q), base(&[1, 2, 4], &k)], &[1, 2, 2])
            .unwrap();
        assert_eq!(out, [1.5, 1.0, 2.0, 0.0]);
        assert!(scores
            .apply(&[base(&[1, 2, 4], &q), base(&[1, 4, 2], &k)], &[1, 2, 2])
            .is_err());
    }
}
