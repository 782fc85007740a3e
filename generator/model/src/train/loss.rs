//! Next-token cross-entropy over GPT-2's 50,257 logits, and its gradient, outside candle's
//! autograd.
//!
//! The unembedding and the loss are where a training step spends its time: a window's `[V, T]`
//! logits are 25 MB. Through candle's autograd every op on them adds a fresh zero tensor and a
//! sum for its gradient (and the transposes between `[T, V]` and `[V, T]` copy them strided).
//! Here the logits come from one matmul, one pass of `exp` turns them into softmax numerators
//! (kept for the gradient), and the gradients of the final hidden states and of `wte` are two
//! more matmuls. Sums over the vocabulary run over fixed row blocks, so the results never
//! depend on the number of threads.

use super::slices::with_f32;
use candle_core::Tensor;
use rayon::prelude::*;

/// Rows (vocabulary entries) per block of work; fixed so results never depend on threads.
const BLOCK: usize = 2048;

/// Mean next-token cross-entropy of logits `[T, V]` as the forward pass returns them.
pub fn cross_entropy(logits_tv: &Tensor, targets: &[u32]) -> candle_core::Result<f32> {
    let (t, v) = logits_tv.dims2()?;
    check_targets(targets, t, v)?;
    with_f32(&logits_tv.t()?, |x| {
        let softmax = Softmax::of(x, t);
        softmax.mean_nll(x, targets)
    })
}

/// The loss of one window and the gradients of `scale` × that loss.
pub struct HeadGradients {
    /// Mean cross-entropy over the window's positions (nats per token).
    pub loss: f32,
    /// Gradient for the final LayerNorm's output, `[T, d]`.
    pub hidden: Tensor,
    /// Gradient for `wte` through the unembedding alone, `[V, d]`.
    pub wte: Tensor,
}

/// Unembed `hidden` (`[T, d]`, the final LayerNorm's output) with `wte` (`[V, d]`), score the
/// logits against `targets`, and differentiate `scale` × the mean loss by both inputs.
pub fn head_gradients(
    hidden: &Tensor,
    wte: &Tensor,
    targets: &[u32],
    scale: f32,
) -> candle_core::Result<HeadGradients> {
    let (hidden, wte) = (hidden.detach(), wte.detach());
    let (t, v) = (hidden.dim(0)?, wte.dim(0)?);
    check_targets(targets, t, v)?;
    let logits = wte.matmul(&hidden.t()?)?;
    let (loss, grad) = with_f32(&logits, |x| {
        let softmax = Softmax::of(x, t);
        let loss = softmax.mean_nll(x, targets);
        (loss, softmax.into_gradient(targets, scale / t as f32))
    })?;
    drop(logits);
    let grad = Tensor::from_vec(grad, (v, t), hidden.device())?;
    Ok(HeadGradients {
        loss,
        hidden: grad.t()?.matmul(&wte)?,
        wte: grad.matmul(&hidden)?,
    })
}

fn check_targets(targets: &[u32], t: usize, v: usize) -> candle_core::Result<()> {
    if targets.len() != t || targets.iter().any(|&y| y as usize >= v) {
        candle_core::bail!("next-token loss: {t} positions need {t} targets below {v}")
    }
    Ok(())
}

/// The softmax of every column of `[V, T]` logits, kept as its numerators exp(x − max) and
/// their column sums.
struct Softmax {
    t: usize,
    max: Vec<f32>,
    exps: Vec<f32>,
    sums: Vec<f32>,
}

impl Softmax {
    fn of(x: &[f32], t: usize) -> Softmax {
        let max = column_max(x, t);
        let mut exps = vec![0f32; x.len()];
        let block_sums: Vec<Vec<f32>> = exps
            .par_chunks_mut(BLOCK * t)
            .zip(x.par_chunks(BLOCK * t))
            .map(|(e, x)| {
                let mut s = vec![0f32; t];
                for (e_row, x_row) in e.chunks_exact_mut(t).zip(x.chunks_exact(t)) {
                    for j in 0..t {
                        e_row[j] = (x_row[j] - max[j]).exp();
                        s[j] += e_row[j];
                    }
                }
                s
            })
            .collect();
        let sums = (0..t)
            .map(|j| block_sums.iter().map(|s| s[j]).sum())
            .collect();
        Softmax { t, max, exps, sums }
    }

