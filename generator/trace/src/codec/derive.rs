//! Derived tensors (format version 3): a tensor the model computed from other tensors of the
//! trace is stored as that computation only, with no data, and decodes to exactly that
//! computation of the *decoded* tensors it follows from. So the residual stream is exactly the
//! sum of what the blocks added, the pattern exactly the softmax of the scores, `mlp.post`
//! exactly GELU of `mlp.pre`, whatever precision the bases were stored with: every relation a
//! page prints between them holds.
//!
//! Each op is specified in `docs/trace-format.md` (§ Derived tensors) to the order of its
//! operations, so that every reader gets the same bits; the elementary functions come from
//! `exact_math`.

use super::exact_math::{exp, exp64, gelu_tanh, silu};
use super::predict::{products, Base};
use serde::{Deserialize, Serialize};

/// How a derived tensor is computed from its bases.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum DeriveOp {
    /// The element-wise f32 sum of 1 to 3 bases of the tensor's shape, left to right (one
    /// base: a copy).
    Sum,
    /// Per row (last dimension) of the one base: the mean, `Σx / d` in f64, rounded to f32.
    Mean,
    /// Per row of the one base: `√(Σ(x − mean)² / d + eps)` in f64 (mean as in `Mean`,
    /// unrounded), rounded to f32: what LayerNorm divides by.
    Std,
    /// LayerNorm of base 0 (`[..., d]`) with weight base 1 and bias base 2 (`[d]`): per value
    /// `((x − m)/s)·w + b` in f64, where `m` and `s` are this row's `Mean` and `Std` rounded
    /// to f32 (the very values those ops give), rounded to f32.
    LayerNorm,
    /// `A·Bᵀ · scale` for bases `[..., m, k]` and `[..., n, k]`: f32 dot products summed from 0
    /// in order of k, each then multiplied by `scale` (f32): attention scores from q and k.
    Dot,
    /// Softmax over the last dimension of the one base `[..., m, n]`, keeping in row i the
    /// entries j ≤ i + n − m (the causal mask) and 0 elsewhere: per row, `e_j = exp(x_j − max)`
    /// in f64 (`max` over the kept entries), summed in order of j, then `e_j / sum` rounded
    /// to f32.
    CausalSoftmax,
    /// `A·B` for bases `[..., m, k]` and `[..., k, n]`: f32 sums from 0 in order of k.
    Matmul,
    /// GPT-2's `gelu_new` of each value of the one base (`exact_math::gelu_tanh`).
    GeluTanh,
    /// SiLU (`x·σ(x)`) of each value of the one base (`exact_math::silu`): a gated MLP's
    /// `mlp.act` from `mlp.gate`.
    Silu,
    /// The element-wise f32 product of two bases of the tensor's shape: a gated MLP's
    /// `mlp.post` = `mlp.act` × `mlp.up`.
    Mul,
    /// `exp(a − b)` for base 0 `[..., k]` and base 1 `[...]` (one value per row of base 0):
    /// the subtraction in f32, then `exact_math::exp`. Probabilities from logits and their
    /// row's log-sum-exp, as `exact_math::prob` computes them.
    ExpDiff,
}

impl DeriveOp {
    pub fn as_str(self) -> &'static str {
        match self {
            DeriveOp::Sum => "sum",
            DeriveOp::Mean => "mean",
            DeriveOp::Std => "std",
            DeriveOp::LayerNorm => "layer_norm",
            DeriveOp::Dot => "dot",
            DeriveOp::CausalSoftmax => "causal_softmax",
            DeriveOp::Matmul => "matmul",
            DeriveOp::GeluTanh => "gelu_tanh",
            DeriveOp::Silu => "silu",
            DeriveOp::Mul => "mul",
            DeriveOp::ExpDiff => "exp_diff",
        }
    }

    /// How many bases the op takes.
    fn arity(self) -> std::ops::RangeInclusive<usize> {
        match self {
            DeriveOp::Sum => 1..=3,
            DeriveOp::Mean
            | DeriveOp::Std
            | DeriveOp::CausalSoftmax
            | DeriveOp::GeluTanh
            | DeriveOp::Silu => 1..=1,
            DeriveOp::Dot | DeriveOp::Matmul | DeriveOp::ExpDiff | DeriveOp::Mul => 2..=2,
            DeriveOp::LayerNorm => 3..=3,
        }
    }
}

/// A tensor entry's `derive`: its values are this computation of the decoded bases.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Derivation {
    pub op: DeriveOp,
    /// `std` and `layer_norm`: the epsilon added to the variance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eps: Option<f64>,
    /// `dot`: what each dot product is multiplied by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f32>,
    /// The base tensors' names, in the order the op takes them.
    pub from: Vec<String>,
}

