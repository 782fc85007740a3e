//! Next-token cross-entropy through the one forward pass, and its gradients for a batch.
//!
//! candle's autograd differentiates the blocks; the unembedding and the loss, where nearly all
//! of a step's arithmetic is, are differentiated by `loss::head_gradients`, and the two uses of
//! the tied `wte` (embedding and unembedding) are summed here. That keeps every `[V, d]` and
//! `[V, T]` tensor out of candle's graph, whose backward pass adds a zero tensor and a sum for
//! each of them.

use super::loss::{cross_entropy, head_gradients};
use super::params::{tied_embedding, Params};
use super::slices::with_f32;
use crate::recorder::NoRecorder;
use crate::transformer::Transformer;
use candle_core::{Tensor, Var};

/// Gradients of every parameter, flattened, in `Params` order.
pub type Gradients = Vec<Vec<f32>>;

/// The mean loss over `windows` and its gradient for every parameter.
///
/// Each window is differentiated on its own and its gradients added into one buffer per
/// parameter, so memory holds one window's graph at a time rather than the whole batch's.
pub fn batch_gradients(
    model: &Transformer,
    params: &Params,
    windows: &[&[u32]],
) -> crate::Result<(f64, Gradients)> {
    let scale = 1.0 / windows.len() as f64;
    let mut total_loss = 0f64;
    let mut sums: Gradients = params
        .vars()
        .iter()
        .map(|v| vec![0f32; v.elem_count()])
        .collect();
    for window in windows {
        total_loss += add_window_gradients(model, params, window, scale as f32, &mut sums)? as f64;
    }
    Ok((total_loss * scale, sums))
}

/// Add the gradients of `scale` × one window's mean loss into `sums`; returns that loss.
fn add_window_gradients(
    model: &Transformer,
    params: &Params,
    window: &[u32],
    scale: f32,
    sums: &mut Gradients,
) -> crate::Result<f32> {
    let (input, targets) = (&window[..window.len() - 1], &window[1..]);
    // A variable of its own (a copy, cut from wte in the graph): its gradient is the
    // embedding's share of wte's.
    let embed = Var::from_tensor(&model.token_embeddings(input)?)?;
    let resid = model.residual_stream(embed.as_tensor(), &mut NoRecorder)?;
    let hidden = model.final_norm(&resid, &mut NoRecorder)?;
    let head = head_gradients(&hidden, model.wte(), targets, scale)?;
    // Σ hidden ⊙ g differentiates to g for `hidden`, and candle carries it through the blocks.
    let grads = (hidden * &head.hidden)?.sum_all()?.backward()?;
    for (sum, var) in sums.iter_mut().zip(params.vars()) {
        if let Some(g) = grads.get(var.as_tensor()) {
            add_into(sum, g)?;
        }
    }
    let name = tied_embedding(model.config());
    let wte = params
        .position(name)
        .ok_or_else(|| candle_core::Error::Msg(format!("no {name} among the weights")))?;
    add_into(&mut sums[wte], &head.wte)?;
    if let Some(g) = grads.get(embed.as_tensor()) {
        add_rows(&mut sums[wte], input, g)?;
    }
    Ok(head.loss)
}

/// `sum += g`, element by element.
fn add_into(sum: &mut [f32], g: &Tensor) -> candle_core::Result<()> {
    with_f32(g, |g| sum.iter_mut().zip(g).for_each(|(s, g)| *s += g))
}

/// Add row `i` of `g` (`[T, d]`) into row `ids[i]` of `sum` (`[V, d]`, flattened).
fn add_rows(sum: &mut [f32], ids: &[u32], g: &Tensor) -> candle_core::Result<()> {
    let d = g.dim(1)?;
    with_f32(g, |g| {
        for (&id, row) in ids.iter().zip(g.chunks_exact(d)) {
            let start = id as usize * d;
            add_row(&mut sum[start..start + d], row);
        }
    })
}

fn add_row(sum: &mut [f32], row: &[f32]) {
    sum.iter_mut().zip(row).for_each(|(s, g)| *s += g);
}

/// Mean cross-entropy (nats per token) of predicting `window[1..]` from `window[..len-1]`.
pub fn window_loss(model: &Transformer, window: &[u32]) -> crate::Result<f32> {
    let (input, targets) = (&window[..window.len() - 1], &window[1..]);
    let logits = model.forward(input, &mut NoRecorder)?;
    Ok(cross_entropy(&logits, targets)?)
}

/// Mean loss over `windows` without gradients (the validation loss).
pub fn mean_loss(model: &Transformer, windows: &[&[u32]]) -> crate::Result<f64> {
    let mut total = 0f64;
    for window in windows {
        total += window_loss(model, window)? as f64;
    }
    Ok(total / windows.len().max(1) as f64)
}
