//! Input saliency: how much each prompt token's embedding matters to a target's
//! log-probability at the last position, by the gradient (gradient × input) and by integrated
//! gradients (Sundararajan et al., 2017) from an all-zero token embedding, positions kept, as
//! Captum computes them by default: 50 Gauss–Legendre points on the straight path; each
//! token's attribution is summed over the embedding's width.
//!
//! Every point of the path is a sequence of its own: they go through the blocks together as
//! one batch (as the interventions' runs do), with the model's differentiable twin, and one
//! backward pass per target gives every point's gradient at once.

use super::quadrature::gauss_legendre;
use crate::error::Result;
use crate::recorder::NoRecorder;
use crate::transformer::Transformer;
use candle_core::{DType, Tensor, Var, D};

/// Integrated gradients' points on the path, Captum's default.
pub const STEPS: usize = 50;

/// Rows (points × tokens) one batch holds at most, which bounds memory on long prompts.
const BATCH_ROWS: usize = 512;

/// Per token and target (`[position][target]`): gradient × input and integrated gradients;
/// per target: the log-probability at the prompt and at the baseline (all-zero token
/// embeddings), whose difference integrated gradients sum to (completeness).
#[derive(Clone, Debug, PartialEq)]
pub struct Salient {
    pub grad_input: Vec<Vec<f32>>,
    pub integrated: Vec<Vec<f32>>,
    pub logprob: Vec<f32>,
    pub baseline_logprob: Vec<f32>,
}

/// The saliency of `targets` at the last position of the run over `ids`.
pub fn saliency(net: &Transformer, ids: &[u32], targets: &[u32]) -> Result<Salient> {
    let t = ids.len();
    let embed = net.token_embeddings(ids)?;
    let rows = embed.to_dtype(DType::F64)?.to_vec2::<f64>()?;
    let (points, weights) = gauss_legendre(STEPS);
    // The path's points, then the baseline (0) and the prompt itself (1).
    let alphas: Vec<f64> = points.iter().copied().chain([0.0, 1.0]).collect();
    let twin = net.differentiable();
    // [alpha][target][position]: the gradient at that point, dotted with the embedding row.
    let mut dotted = vec![vec![vec![0f64; t]; targets.len()]; alphas.len()];
    let mut logprob = vec![vec![0f64; targets.len()]; alphas.len()];
    let per_batch = (BATCH_ROWS / t).max(1);
    for (chunk, alphas_here) in alphas.chunks(per_batch).enumerate() {
        let first = chunk * per_batch;
        let scaled = alphas_here
            .iter()
            .map(|&a| embed.affine(a, 0.0))
            .collect::<candle_core::Result<Vec<_>>>()?;
        let input = Var::from_tensor(&Tensor::cat(&scaled, 0)?)?;
        let b = alphas_here.len();
        let x = twin.with_positions(input.as_tensor(), b)?;
        let resid = twin.run_blocks(0, &x, b, &mut NoRecorder)?;
        let logp = candle_nn::ops::log_softmax(&twin.next_token_logits(&resid, b)?, D::Minus1)?;
        for (k, &target) in targets.iter().enumerate() {
            let chosen = logp.narrow(1, target as usize, 1)?;
            let values = chosen.flatten_all()?.to_vec1::<f32>()?;
            let grads = chosen.sum_all()?.backward()?;
            let grad = grads
                .get(input.as_tensor())
                .expect("the input reaches the log-probability")
                .to_dtype(DType::F64)?
                .to_vec2::<f64>()?;
            for (j, value) in values.iter().enumerate() {
                logprob[first + j][k] = *value as f64;
                for (i, row) in rows.iter().enumerate() {
                    let g = &grad[j * t + i];
                    dotted[first + j][k][i] = g.iter().zip(row).map(|(a, b)| a * b).sum();
                }
            }
        }
    }
    let n = points.len();
    let per_position = |f: &dyn Fn(usize, usize) -> f64| -> Vec<Vec<f32>> {
        (0..t)
            .map(|i| (0..targets.len()).map(|k| f(i, k) as f32).collect())
            .collect()
    };
    Ok(Salient {
        grad_input: per_position(&|i, k| dotted[n + 1][k][i]),
        integrated: per_position(&|i, k| (0..n).map(|s| weights[s] * dotted[s][k][i]).sum()),
        logprob: logprob[n + 1].iter().map(|&v| v as f32).collect(),
        baseline_logprob: logprob[n].iter().map(|&v| v as f32).collect(),
    })
}