impl Derivation {
    pub fn new(op: DeriveOp, from: &[&str]) -> Derivation {
        Derivation {
            op,
            eps: None,
            scale: None,
            from: from.iter().map(|s| s.to_string()).collect(),
        }
    }

    pub fn with_eps(mut self, eps: f64) -> Derivation {
        self.eps = Some(eps);
        self
    }

    pub fn with_scale(mut self, scale: f32) -> Derivation {
        self.scale = Some(scale);
        self
    }

    /// Whether the op takes as many bases as `from` names, with the parameters it needs (and
    /// no other), checked before the bases are decoded.
    pub fn check(&self) -> Result<(), String> {
        let op = self.op.as_str();
        if !self.op.arity().contains(&self.from.len()) {
            return Err(format!(
                "its derivation \"{op}\" cannot take {} bases",
                self.from.len()
            ));
        }
        let needs_eps = matches!(self.op, DeriveOp::Std | DeriveOp::LayerNorm);
        let needs_scale = self.op == DeriveOp::Dot;
        match (needs_eps, self.eps) {
            (true, None) => return Err(format!("its derivation \"{op}\" needs \"eps\"")),
            (false, Some(_)) => return Err(format!("its derivation \"{op}\" takes no \"eps\"")),
            (true, Some(e)) if !(e.is_finite() && e >= 0.0) => {
                return Err(format!("its derivation's \"eps\" {e} is not a number ≥ 0"))
            }
            _ => {}
        }
        match (needs_scale, self.scale) {
            (true, None) => Err(format!("its derivation \"{op}\" needs \"scale\"")),
            (false, Some(_)) => Err(format!("its derivation \"{op}\" takes no \"scale\"")),
            _ => Ok(()),
        }
    }

