//! Tensors a trace derives from the forward pass rather than records inside it: next-token
//! summaries of the logits, per-token loss, and the logit lens.

use crate::error::Result;
use crate::gpt2::Gpt2;
use crate::recorder::{NoRecorder, Recorded, TensorRecorder};
use crate::topk::top_k;
use candle_core::{Device, Tensor};

/// Candidates the logit lens keeps per layer and position.
pub const LENS_K: usize = 10;

/// Derived tensors, and every token id they mention (so the trace can carry their texts).
pub struct Derived {
    pub tensors: Vec<Recorded>,
    pub ids: Vec<u32>,
}

/// From the logits `[T, V]` of `ids` (taken, and dropped before the logit lens) and the recorded
/// forward pass:
/// - `logits.last` (V), `logits.topk_ids` / `logits.topk_values` (T×k): the k largest logits;
/// - `logits.lse` (T): log-sum-exp of each position's logits, so p = exp(logit − lse) exactly;
/// - `loss.per_token` (T−1): −log p of the token that actually comes next, in nats;
/// - `logit_lens.topk_ids` / `logit_lens.topk_probs` (L×T×10): the final LayerNorm and
///   unembedding applied to the residual stream after each block.
pub fn derive(
    model: &Gpt2,
    ids: &[u32],
    logits: Tensor,
    rec: &TensorRecorder,
    k: usize,
) -> Result<Derived> {
    let t = logits.dim(0)?;
    let mut out = Derived {
        tensors: Vec::new(),
        ids: Vec::new(),
    };
    // One row at a time: a long prompt's logits (T × 50,257) are never copied whole.
    let (mut tops, mut lse, mut loss, mut last) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..t {
        let row = logits.get(i)?.to_vec1::<f32>()?;
        tops.push(top_k(&row, k));
        lse.push(log_sum_exp(&row));
        if i > 0 {
            loss.push(lse[i - 1] - prev_next(&logits, i - 1, ids[i])?);
        }
        if i + 1 == t {
            last = row;
        }
    }
    // The logit lens unembeds every block's stream: the final logits are not needed meanwhile.
    drop(logits);
    let kept = tops.first().map_or(0, Vec::len);
    out.ids.extend(tops.iter().flatten().map(|(id, _)| *id));
    out.push("logits.last", vec![last.len()], last);
    out.push(
        "logits.topk_ids",
        vec![t, kept],
        tops.iter().flatten().map(|(id, _)| *id as f32).collect(),
    );
    out.push(
        "logits.topk_values",
        vec![t, kept],
        tops.iter().flatten().map(|(_, v)| *v).collect(),
    );
    out.push("logits.lse", vec![t], lse);
    out.push("loss.per_token", vec![t - 1], loss);
    logit_lens(model, rec, &mut out)?;
    Ok(out)
}

/// The logit at position `i` of the token `next`.
fn prev_next(logits: &Tensor, i: usize, next: u32) -> Result<f32> {
    Ok(logits.get(i)?.get(next as usize)?.to_scalar::<f32>()?)
}

impl Derived {
    fn push(&mut self, name: &str, shape: Vec<usize>, data: Vec<f32>) {
        self.tensors.push(Recorded {
            name: name.to_string(),
            shape,
            data,
        });
    }
}

fn logit_lens(model: &Gpt2, rec: &TensorRecorder, out: &mut Derived) -> Result<()> {
    let layers = model.config().n_layer;
    let (mut ids, mut probs, mut t) = (Vec::new(), Vec::new(), 0);
    for l in 0..layers {
        let Some(resid) = rec.get(&format!("blocks.{l}.resid_post")) else {
            continue;
        };
        t = resid.shape[0];
        let x = Tensor::from_slice(&resid.data, (resid.shape[0], resid.shape[1]), &Device::Cpu)?;
        for row in model.unembed(&x, &mut NoRecorder)?.to_vec2::<f32>()? {
            let lse = log_sum_exp(&row);
            for (id, logit) in top_k(&row, LENS_K) {
                ids.push(id);
                probs.push((logit - lse).exp());
            }
        }
    }
    let k = LENS_K.min(model.config().vocab_size);
    out.ids.extend(&ids);
    out.push(
        "logit_lens.topk_ids",
        vec![layers, t, k],
        ids.iter().map(|&i| i as f32).collect(),
    );
    out.push("logit_lens.topk_probs", vec![layers, t, k], probs);
    Ok(())
}

/// log Σ exp(x), computed stably in f64.
pub fn log_sum_exp(row: &[f32]) -> f32 {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = row.iter().map(|&x| (x as f64 - max).exp()).sum();
    (max + sum.ln()) as f32
}
