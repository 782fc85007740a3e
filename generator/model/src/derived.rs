//! Tensors a trace derives from the forward pass rather than records inside it: next-token
//! summaries of the logits, per-token loss, and the logit lens.

use crate::error::Result;
use crate::recorder::{NoRecorder, Recorded, TensorRecorder};
use crate::topk::top_k;
use crate::transformer::Transformer;
use candle_core::{Device, Tensor};
use tracebook_trace::{Derivation, DeriveOp, Precision};

/// Candidates the logit lens keeps per layer and position.
pub const LENS_K: usize = 10;

/// Derived tensors, each with the computation a trace stores it as (None: its values), and
/// every token id they mention (so the trace can carry their texts).
pub struct Derived {
    pub tensors: Vec<(Recorded, Option<Derivation>)>,
    pub ids: Vec<u32>,
    /// The likeliest next tokens after the prompt, likeliest first, ranked as a claim's
    /// `guess(k)` ranks them: by the last logits as the trace stores them, ties to the lower
    /// id (so a target written `guess(k)` is the token `guess(k)` names in the trace).
    pub guesses: Vec<u32>,
}

/// From the logits `[T, V]` of `ids` (taken, and dropped before the logit lens) and the recorded
/// forward pass:
/// - `logits.last` (V), `logits.topk_ids` / `logits.topk_values` (T×k): the k largest logits;
/// - `logits.lse` (T): log-sum-exp of each position's logits, so p = exp(logit − lse) exactly;
/// - `loss.per_token` (T−1): −log p of the token that actually comes next, in nats, from its
///   logit as the trace stores logits at `precision` (so it is exactly −ln of the probability
///   every figure computes for that token);
/// - `logit_lens.topk_ids` / `logit_lens.topk_logits` (L×T×10), `logit_lens.lse` (L×T): the
///   final LayerNorm and unembedding applied to the residual stream after each block, and
///   `logit_lens.topk_probs`, derived from those two as `exp(logit − lse)`. The last block's
///   rows are the model's own (`logits.topk_*`, `logits.lse`), so the lens's last layer and
///   the next-token candidates are one set of numbers.
pub fn derive(
    model: &Transformer,
    ids: &[u32],
    logits: Tensor,
    rec: &TensorRecorder,
    k: usize,
    precision: Precision,
) -> Result<Derived> {
    let t = logits.dim(0)?;
    let mut out = Derived {
        tensors: Vec::new(),
        ids: Vec::new(),
        guesses: Vec::new(),
    };
    // One row at a time: a long prompt's logits (T × 50,257) are never copied whole.
    let (mut tops, mut lse, mut loss, mut last) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut lens_tops = Vec::new();
    for i in 0..t {
        let row = logits.get(i)?.to_vec1::<f32>()?;
        // The k largest are the first k of the LENS_K largest, and the other way round.
        let wide = top_k(&row, k.max(LENS_K));
        tops.push(wide[..k.min(wide.len())].to_vec());
        lens_tops.push(wide[..LENS_K.min(wide.len())].to_vec());
        lse.push(log_sum_exp(&row));
        if i > 0 {
            let row_max = lens_tops[i - 1].first().map_or(0.0, |&(_, l)| l);
            let next = precision.stored_logit(prev_next(&logits, i - 1, ids[i])?, row_max);
            loss.push(lse[i - 1] - next);
        }
        if i + 1 == t {
            last = row;
        }
    }
    // The logit lens unembeds every block's stream: the final logits are not needed meanwhile.
    drop(logits);
    let row_max = last.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let stored: Vec<f32> = (last.iter())
        .map(|&x| precision.stored_logit(x, row_max))
        .collect();
    out.guesses = (top_k(&stored, tracebook_trace::targets::MAX_GUESS).into_iter())
        .map(|(id, _)| id)
        .collect();
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
    out.push("logits.lse", vec![t], lse.clone());
    out.push("loss.per_token", vec![t - 1], loss);
    let last = Last {
        tops: &lens_tops,
        lse: &lse,
    };
    logit_lens(model, rec, last, &mut out)?;
    Ok(out)
}

/// The logit at position `i` of the token `next`.
fn prev_next(logits: &Tensor, i: usize, next: u32) -> Result<f32> {
    Ok(logits.get(i)?.get(next as usize)?.to_scalar::<f32>()?)
}

impl Derived {
    fn push(&mut self, name: &str, shape: Vec<usize>, data: Vec<f32>) {
        self.push_as(name, shape, data, None);
    }

    fn push_as(&mut self, name: &str, shape: Vec<usize>, data: Vec<f32>, how: Option<Derivation>) {
        let name = name.to_string();
        self.tensors.push((Recorded { name, shape, data }, how));
    }
}

/// The model's own candidates and log-sum-exp at each position: the lens's last layer.
struct Last<'a> {
    tops: &'a [Vec<(u32, f32)>],
    lse: &'a [f32],
}

fn logit_lens(
    model: &Transformer,
    rec: &TensorRecorder,
    last: Last,
    out: &mut Derived,
) -> Result<()> {
    let layers = model.config().n_layer();
    let k = LENS_K.min(model.config().vocab_size());
    let (mut ids, mut logits, mut lses) = (Vec::new(), Vec::new(), Vec::new());
    let mut keep = |row: &[(u32, f32)], lse: f32| {
        for &(id, logit) in &row[..k.min(row.len())] {
            ids.push(id);
            logits.push(logit);
        }
        lses.push(lse);
    };
    for l in 0..layers.saturating_sub(1) {
        let Some(resid) = rec.get(&format!("blocks.{l}.resid_post")) else {
            continue;
        };
        let x = Tensor::from_slice(&resid.data, (resid.shape[0], resid.shape[1]), &Device::Cpu)?;
        for row in model.unembed(&x, &mut NoRecorder)?.to_vec2::<f32>()? {
            keep(&top_k(&row, k), log_sum_exp(&row));
        }
    }
    if layers > 0 {
        last.tops
            .iter()
            .zip(last.lse)
            .for_each(|(row, &lse)| keep(row, lse));
    }
    let t = last.lse.len();
    out.ids.extend(&ids);
    out.push(
        "logit_lens.topk_ids",
        vec![layers, t, k],
        ids.iter().map(|&i| i as f32).collect(),
    );
    // The values the model computed; the trace keeps their derivation from the two below.
    let probs = logits
        .chunks(k.max(1))
        .zip(&lses)
        .flat_map(|(row, &lse)| row.iter().map(move |&l| (l - lse).exp()))
        .collect();
    out.push("logit_lens.topk_logits", vec![layers, t, k], logits);
    out.push("logit_lens.lse", vec![layers, t], lses);
    let how = Derivation::new(
        DeriveOp::ExpDiff,
        &["logit_lens.topk_logits", "logit_lens.lse"],
    );
    out.push_as(
        "logit_lens.topk_probs",
        vec![layers, t, k],
        probs,
        Some(how),
    );
    Ok(())
}

/// log Σ exp(x), computed stably in f64.
pub fn log_sum_exp(row: &[f32]) -> f32 {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = row.iter().map(|&x| (x as f64 - max).exp()).sum();
    (max + sum.ln()) as f32
}
