//! AdamW (decoupled weight decay, bias-corrected moments) with its state in the open, so a
//! checkpoint can save the moments and `--resume` continues exactly where the run stopped.
//!
//! The update is candle-nn's `AdamW` and PyTorch's `torch.optim.AdamW`, step for step; that
//! one keeps its moments private (a resumed run would restart them from zero) and spends a
//! dozen full-size temporaries per tensor, while this one updates each weight in one pass.
//! Weight decay applies to matrices and embeddings only (not to biases and LayerNorm gains),
//! as in GPT-2 training recipes.

use super::params::Params;
use super::slices::with_f32;
use super::step::Gradients;
use candle_core::Tensor;

/// The hyper-parameters that stay fixed through a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamWConfig {
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
}

impl AdamWConfig {
    /// GPT-2-style betas (0.9, 0.95) with the given decay.
    pub fn gpt2(weight_decay: f64) -> AdamWConfig {
        AdamWConfig {
            beta1: 0.9,
            beta2: 0.95,
            eps: 1e-8,
            weight_decay,
        }
    }
}

/// First and second moments of every parameter (flattened, in `Params` order), and the
/// number of steps taken.
pub struct AdamW {
    config: AdamWConfig,
    pub steps_taken: usize,
    pub first: Vec<Vec<f32>>,
    pub second: Vec<Vec<f32>>,
}

impl AdamW {
    pub fn new(params: &Params, config: AdamWConfig) -> AdamW {
        let zeros: Vec<Vec<f32>> = params
            .vars()
            .iter()
            .map(|v| vec![0f32; v.elem_count()])
            .collect();
        AdamW::restore(config, 0, zeros.clone(), zeros)
    }

    /// An optimiser that has already taken `steps_taken` steps with these moments.
    pub fn restore(
        config: AdamWConfig,
        steps_taken: usize,
        first: Vec<Vec<f32>>,
        second: Vec<Vec<f32>>,
    ) -> AdamW {
        AdamW {
            config,
            steps_taken,
            first,
            second,
        }
    }

    /// One update of every parameter with its gradient.
    pub fn step(&mut self, params: &Params, grads: &Gradients, lr: f64) -> candle_core::Result<()> {
        self.steps_taken += 1;
        let c = self.config;
        let t = self.steps_taken as i32;
        let correct1 = 1.0 - c.beta1.powi(t);
        let correct2 = 1.0 - c.beta2.powi(t);
        for (i, var) in params.vars().iter().enumerate() {
            let decay = if var.rank() >= 2 { c.weight_decay } else { 0.0 };
            let shrink = (1.0 - lr * decay) as f32;
            let (m, v, g) = (&mut self.first[i], &mut self.second[i], &grads[i]);
            let theta = with_f32(var.as_tensor(), |theta| {
                let mut next = Vec::with_capacity(theta.len());
                for j in 0..theta.len() {
                    let gj = g[j] as f64;
                    let mj = c.beta1 * m[j] as f64 + (1.0 - c.beta1) * gj;
                    let vj = c.beta2 * v[j] as f64 + (1.0 - c.beta2) * gj * gj;
                    m[j] = mj as f32;
                    v[j] = vj as f32;
                    let update =
                        (m[j] as f64 / correct1) / ((v[j] as f64 / correct2).sqrt() + c.eps);
                    next.push(theta[j] * shrink - (lr * update) as f32);
                }
                next
            })?;
            var.set(&Tensor::from_vec(theta, var.shape(), var.device())?)?;
        }
        Ok(())
    }
}

/// Rescale `grads` so their global L2 norm is at most `max_norm` (as PyTorch's
/// `clip_grad_norm_`); returns the norm before clipping.
pub fn clip_grad_norm(grads: &mut Gradients, max_norm: f64) -> f64 {
    let total: f64 = grads
        .iter()
        .map(|g| g.iter().map(|&x| x as f64 * x as f64).sum::<f64>())
        .sum();
    let norm = total.sqrt();
    let scale = max_norm / (norm + 1e-6);
    if scale < 1.0 {
        for g in grads.iter_mut() {
            g.iter_mut().for_each(|x| *x = (*x as f64 * scale) as f32);
        }
    }
    norm
}
