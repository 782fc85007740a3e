//! The two normalisations: GPT-2's LayerNorm and the Llama family's RMSNorm (Gemma's
//! multiplies by `1 + w`), each recording its statistics beside its output where traced.

use crate::error::Result;
use crate::recorder::Recorder;
use candle_core::{Tensor, D};
use candle_nn::VarBuilder;
use tracebook_trace::{Derivation, DeriveOp};

#[derive(Clone)]
pub enum Norm {
    /// `(x − mean) / √(var + eps) · w + b`.
    Layer {
        weight: Tensor,
        bias: Tensor,
        eps: f64,
    },
    /// `x / √(mean(x²) + eps) · scale`, where `scale` is `w`, or `1 + w` for Gemma.
    Rms { scale: Tensor, eps: f64 },
}

/// A norm and whether the trace records its statistics (`mean`/`std`, or `rms`) beside
/// `normalized`: `ln1` and `ln2` do, `ln_final` records its output only.
#[derive(Clone)]
pub struct TracedNorm {
    pub norm: Norm,
    pub statistics: bool,
}

impl Norm {
    pub fn layer(vb: VarBuilder, d: usize, eps: f64) -> Result<Norm> {
        Ok(Norm::Layer {
            weight: vb.get(d, "weight")?,
            bias: vb.get(d, "bias")?,
            eps,
        })
    }

    /// RMSNorm of width `d`; `unit_offset` for Gemma's `1 + w`.
    pub fn rms(vb: VarBuilder, d: usize, eps: f64, unit_offset: bool) -> Result<Norm> {
        let weight = vb.get(d, "weight")?;
        let scale = if unit_offset { (weight + 1.0)? } else { weight };
        Ok(Norm::Rms { scale, eps })
    }

    /// The normalised `x` over its last dimension, untraced.
    pub fn apply(&self, x: &Tensor) -> Result<Tensor> {
        Ok(match self {
            Norm::Layer { .. } => self.layer_parts(x)?.2,
            Norm::Rms { .. } => self.rms_parts(x)?.1,
        })
    }

    /// Mean, std and output of a LayerNorm.
    fn layer_parts(&self, x: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
        let Norm::Layer { weight, bias, eps } = self else {
            unreachable!("called on a LayerNorm")
        };
        let mean = x.mean_keepdim(D::Minus1)?;
        let centered = x.broadcast_sub(&mean)?;
        let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
        let std = (var + *eps)?.sqrt()?;
        let normalized = centered
            .broadcast_div(&std)?
            .broadcast_mul(weight)?
            .broadcast_add(bias)?;
        Ok((mean, std, normalized))
    }

    /// RMS and output of an RMSNorm.
    fn rms_parts(&self, x: &Tensor) -> Result<(Tensor, Tensor)> {
        let Norm::Rms { scale, eps } = self else {
            unreachable!("called on an RMSNorm")
        };
        let rms = (x.sqr()?.mean_keepdim(D::Minus1)? + *eps)?.sqrt()?;
        let normalized = x.broadcast_div(&rms)?.broadcast_mul(scale)?;
        Ok((rms, normalized))
    }
}

/// A norm with its scale held at one row's value: a linear map, so what each part of the row
/// contributes through it can be told apart (direct logit attribution).
pub struct Held {
    /// The map's weights: the norm's gain over the held scale (centred for a LayerNorm, whose
    /// subtracted mean is then part of the map).
    pub direction: Vec<f64>,
    /// The norm's bias (zeros for RMSNorm).
    pub bias: Vec<f64>,
}

impl Norm {
    /// The norm at the row `x` as a linear map of its input, applied to the reading vector
    /// `read` (an unembedding row): `direction · part` is what `part` of `x` contributes to
    /// `read · norm(x)`, and `bias · read` what the norm's bias does; they sum to it.
    pub fn held(&self, x: &[f64], read: &[f64]) -> Result<Held> {
        let n = x.len() as f64;
        let vec = |t: &Tensor| -> Result<Vec<f64>> {
            Ok(t.to_dtype(candle_core::DType::F64)?.to_vec1::<f64>()?)
        };
        Ok(match self {
            Norm::Layer { weight, bias, eps } => {
                let mean = x.iter().sum::<f64>() / n;
                let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
                let std = (var + eps).sqrt();
                let w: Vec<f64> = (vec(weight)?.iter().zip(read))
                    .map(|(g, u)| g * u / std)
                    .collect();
                // (x − mean(x))·w = x·(w − mean(w)).
                let w_mean = w.iter().sum::<f64>() / n;
                Held {
                    direction: w.iter().map(|v| v - w_mean).collect(),
                    bias: vec(bias)?,
                }
            }
            Norm::Rms { scale, eps } => {
                let rms = (x.iter().map(|v| v * v).sum::<f64>() / n + eps).sqrt();
                Held {
                    direction: (vec(scale)?.iter().zip(read))
                        .map(|(g, u)| g * u / rms)
                        .collect(),
                    bias: vec![0.0; x.len()],
                }
            }
        })
    }
}

impl TracedNorm {
    /// `x` is the tensor the trace calls `input` (None where the trace has no name for it);
    /// `name` is the norm's trace name (`blocks.0.ln1`).
    pub fn forward(
        &self,
        x: &Tensor,
        input: Option<&str>,
        name: &str,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let normalized_name = format!("{name}.normalized");
        let Some(input) = input.filter(|_| rec.enabled()) else {
            let normalized = self.norm.apply(x)?;
            rec.record(&normalized_name, &normalized)?;
            return Ok(normalized);
        };
        match &self.norm {
            Norm::Layer {
                weight, bias, eps, ..
            } => {
                let (mean, std, normalized) = self.norm.layer_parts(x)?;
                let (w, b) = (format!("{name}.w"), format!("{name}.b"));
                rec.parameter(&w, weight)?;
                rec.parameter(&b, bias)?;
                if self.statistics {
                    let stat = |op| Derivation::new(op, &[input]);
                    rec.derived(
                        &format!("{name}.mean"),
                        &mean.squeeze(D::Minus1)?,
                        stat(DeriveOp::Mean),
                    )?;
                    rec.derived(
                        &format!("{name}.std"),
                        &std.squeeze(D::Minus1)?,
                        stat(DeriveOp::Std).with_eps(*eps),
                    )?;
                }
                let how = Derivation::new(DeriveOp::LayerNorm, &[input, &w, &b]).with_eps(*eps);
                rec.derived(&normalized_name, &normalized, how)?;
                Ok(normalized)
            }
            Norm::Rms { .. } => {
                let (rms, normalized) = self.norm.rms_parts(x)?;
                if self.statistics {
                    rec.record(&format!("{name}.rms"), &rms.squeeze(D::Minus1)?)?;
                }
                rec.record(&normalized_name, &normalized)?;
                Ok(normalized)
            }
        }
    }
}
