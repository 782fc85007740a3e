//! Direct logit attribution: each target's logit at the last position split into what each
//! part of the model wrote into the residual stream there, read through the final norm with its
//! scale held at the run's value.
//!
//! The stream after the last block is the sum of what was written into it: the embedding
//! (token, and position where positions are learned), each head's output through its slice of
//! the attention output projection, each projection's bias, and each MLP's output. The final
//! norm with its scale held is linear ([`Norm::held`]), and the unembedding is, so the logit is
//! the sum of each part's share plus the norm's bias; the shares are computed in f64 from the
//! f32 activations, and sum to the model's logit up to its f32 rounding.

pub mod flow;
pub mod quadrature;
pub mod saliency;

use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::norm::Norm;
use crate::transformer::Transformer;
use candle_core::{DType, Tensor};

/// Each target's logit and its shares, `heads[layer][head][target]`, `mlp[layer][target]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attributed {
    pub logit: Vec<f32>,
    pub embed: Vec<f32>,
    pub heads: Vec<Vec<Vec<f32>>>,
    pub mlp: Vec<Vec<f32>>,
    pub bias: Vec<f32>,
}

/// What the forward wrote into the stream at the last position.
#[derive(Default)]
struct Writes {
    /// `embed` and `pos_embed`, summed.
    embed: Option<Vec<f64>>,
    /// Each layer's attention `z` at the last position, `[H, dh]`.
    z: Vec<Tensor>,
    mlp: Vec<Vec<f64>>,
    /// The stream after the last block (the final norm's input).
    last: Vec<f64>,
}

/// The last row of a `[T, d]` tensor (or, for `z` `[H, T, dh]`, each head's last row).
fn last_row(t: &Tensor) -> candle_core::Result<Vec<f64>> {
    let rows = t.dim(0)?;
    t.get(rows - 1)?.to_dtype(DType::F64)?.to_vec1::<f64>()
}

impl Recorder for Writes {
    fn enabled(&self) -> bool {
        // Nothing derived is needed: record what the forward computes anyway.
        false
    }
    fn record(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        if name == "embed" || name == "pos_embed" {
            let row = last_row(tensor)?;
            self.embed = Some(match self.embed.take() {
                Some(sum) => sum.iter().zip(&row).map(|(a, b)| a + b).collect(),
                None => row,
            });
        } else if name.ends_with(".attn.z") {
            let t = tensor.dim(1)?;
            self.z.push(tensor.narrow(1, t - 1, 1)?.squeeze(1)?);
        } else if name.ends_with(".mlp_out") {
            self.mlp.push(last_row(tensor)?);
        } else if name.ends_with(".resid_post") {
            self.last = last_row(tensor)?;
        }
        Ok(())
    }
}

/// The direct logit attribution of `targets` at the last position of the run over `ids`.
pub fn direct_logit_attribution(
    net: &Transformer,
    ids: &[u32],
    targets: &[u32],
) -> Result<Attributed> {
    let mut writes = Writes::default();
    let logits = net.forward(ids, &mut writes)?;
    let last = logits.get(ids.len() - 1)?;
    let norm: &Norm = net.final_norm_layer();
    let embed = writes.embed.clone().unwrap_or_default();
    let heads: Vec<Vec<Vec<f64>>> = (net.blocks().iter().zip(&writes.z))
        .map(|(block, z)| {
            block
                .attention()
                .head_writes(z)?
                .to_dtype(DType::F64)?
                .to_vec2::<f64>()
                .map_err(Into::into)
        })
        .collect::<Result<_>>()?;
    let biases: Vec<Vec<f64>> = (net.blocks().iter())
        .filter_map(|b| b.attention().output_bias())
        .map(|b| b.to_dtype(DType::F64)?.to_vec1::<f64>())
        .collect::<candle_core::Result<_>>()?;
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut out = Attributed {
        logit: Vec::new(),
        embed: Vec::new(),
        heads: vec![vec![Vec::new(); heads.first().map_or(0, Vec::len)]; heads.len()],
        mlp: vec![Vec::new(); writes.mlp.len()],
        bias: Vec::new(),
    };
    for &target in targets {
        let read = (net.lm_head().get(target as usize)?)
            .to_dtype(DType::F64)?
            .to_vec1::<f64>()?;
        let held = norm.held(&writes.last, &read)?;
        let share = |part: &[f64]| dot(part, &held.direction) as f32;
        out.logit
            .push(last.get(target as usize)?.to_scalar::<f32>()?);
        out.embed.push(share(&embed));
        for (l, layer) in heads.iter().enumerate() {
            for (h, write) in layer.iter().enumerate() {
                out.heads[l][h].push(share(write));
            }
        }
        for (l, mlp) in writes.mlp.iter().enumerate() {
            out.mlp[l].push(share(mlp));
        }
        let projections: f64 = biases.iter().map(|b| dot(b, &held.direction)).sum();
        out.bias.push((projections + dot(&held.bias, &read)) as f32);
    }
    Ok(out)
}
