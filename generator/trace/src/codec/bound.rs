//! Error bounds against the true run: for each decoded value, how far the value the model
//! computed (in f32) can be from it. A stored tensor's bound is its encoding's; a derived
//! tensor's follows from its bases' bounds by its op (`docs/trace-format.md`, § Error
//! bounds, states each rule); a stored tensor that a sum re-encoded carries the bound of the
//! sum's other bases as well as its own.
//!
//! Every bound is computed from decoded values only, so any reader can compute it. Each
//! rule adds `SLACK` of the magnitudes involved for the difference between the model's f32
//! arithmetic (its own order of summation, its own `exp`) and the derivation's.

use super::derive::{row_stats, Derivation, DeriveOp};
use super::{Encoding, Layout};
use crate::precision::Precision;

/// Relative allowance for f32 arithmetic done in another order: 2⁻¹⁸ ≈ 3.8·10⁻⁶.
pub const SLACK: f64 = 1.0 / 262_144.0;

/// A tensor's decoded values with their shape, and a bound per value.
pub struct Bounded<'a> {
    pub shape: &'a [usize],
    pub values: &'a [f32],
    pub bound: &'a [f64],
}

/// The bound of each value of a tensor stored as `encoding` that decoded to `values`.
pub fn stored(encoding: Encoding, shape: &[usize], values: &[f32]) -> Vec<f64> {
    let layout = Layout::of(shape);
    let rows = values.chunks(layout.cols.max(1));
    match encoding {
        Encoding::F32 => vec![0.0; values.len()],
        Encoding::F16 => values
            .iter()
            .map(|&x| f64::from(x).abs() * (1.0 / 2048.0) * (1.0 + 1.0 / 1024.0) + 2f64.powi(-25))
            .collect(),
        Encoding::F16Rows => rows
            .flat_map(|row| {
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                row.iter().map(move |&x| {
                    let (x, max) = (f64::from(x), f64::from(max));
                    (x - max).abs() / 2048.0 * (1.0 + 1.0 / 1024.0)
                        + 2f64.powi(-25)
                        + 2f64.powi(-22) * x.abs().max(max.abs())
                })
            })
            .collect(),
        Encoding::Unorm8 => vec![1.0 / 510.0 + 2f64.powi(-24); values.len()],
        Encoding::Int8Rows => rows
            .flat_map(|row| {
                let max = f64::from(row.iter().fold(0.0f32, |m, x| m.max(x.abs())));
                std::iter::repeat_n(max / 254.0 + max * 2f64.powi(-22), row.len())
            })
            .collect(),
    }
}

/// The bound of each `loss.per_token` value, stored exactly but computed by the tracer from
/// the next token's logit as the trace stores logits (`Precision::stored_logit`): that
/// logit's bound, in a row whose largest logit is `row_max` (`logits.topk_values[i, 0]`).
pub fn loss(precision: Precision, loss: &[f32], lse: &[f32], row_max: &[f32]) -> Vec<f64> {
    let logit_encoding = match precision {
        Precision::Compact => Encoding::F16Rows,
        Precision::F16 => Encoding::F16,
        Precision::F32 => Encoding::F32,
    };
    loss.iter()
        .zip(lse)
        .zip(row_max)
        .map(|((&loss, &lse), &max)| {
            let logit = lse - loss;
            let row = [max, logit];
            let b = stored(logit_encoding, &[2], &row)[1];
            b + 2f64.powi(-23) * f64::from(lse.abs().max(logit.abs()))
        })
        .collect()
}

/// `own` (a stored tensor's encoding bound) plus the bound of what a sum made it absorb: the
/// bounds of the sum's other bases, element by element.
pub fn absorbed(own: &[f64], others: &[&[f64]]) -> Vec<f64> {
    own.iter()
        .enumerate()
        .map(|(i, &b)| b + others.iter().map(|o| o[i]).sum::<f64>())
        .collect()
}

