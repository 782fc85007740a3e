//! Next-token cross-entropy over GPT-2's 50,257 logits as one fused operation.
//!
//! Composed from candle's generic ops, log-softmax makes a dozen passes over the `[V, T]`
//! logits and as many 25 MB temporaries per sequence, which dominated a training step. This op
//! makes two passes forward and one backward, split over threads by fixed row blocks (so the
//! sums, and therefore the results, do not depend on the number of threads).

use super::slices::with_f32;
use candle_core::{CpuStorage, CustomOp2, Layout, Shape, Tensor};
use rayon::prelude::*;

/// Rows (vocabulary entries) per block of work; fixed so results never depend on threads.
const BLOCK: usize = 2048;

/// Per-position loss of `logits_vt` (`[V, T]`: one column per position) against `targets`
/// (`[T]`, u32): returns `[2, T]`, row 0 the loss −log p(target), row 1 log Σ exp (not
/// differentiated; kept so the backward pass need not recompute it).
pub fn next_token_nll(logits_vt: &Tensor, targets: &Tensor) -> candle_core::Result<Tensor> {
    logits_vt.apply_op2(targets, NextTokenNll)
}

/// Mean next-token cross-entropy of logits `[T, V]` as the forward pass returns them.
pub fn cross_entropy(logits_tv: &Tensor, targets: &[u32]) -> candle_core::Result<Tensor> {
    let targets = Tensor::new(targets, logits_tv.device())?;
    next_token_nll(&logits_tv.t()?.contiguous()?, &targets)?
        .narrow(0, 0, 1)?
        .mean_all()
}

struct NextTokenNll;

impl CustomOp2 for NextTokenNll {
    fn name(&self) -> &'static str {
        "next-token-nll"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (v, t) = l1.shape().dims2()?;
        let logits = contiguous(s1.as_slice::<f32>()?, l1)?;
        let targets = contiguous(s2.as_slice::<u32>()?, l2)?;
        if targets.len() != t || targets.iter().any(|&y| y as usize >= v) {
            candle_core::bail!("next-token-nll: {t} positions need {t} targets below {v}")
        }
        let lse = log_sum_exp(logits, v, t);
        let mut out = Vec::with_capacity(2 * t);
        out.extend((0..t).map(|j| lse[j] - logits[targets[j] as usize * t + j]));
        out.extend_from_slice(&lse);
        Ok((CpuStorage::F32(out), Shape::from((2, t))))
    }

    fn bwd(
        &self,
        logits: &Tensor,
        targets: &Tensor,
        res: &Tensor,
        grad_res: &Tensor,
    ) -> candle_core::Result<(Option<Tensor>, Option<Tensor>)> {
        let (v, t) = logits.dims2()?;
        let lse = res.get(1)?.to_vec1::<f32>()?;
        let scale = grad_res.get(0)?.to_vec1::<f32>()?;
        let targets = targets.to_vec1::<u32>()?;
        let mut grad = vec![0f32; v * t];
        with_f32(logits, |x| {
            grad.par_chunks_mut(BLOCK * t)
                .zip(x.par_chunks(BLOCK * t))
                .for_each(|(g, x)| {
                    for (g_row, x_row) in g.chunks_exact_mut(t).zip(x.chunks_exact(t)) {
                        for j in 0..t {
                            g_row[j] = scale[j] * (x_row[j] - lse[j]).exp();
                        }
                    }
                });
        })?;
        for (j, &y) in targets.iter().enumerate() {
            grad[y as usize * t + j] -= scale[j];
        }
        let grad = Tensor::from_vec(grad, (v, t), logits.device())?;
        Ok((Some(grad), None))
    }
}

fn contiguous<'a, T>(values: &'a [T], layout: &Layout) -> candle_core::Result<&'a [T]> {
    match layout.contiguous_offsets() {
        Some((start, end)) => Ok(&values[start..end]),
        None => candle_core::bail!("next-token-nll needs contiguous inputs"),
    }
}

/// log Σ_v exp(x[v, j]) for every column j, max-shifted for stability.
fn log_sum_exp(x: &[f32], v: usize, t: usize) -> Vec<f32> {
    debug_assert_eq!(x.len(), v * t);
    let max = x
        .par_chunks(BLOCK * t)
        .map(|block| {
            let mut m = vec![f32::NEG_INFINITY; t];
            for row in block.chunks_exact(t) {
                for j in 0..t {
                    m[j] = m[j].max(row[j]);
                }
            }
            m
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(vec![f32::NEG_INFINITY; t], |a, b| {
            a.iter().zip(&b).map(|(x, y)| x.max(*y)).collect()
        });
    let sums = x
        .par_chunks(BLOCK * t)
        .map(|block| {
            let mut s = vec![0f32; t];
            for row in block.chunks_exact(t) {
                for j in 0..t {
                    s[j] += (row[j] - max[j]).exp();
                }
            }
            s
        })
        .collect::<Vec<_>>();
    (0..t)
        .map(|j| max[j] + sums.iter().map(|s| s[j]).sum::<f32>().ln())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    #[test]
    fn matches_candles_composed_cross_entropy_and_its_gradient() {
        let (t, v) = (5usize, 3000usize);
        let values: Vec<f32> = (0..t * v)
            .map(|i| ((i * 7919) % 1000) as f32 / 97.0)
            .collect();
        let logits = Var::from_vec(values, (t, v), &Device::Cpu).unwrap();
        let targets: Vec<u32> = vec![0, 2999, 17, 1500, 3];

        let ours = cross_entropy(logits.as_tensor(), &targets).unwrap();
        let target_t = Tensor::new(targets.as_slice(), &Device::Cpu).unwrap();
        let reference = candle_nn::loss::cross_entropy(logits.as_tensor(), &target_t).unwrap();
        let (a, b) = (
            ours.to_scalar::<f32>().unwrap(),
            reference.to_scalar::<f32>().unwrap(),
        );
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");

        let g_ours = ours.backward().unwrap();
        let g_ref = reference.backward().unwrap();
        let flat = |g: &candle_core::backprop::GradStore| {
            g.get(logits.as_tensor())
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap()
        };
        let (ga, gb) = (flat(&g_ours), flat(&g_ref));
        let worst = ga
            .iter()
            .zip(&gb)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert!(worst < 1e-6, "gradients differ by {worst}");
    }
}
