//! The one number of the weights a training run follows step by step, so a figure can show
//! what gradient descent does to a single weight: its value after every update and the
//! gradient the optimiser was given for it.

use super::log::WatchedWeight;
use super::params::Params;
use super::step::Gradients;

/// The first number of the first MLP's input matrix (GPT-2's `c_fc`, Llama's `up_proj`): a
/// weight every token's update reaches.
const NAMES: [&str; 2] = ["h.0.mlp.c_fc.weight", "model.layers.0.mlp.up_proj.weight"];
const INDEX: usize = 0;

/// The weight a new run follows, with its initial value; `None` if the model has no such
/// weight.
pub fn watch(params: &Params) -> candle_core::Result<Option<WatchedWeight>> {
    let Some(name) = NAMES.iter().find(|n| params.position(n).is_some()) else {
        return Ok(None);
    };
    let watched = WatchedWeight {
        name: name.to_string(),
        index: INDEX,
        initial: 0.0,
    };
    Ok(value(params, &watched)?.map(|initial| WatchedWeight { initial, ..watched }))
}

/// The watched number's current value.
pub fn value(params: &Params, watched: &WatchedWeight) -> candle_core::Result<Option<f64>> {
    let Some(at) = params.position(&watched.name) else {
        return Ok(None);
    };
    let flat = params.vars()[at].as_tensor().flatten_all()?;
    if watched.index >= flat.elem_count() {
        return Ok(None);
    }
    Ok(Some(f64::from(
        flat.get(watched.index)?.to_scalar::<f32>()?,
    )))
}

/// The gradient for the watched number in `grads` (in `Params` order).
pub fn grad(params: &Params, grads: &Gradients, watched: &WatchedWeight) -> Option<f64> {
    let at = params.position(&watched.name)?;
    grads.get(at)?.get(watched.index).map(|&g| f64::from(g))
}