    /// Mean over positions of −log p(target) = log Σ exp − x[target].
    fn mean_nll(&self, x: &[f32], targets: &[u32]) -> f32 {
        let t = self.t;
        let total: f64 = targets
            .iter()
            .enumerate()
            .map(|(j, &y)| {
                let lse = self.max[j] + self.sums[j].ln();
                (lse - x[y as usize * t + j]) as f64
            })
            .sum();
        (total / t as f64) as f32
    }

    /// `scale` × (softmax − one-hot(target)): the gradient of `scale` × Σ −log p(target) by
    /// the logits.
    fn into_gradient(self, targets: &[u32], scale: f32) -> Vec<f32> {
        let t = self.t;
        let factor: Vec<f32> = self.sums.iter().map(|s| scale / s).collect();
        let mut grad = self.exps;
        grad.par_chunks_mut(BLOCK * t).for_each(|block| {
            for row in block.chunks_exact_mut(t) {
                for j in 0..t {
                    row[j] *= factor[j];
                }
            }
        });
        for (j, &y) in targets.iter().enumerate() {
            grad[y as usize * t + j] -= scale;
        }
        grad
    }
}

/// The largest value of every column of `[V, T]` values.
fn column_max(x: &[f32], t: usize) -> Vec<f32> {
    x.par_chunks(BLOCK * t)
        .map(|block| {
            let mut m = vec![f32::NEG_INFINITY; t];
            for row in block.chunks_exact(t) {
                for j in 0..t {
                    m[j] = m[j].max(row[j]);
                }
            }
            m
        })
        .reduce(
            || vec![f32::NEG_INFINITY; t],
            |a, b| a.iter().zip(&b).map(|(x, y)| x.max(*y)).collect(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, Var};

    fn values(n: usize, seed: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (((i + seed) * 7919) % 1000) as f32 / 997.0 - 0.5)
            .collect()
    }

    /// The largest difference between `ours` and the f64 `exact`, relative to `exact`'s
    /// largest value.
    fn relative_error(ours: &Tensor, exact: &Tensor) -> f64 {
        let max_abs = |t: &Tensor| {
            t.abs()
                .unwrap()
                .flatten_all()
                .unwrap()
                .max(0)
                .unwrap()
                .to_scalar::<f64>()
                .unwrap()
        };
        let ours = ours.to_dtype(DType::F64).unwrap();
        max_abs(&(ours - exact).unwrap()) / max_abs(exact)
    }

    /// Loss and both gradients equal, up to f32 rounding, those of candle's composed ops
    /// (the unembedding matmul and candle-nn's cross-entropy, through candle's autograd)
    /// computed in f64.
    #[test]
    fn matches_candles_composed_unembedding_and_cross_entropy() {
        let (t, v, d) = (5usize, 3000usize, 8usize);
        let hidden = Tensor::from_vec(values(t * d, 1), (t, d), &Device::Cpu).unwrap();
        let wte = Tensor::from_vec(values(v * d, 2), (v, d), &Device::Cpu).unwrap();
        let targets: Vec<u32> = vec![0, 2999, 17, 1500, 3];
        let scale = 0.25f32;
        let ours = head_gradients(&hidden, &wte, &targets, scale).unwrap();
        let logits = hidden.matmul(&wte.t().unwrap()).unwrap();
        let eval = cross_entropy(&logits, &targets).unwrap();

        let exact = |x: &Tensor| Var::from_tensor(&x.to_dtype(DType::F64).unwrap()).unwrap();
        let (hidden64, wte64) = (exact(&hidden), exact(&wte));
        let logits64 = hidden64.matmul(&wte64.t().unwrap()).unwrap();
        let target_t = Tensor::new(targets.as_slice(), &Device::Cpu).unwrap();
        let loss64 = candle_nn::loss::cross_entropy(&logits64, &target_t).unwrap();
        let expected = loss64.to_scalar::<f64>().unwrap();
        assert!(
            (ours.loss as f64 - expected).abs() < 1e-5,
            "{} vs {expected}",
            ours.loss
        );
        assert!(
            (eval as f64 - expected).abs() < 1e-5,
            "{eval} vs {expected}"
        );

        let grads = (loss64 * scale as f64).unwrap().backward().unwrap();
        let dh = relative_error(&ours.hidden, grads.get(hidden64.as_tensor()).unwrap());
        let dw = relative_error(&ours.wte, grads.get(wte64.as_tensor()).unwrap());
        assert!(
            dh < 1e-5 && dw < 1e-5,
            "gradients off by {dh} (hidden), {dw} (wte)"
        );
    }
}
