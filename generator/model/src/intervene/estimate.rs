//! Attribution patching (Nanda, 2023; Syed et al., 2023): activation patching's every cell
//! estimated from one forward and one backward pass of the corrupted run. Patching a site
//! replaces its corrupted activation `a` by the clean one `a'`; to first order the logit
//! difference M = logit(answer) − logit(wrong) moves by (a' − a) · ∂M/∂a, the gradient taken in
//! the corrupted run. The estimate is normalised as the exact metric is (0: the corrupted run,
//! 1: the clean one), so a page can set the two side by side and show where the linear guess
//! holds.
//!
//! The gradient at each hook point is read through a zero added there: the forward goes on with
//! `a + 0`, and M's gradient with respect to that zero is its gradient with respect to `a`, with
//! every later path kept.

use super::hooks::Cache;
use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::Transformer;
use candle_core::{Tensor, Var};
use std::collections::HashMap;

/// The estimates of `Patched`'s cells: `resid[layer][position]`, `heads[layer][head]`, each
/// normalised by the clean and corrupted runs' logit differences.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimated {
    pub resid: Vec<Vec<f32>>,
    pub heads: Vec<Vec<f32>>,
}

/// Adds a zero variable at each block input and each attention `z`, to read M's gradient there.
#[derive(Default)]
struct Zeros {
    vars: HashMap<String, Var>,
}

impl Recorder for Zeros {
    fn enabled(&self) -> bool {
        false
    }
    fn record(&mut self, _: &str, _: &Tensor) -> candle_core::Result<()> {
        Ok(())
    }
    fn edit(&mut self, name: &str, tensor: Tensor) -> candle_core::Result<Tensor> {
        if !(name.ends_with(".resid_pre") || name.ends_with(".attn.z")) {
            return Ok(tensor);
        }
        let zero = Var::from_tensor(&tensor.zeros_like()?)?;
        let out = (&tensor + zero.as_tensor())?;
        self.vars.insert(name.to_string(), zero);
        Ok(out)
    }
}

/// The attribution-patching estimate of patching `clean` into `corrupted` (as many tokens),
/// scored by logit(`answer`) − logit(`wrong`) at the last position and normalised by the two
/// runs' differences `clean_diff` and `corrupted_diff`.
pub fn estimate(
    net: &Transformer,
    clean: &Cache,
    corrupted: &Cache,
    corrupted_ids: &[u32],
    (answer, wrong): (u32, u32),
    (clean_diff, corrupted_diff): (f32, f32),
) -> Result<Estimated> {
    let twin = net.differentiable();
    let mut zeros = Zeros::default();
    let logits = twin.forward(corrupted_ids, &mut zeros)?;
    let last = logits.get(corrupted_ids.len() - 1)?;
    let metric = (last.get(answer as usize)? - last.get(wrong as usize)?)?;
    let grads = metric.backward()?;
    let scale = f64::from(clean_diff - corrupted_diff);
    let (layers, t) = (net.blocks().len(), corrupted_ids.len());
    let mut out = Estimated {
        resid: Vec::with_capacity(layers),
        heads: Vec::with_capacity(layers),
    };
    for layer in 0..layers {
        // (clean − corrupted) · gradient, summed over the last dimension.
        let moved = |name: &str| -> Result<Tensor> {
            let var = zeros.vars.get(name).expect("every hook point was edited");
            let grad = grads.get(var.as_tensor()).cloned();
            let grad = match grad {
                Some(g) => g,
                None => var.as_tensor().zeros_like()?,
            };
            let delta = (clean.get(name)? - corrupted.get(name)?)?;
            Ok((delta * grad)?.sum(candle_core::D::Minus1)?)
        };
        let resid = moved(&format!("blocks.{layer}.resid_pre"))?.to_vec1::<f32>()?;
        // z: [H, T, dh] → [H, T] → [H]: a head patched at every position.
        let heads = moved(&format!("blocks.{layer}.attn.z"))?
            .sum(candle_core::D::Minus1)?
            .to_vec1::<f32>()?;
        debug_assert_eq!(resid.len(), t);
        let norm = |v: &f32| (f64::from(*v) / scale) as f32;
        out.resid.push(resid.iter().map(norm).collect());
        out.heads.push(heads.iter().map(norm).collect());
    }
    Ok(out)
}