    /// The values of a tensor of `shape` from its decoded `bases` (in the order of `from`); an
    /// error says why the bases do not fit the op.
    pub fn apply(&self, bases: &[Base<'_>], shape: &[usize]) -> Result<Vec<f32>, String> {
        self.check()?;
        if bases.len() != self.from.len() {
            return Err("its derivation got another number of bases than it names".to_string());
        }
        let same_shape = |b: &Base| {
            if b.shape == shape {
                Ok(())
            } else {
                Err(format!(
                    "a base of its derivation has shape {:?}, not {shape:?}",
                    b.shape
                ))
            }
        };
        let eps = self.eps.unwrap_or(0.0);
        match self.op {
            DeriveOp::Sum => {
                bases.iter().try_for_each(same_shape)?;
                let mut out = bases[0].data.to_vec();
                for base in &bases[1..] {
                    out.iter_mut().zip(base.data).for_each(|(o, b)| *o += b);
                }
                Ok(out)
            }
            DeriveOp::GeluTanh => {
                same_shape(&bases[0])?;
                Ok(bases[0].data.iter().map(|&a| gelu_tanh(a)).collect())
            }
            DeriveOp::Silu => {
                same_shape(&bases[0])?;
                Ok(bases[0].data.iter().map(|&a| silu(a)).collect())
            }
            DeriveOp::Mul => {
                same_shape(&bases[0])?;
                same_shape(&bases[1])?;
                Ok(bases[0]
                    .data
                    .iter()
                    .zip(bases[1].data)
                    .map(|(a, b)| a * b)
                    .collect())
            }
            DeriveOp::Mean | DeriveOp::Std => {
                let d = row_of(bases[0], shape)?;
                Ok(bases[0]
                    .data
                    .chunks(d.max(1))
                    .take(bases[0].data.len() / d.max(1))
                    .map(|row| {
                        let (mean, std) = row_stats(row, eps);
                        if self.op == DeriveOp::Mean {
                            mean as f32
                        } else {
                            std as f32
                        }
                    })
                    .collect())
            }
            DeriveOp::LayerNorm => layer_norm(bases, shape, eps),
            DeriveOp::Dot => {
                let scale = self.scale.unwrap_or(1.0);
                let mut out = products(bases[0], bases[1], shape, true)?;
                out.iter_mut().for_each(|o| *o *= scale);
                Ok(out)
            }
            DeriveOp::Matmul => products(bases[0], bases[1], shape, false),
            DeriveOp::CausalSoftmax => {
                same_shape(&bases[0])?;
                causal_softmax(bases[0].data, shape)
            }
            DeriveOp::ExpDiff => {
                same_shape(&bases[0])?;
                let (k, rows) = match shape.split_last() {
                    Some((&k, rows)) if bases[1].shape == rows => (k, rows),
                    _ => {
                        return Err(format!(
                            "its bases of shapes {:?} and {:?} are not logits and one \
                             log-sum-exp per row",
                            bases[0].shape, bases[1].shape
                        ))
                    }
                };
                debug_assert_eq!(rows.iter().product::<usize>(), bases[1].data.len());
                Ok(bases[0]
                    .data
                    .chunks(k.max(1))
                    .zip(bases[1].data)
                    .flat_map(|(row, &lse)| row.iter().map(move |&x| exp(x - lse)))
                    .collect())
            }
        }
    }
}

/// The length of a row of `base` when the derived tensor's `shape` is `base`'s without its last
/// dimension (a per-row statistic).
fn row_of(base: Base<'_>, shape: &[usize]) -> Result<usize, String> {
    match base.shape.split_last() {
        Some((&d, leading)) if leading == shape => Ok(d),
        _ => Err(format!(
            "its base of shape {:?} does not reduce to its shape {shape:?} over the last dimension",
            base.shape
        )),
    }
}

/// A row's mean and `√(variance + eps)`, in f64.
pub(crate) fn row_stats(row: &[f32], eps: f64) -> (f64, f64) {
    let d = row.len().max(1) as f64;
    let mean = row.iter().map(|&x| f64::from(x)).sum::<f64>() / d;
    let var = row
        .iter()
        .map(|&x| {
            let c = f64::from(x) - mean;
            c * c
        })
        .sum::<f64>()
        / d;
    (mean, (var + eps).sqrt())
}

fn layer_norm(bases: &[Base<'_>], shape: &[usize], eps: f64) -> Result<Vec<f32>, String> {
    let (x, w, b) = (bases[0], bases[1], bases[2]);
    let d = *shape.last().unwrap_or(&0);
    if x.shape != shape || w.shape != [d] || b.shape != [d] {
        return Err(format!(
            "its layer_norm bases have shapes {:?}, {:?}, {:?}; they must be {shape:?}, [{d}], [{d}]",
            x.shape, w.shape, b.shape
        ));
    }
    let mut out = Vec::with_capacity(x.data.len());
    for row in x.data.chunks(d.max(1)).take(x.data.len() / d.max(1)) {
        let (mean, std) = row_stats(row, eps);
        let (m, s) = (f64::from(mean as f32), f64::from(std as f32));
        out.extend(
            row.iter()
                .zip(w.data.iter().zip(b.data))
                .map(|(&v, (&w, &b))| {
                    (((f64::from(v) - m) / s) * f64::from(w) + f64::from(b)) as f32
                }),
        );
    }
    Ok(out)
}

fn causal_softmax(scores: &[f32], shape: &[usize]) -> Result<Vec<f32>, String> {
    let [.., m, n] = shape else {
        return Err(format!(
            "causal_softmax needs at least two dimensions, not {shape:?}"
        ));
    };
    let (m, n) = (*m, *n);
    if m > n {
        return Err(format!(
            "causal_softmax needs no more queries than keys, not {m} × {n}"
        ));
    }
    let mut out = vec![0.0f32; scores.len()];
    for (r, (row, out_row)) in scores
        .chunks(n.max(1))
        .zip(out.chunks_mut(n.max(1)))
        .enumerate()
    {
        let kept = (r % m.max(1)) + n - m + 1;
        let row = &row[..kept.min(row.len())];
        let max = row
            .iter()
            .fold(f64::NEG_INFINITY, |a, &x| a.max(f64::from(x)));
        let e: Vec<f64> = row.iter().map(|&x| exp64(f64::from(x) - max)).collect();
        let sum: f64 = e.iter().sum();
        out_row
            .iter_mut()
            .zip(&e)
            .for_each(|(o, e)| *o = (e / sum) as f32);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base<'a>(shape: &'a [usize], data: &'a [f32]) -> Base<'a> {
        Base { shape, data }
    }

    #[test]
    fn statistics_and_layer_norm_agree_with_each_other() {
        let x = [1.0, 2.0, 3.0, 6.0, -1.0, -1.0, -1.0, -1.0];
        let (w, b) = ([1.0, 2.0, 0.5, 1.0], [0.0, 0.0, 1.0, -1.0]);
        let mean = Derivation::new(DeriveOp::Mean, &["x"]);
        let std = Derivation::new(DeriveOp::Std, &["x"]).with_eps(1e-5);
        let ln = Derivation::new(DeriveOp::LayerNorm, &["x", "w", "b"]).with_eps(1e-5);
        let xb = base(&[2, 4], &x);
        let m = mean.apply(&[xb], &[2]).unwrap();
        let s = std.apply(&[xb], &[2]).unwrap();
        assert_eq!(m, [3.0, -1.0]);
        assert_eq!(s[0], (3.5f64 + 1e-5).sqrt() as f32);
        assert_eq!(s[1], (1e-5f64).sqrt() as f32);
        let n = ln
            .apply(&[xb, base(&[4], &w), base(&[4], &b)], &[2, 4])
            .unwrap();
        for (i, &v) in n.iter().enumerate() {
            let (r, c) = (i / 4, i % 4);
            let by_hand = ((f64::from(x[i]) - f64::from(m[r])) / f64::from(s[r])) * f64::from(w[c])
                + f64::from(b[c]);
            assert_eq!(v, by_hand as f32, "value {i}");
        }
        assert!(std.clone().apply(&[xb], &[3]).is_err());
        assert!(Derivation::new(DeriveOp::Std, &["x"]).check().is_err());
        assert!(mean.clone().with_eps(1.0).check().is_err());
    }

    #[test]
    fn attention_is_scores_softmax_and_weighted_values() {
        // One head, two positions, dh = 2.
        let q = [1.0, 0.0, 0.0, 2.0];
        let k = [1.0, 1.0, 3.0, 1.0];
        let dot = Derivation::new(DeriveOp::Dot, &["q", "k"]).with_scale(0.5);
        let scores = dot
            .apply(&[base(&[1, 2, 2], &q), base(&[1, 2, 2], &k)], &[1, 2, 2])
            .unwrap();
        assert_eq!(scores, [0.5, 1.5, 1.0, 1.0]);
        let softmax = Derivation::new(DeriveOp::CausalSoftmax, &["scores"]);
        let p = softmax
            .apply(&[base(&[1, 2, 2], &scores)], &[1, 2, 2])
            .unwrap();
        assert_eq!(p, [1.0, 0.0, 0.5, 0.5], "masked right of the diagonal");
        let v = [2.0, 4.0, 6.0, 8.0];
        let z = Derivation::new(DeriveOp::Matmul, &["p", "v"])
            .apply(&[base(&[1, 2, 2], &p), base(&[1, 2, 2], &v)], &[1, 2, 2])
            .unwrap();
        assert_eq!(z, [2.0, 4.0, 4.0, 6.0]);
        // Every kept row sums to one within f32 rounding.
        let wide: Vec<f32> = (0..48).map(|i| (i as f32 * 0.37).sin() * 9.0).collect();
        let p = softmax
            .apply(&[base(&[3, 4, 4], &wide)], &[3, 4, 4])
            .unwrap();
        for row in p.chunks(4) {
            let sum: f32 = row.iter().sum();
            assert!((sum - 1.0).abs() < 4e-7, "{sum}");
        }
    }

    #[test]
    fn a_gated_mlp_is_silu_of_the_gate_times_up() {
        let gate = [-2.0, 0.0, 1.0, 3.06];
        let up = [0.5, 4.0, -1.0, -1.06];
        let silu = Derivation::new(DeriveOp::Silu, &["gate"]);
        let act = silu.apply(&[base(&[4], &gate)], &[4]).unwrap();
        for (a, g) in act.iter().zip(gate) {
            let by_hand = f64::from(g) / (1.0 + (-f64::from(g)).exp());
            assert!((f64::from(*a) - by_hand).abs() < 1e-6, "{a} vs {by_hand}");
        }
        assert_eq!(act[1], 0.0);
        let mul = Derivation::new(DeriveOp::Mul, &["act", "up"]);
        let post = mul
            .apply(&[base(&[4], &act), base(&[4], &up)], &[4])
            .unwrap();
        assert_eq!(post, [act[0] * 0.5, 0.0, -act[2], act[3] * -1.06]);
        assert!(mul
            .apply(&[base(&[4], &act), base(&[2], &up[..2])], &[4])
            .is_err());
        assert!(Derivation::new(DeriveOp::Mul, &["a"]).check().is_err());
    }

    #[test]
    fn probabilities_from_logits_and_their_log_sum_exp() {
        let logits = [0.0, -1.0, 2.0, 1.0];
        let lse = [0.5, 3.0];
        let p = Derivation::new(DeriveOp::ExpDiff, &["l", "lse"])
            .apply(&[base(&[2, 2], &logits), base(&[2], &lse)], &[2, 2])
            .unwrap();
        assert_eq!(p, [exp(-0.5), exp(-1.5), exp(-1.0), exp(-2.0)]);
        let bad = Derivation::new(DeriveOp::ExpDiff, &["l", "lse"])
            .apply(&[base(&[2, 2], &logits), base(&[1], &lse[..1])], &[2, 2]);
        assert!(bad.is_err());
    }

    #[test]
    fn the_file_form_names_the_op_its_parameters_and_bases() {
        let d = Derivation::new(DeriveOp::Std, &["blocks.0.resid_pre"]).with_eps(1e-5);
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(
            json,
            r#"{"op":"std","eps":0.00001,"from":["blocks.0.resid_pre"]}"#
        );
        assert_eq!(serde_json::from_str::<Derivation>(&json).unwrap(), d);
        assert!(serde_json::from_str::<Derivation>(r#"{"op":"cube","from":[]}"#).is_err());
    }
}
