//! What enters each stack: the token embedding (times √d with `scale_embedding`) plus the
//! positions: Marian's sinusoids (computed, as transformers computes them: the sines of every
//! frequency, then the cosines) or BART's learned rows (from row 2), followed by BART's
//! LayerNorm.

use super::layers::layer_norm;
use crate::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind, BART_POSITION_OFFSET};
use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::norm::TracedNorm;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;

pub struct Embedding {
    tokens: Tensor,
    scale: Option<f64>,
    /// `[positions, d]`: the row of position p is row p.
    positions: Tensor,
    /// BART's `layernorm_embedding`.
    norm: Option<TracedNorm>,
}

impl Embedding {
    /// The embedding of the stack at `vb` (`model.encoder`, `model.decoder`): its own token
    /// embedding where the checkpoint has one, else the `shared` one.
    pub fn load(vb: VarBuilder, config: &Seq2SeqConfig, shared: Tensor) -> Result<Embedding> {
        let (d, n) = (config.d_model, config.max_position_embeddings);
        let tokens = match vb.contains_tensor("embed_tokens.weight") {
            true => vb.get((config.vocab_size, d), "embed_tokens.weight")?,
            false => shared,
        };
        let (positions, norm) = match config.kind {
            Seq2SeqKind::Marian => (sinusoids(n, d)?, None),
            Seq2SeqKind::Bart => {
                let rows = vb.get((n + BART_POSITION_OFFSET, d), "embed_positions.weight")?;
                let rows = rows.narrow(0, BART_POSITION_OFFSET, n)?;
                (
                    rows,
                    Some(layer_norm(vb.pp("layernorm_embedding"), config)?),
                )
            }
        };
        Ok(Embedding {
            tokens,
            scale: config.scale_embedding.then(|| (d as f64).sqrt()),
            positions,
            norm,
        })
    }

    /// The stack's input `[T, d]` for `ids`, recorded as `{stack}.embed`, `{stack}.pos_embed`
    /// and (BART) `{stack}.ln_embed.normalized`.
    pub fn forward(&self, ids: &[u32], stack: &str, rec: &mut dyn Recorder) -> Result<Tensor> {
        let t = ids.len();
        if t > self.positions.dim(0)? {
            return Err(crate::error::ModelError::TooLong {
                name: format!("the {stack}'s text"),
                model: "this encoder-decoder".into(),
                tokens: t,
                generate: 0,
                limit: self.positions.dim(0)?,
            });
        }
        let rows = self
            .tokens
            .index_select(&Tensor::new(ids, &Device::Cpu)?, 0)?
            .to_dtype(DType::F32)?;
        let embed = match self.scale {
            Some(scale) => (rows * scale)?,
            None => rows,
        };
        rec.record(&format!("{stack}.embed"), &embed)?;
        let pos = self.positions.narrow(0, 0, t)?.to_dtype(DType::F32)?;
        rec.record(&format!("{stack}.pos_embed"), &pos)?;
        let x = (embed + pos)?;
        match &self.norm {
            Some(norm) => norm.forward(&x, None, &format!("{stack}.ln_embed"), rec),
            None => Ok(x),
        }
    }
}

/// Marian's sinusoidal table `[n, d]`: row p holds sin(p / 10000^(2i/d)) for i < d/2, then
/// the cosines of the same angles (computed in f64, stored as f32, as transformers does).
pub fn sinusoids(n: usize, d: usize) -> Result<Tensor> {
    let half = d.div_ceil(2);
    let mut values = vec![0f32; n * d];
    for p in 0..n {
        for j in 0..d {
            let i = j / 2;
            let angle = p as f64 / 10000f64.powf(2.0 * i as f64 / d as f64);
            // Even columns j feed the sines (first half), odd ones the cosines.
            if j % 2 == 0 {
                values[p * d + i] = angle.sin() as f32;
            } else {
                values[p * d + half + i] = angle.cos() as f32;
            }
        }
    }
    Ok(Tensor::from_vec(values, (n, d), &Device::Cpu)?)
}
