//! Next-token cross-entropy through the one GPT-2 forward pass, and its gradients for a batch.

use super::loss::cross_entropy;
use super::params::Params;
use super::slices::with_f32;
use crate::gpt2::Gpt2;
use crate::recorder::NoRecorder;
use candle_core::Tensor;

/// Gradients of every parameter, flattened, in `Params` order.
pub type Gradients = Vec<Vec<f32>>;

/// Mean cross-entropy (nats per token) of predicting `window[1..]` from `window[..len-1]`.
pub fn window_loss(model: &Gpt2, window: &[u32]) -> crate::Result<Tensor> {
    let (input, targets) = (&window[..window.len() - 1], &window[1..]);
    let logits = model.forward(input, &mut NoRecorder)?;
    Ok(cross_entropy(&logits, targets)?)
}

/// The mean loss over `windows` and its gradient for every parameter.
///
/// Each window is differentiated on its own and its gradients added into one buffer per
/// parameter, so memory holds one window's graph at a time rather than the whole batch's.
pub fn batch_gradients(
    model: &Gpt2,
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
        let loss = window_loss(model, window)?;
        total_loss += loss.to_scalar::<f32>()? as f64;
        let grads = (loss * scale)?.backward()?;
        for (sum, var) in sums.iter_mut().zip(params.vars()) {
            if let Some(g) = grads.get(var.as_tensor()) {
                with_f32(g, |g| sum.iter_mut().zip(g).for_each(|(s, g)| *s += g))?;
            }
        }
    }
    Ok((total_loss * scale, sums))
}

/// Mean loss over `windows` without gradients (the validation loss).
pub fn mean_loss(model: &Gpt2, windows: &[&[u32]]) -> crate::Result<f64> {
    let mut total = 0f64;
    for window in windows {
        total += window_loss(model, window)?.to_scalar::<f32>()? as f64;
    }
    Ok(total / windows.len().max(1) as f64)
}