/// The bound of each value of a derived tensor (`values`, of `shape`) from its bases.
/// `absorbing`: the sum's last base was re-encoded to absorb the rounding of the others, so
/// the sum is within that base's own encoding bound (`last_own`) of the model's value.
pub fn derived(
    derive: &Derivation,
    shape: &[usize],
    values: &[f32],
    bases: &[Bounded<'_>],
    absorbing: Option<&[f64]>,
) -> Vec<f64> {
    let slack = |x: f32| f64::from(x).abs() * SLACK;
    match derive.op {
        DeriveOp::Sum => match absorbing {
            Some(last_own) => (0..values.len())
                .map(|i| last_own[i] + slack(values[i]) + slack(bases[bases.len() - 1].values[i]))
                .collect(),
            None => (0..values.len())
                .map(|i| bases.iter().map(|b| b.bound[i]).sum::<f64>() + slack(values[i]))
                .collect(),
        },
        DeriveOp::Mean | DeriveOp::Std => {
            let x = &bases[0];
            let d = x.shape.last().copied().unwrap_or(1).max(1);
            x.values
                .chunks(d)
                .zip(x.bound.chunks(d))
                .map(|(row, b)| {
                    // The model sums its f32 row in an order of its own.
                    let worst = b.iter().copied().fold(0.0, f64::max);
                    worst + d as f64 * 2f64.powi(-24) * max_abs(row)
                })
                .collect()
        }
        DeriveOp::LayerNorm => layer_norm(derive, shape, &bases[0], &bases[1], &bases[2]),
        DeriveOp::Dot => dot(derive, shape, &bases[0], &bases[1]),
        DeriveOp::CausalSoftmax => softmax(shape, values, &bases[0]),
        DeriveOp::Matmul => weighted(shape, &bases[0], &bases[1]),
        // |GELU'| ≤ 1.129 and |SiLU'| ≤ 1.0999 everywhere.
        DeriveOp::GeluTanh => (0..values.len())
            .map(|i| 1.13 * bases[0].bound[i] + slack(values[i]) + 1e-7)
            .collect(),
        DeriveOp::Silu => (0..values.len())
            .map(|i| 1.1 * bases[0].bound[i] + slack(values[i]) + 1e-7)
            .collect(),
        DeriveOp::Mul => (0..values.len())
            .map(|i| {
                let (a, b) = (&bases[0], &bases[1]);
                let (ea, eb) = (a.bound[i], b.bound[i]);
                f64::from(a.values[i]).abs() * eb
                    + f64::from(b.values[i]).abs() * ea
                    + ea * eb
                    + slack(values[i])
                    + 1e-7
            })
            .collect(),
        DeriveOp::ExpDiff => {
            let k = shape.last().copied().unwrap_or(1).max(1);
            (0..values.len())
                .map(|i| {
                    let e = bases[0].bound[i] + bases[1].bound[i / k];
                    f64::from(values[i]) * e.exp_m1() * (1.0 + e.exp_m1()) + 2f64.powi(-22)
                })
                .collect()
        }
    }
}

fn max_abs(row: &[f32]) -> f64 {
    f64::from(row.iter().fold(0.0f32, |m, x| m.max(x.abs())))
}

/// `(x − m)/s·w + b`: the input's error and the statistics' (which follow from it), then the
/// weight's and bias's own.
fn layer_norm(
    derive: &Derivation,
    shape: &[usize],
    x: &Bounded,
    w: &Bounded,
    b: &Bounded,
) -> Vec<f64> {
    let d = shape.last().copied().unwrap_or(1).max(1);
    let eps = derive.eps.unwrap_or(0.0);
    let mut out = Vec::with_capacity(x.values.len());
    for (row, bound) in x.values.chunks(d).zip(x.bound.chunks(d)) {
        let (mean, std) = row_stats(row, eps);
        let e_x = bound.iter().copied().fold(0.0, f64::max);
        // The mean moves by at most e_x, the standard deviation too (it is 1-Lipschitz).
        let low = (std - e_x).max(eps.sqrt()).max(f64::MIN_POSITIVE);
        for (c, &v) in row.iter().enumerate() {
            let centred = (f64::from(v) - mean).abs();
            let (wc, ew, eb) = (f64::from(w.values[c]).abs(), w.bound[c], b.bound[c]);
            let e = wc * (bound[c] + e_x) / low
                + wc * centred * e_x / (low * std)
                + ew * (centred + bound[c] + e_x) / low
                + eb;
            let value = (centred / std) * wc + f64::from(b.values[c]).abs();
            out.push(e + value * SLACK * 4.0);
        }
    }
    out
}

/// `scale·Σ_c q_c k_c`: each product's error from each factor's, and the model's own order of
/// summation.
fn dot(derive: &Derivation, shape: &[usize], q: &Bounded, k: &Bounded) -> Vec<f64> {
    let [.., m, n] = shape else {
        return Vec::new();
    };
    let (m, n) = (*m, *n);
    let dh = q.shape.last().copied().unwrap_or(1).max(1);
    let scale = f64::from(derive.scale.unwrap_or(1.0)).abs();
    let heads = q.values.len() / (m * dh).max(1);
    let mut out = Vec::with_capacity(heads * m * n);
    for h in 0..heads {
        for i in 0..m {
            let qi = (h * m + i) * dh;
            for j in 0..n {
                let kj = (h * n + j) * dh;
                let (mut e, mut size) = (0.0, 0.0);
                for c in 0..dh {
                    let (a, b) = (
                        f64::from(q.values[qi + c]).abs(),
                        f64::from(k.values[kj + c]).abs(),
                    );
                    let (ea, eb) = (q.bound[qi + c], k.bound[kj + c]);
                    e += a * eb + b * ea + ea * eb;
                    size += a * b;
                }
                out.push(scale * (e + size * dh as f64 * 2f64.powi(-24)));
            }
        }
    }
    out
}

/// Softmax: if every kept score of a row is within δ of the model's, each weight is within a
/// factor e^{±2δ} of the model's.
fn softmax(shape: &[usize], values: &[f32], scores: &Bounded) -> Vec<f64> {
    let [.., m, n] = shape else {
        return Vec::new();
    };
    let (m, n) = (*m, *n);
    let mut out = Vec::with_capacity(values.len());
    for (r, (row, bound)) in values
        .chunks(n.max(1))
        .zip(scores.bound.chunks(n.max(1)))
        .enumerate()
    {
        let kept = (r % m.max(1)) + n - m + 1;
        let delta = bound[..kept.min(n)].iter().copied().fold(0.0, f64::max);
        let factor = (2.0 * delta).exp_m1();
        for (j, &p) in row.iter().enumerate() {
            out.push(if j < kept {
                f64::from(p) * factor * (1.0 + factor) + 2f64.powi(-22)
            } else {
                0.0
            });
        }
    }
    out
}

/// `Σ_j p_j v_j`: each weight's error times its value, each value's error times its weight.
fn weighted(shape: &[usize], p: &Bounded, v: &Bounded) -> Vec<f64> {
    let [.., m, dh] = shape else {
        return Vec::new();
    };
    let (m, dh) = (*m, *dh);
    let n = p.shape.last().copied().unwrap_or(1).max(1);
    let heads = p.values.len() / (m * n).max(1);
    let mut out = Vec::with_capacity(heads * m * dh);
    for h in 0..heads {
        for i in 0..m {
            for c in 0..dh {
                let (mut e, mut size) = (0.0, 0.0);
                for j in 0..n {
                    let (pi, vi) = ((h * m + i) * n + j, (h * n + j) * dh + c);
                    let (pw, vv) = (f64::from(p.values[pi]), f64::from(v.values[vi]).abs());
                    e += p.bound[pi] * (vv + v.bound[vi]) + pw * v.bound[vi];
                    size += pw * vv;
                }
                out.push(e + size * n as f64 * 2f64.powi(-24));
            }
        }
    }
    out
}
