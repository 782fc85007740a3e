//! A projection as checkpoints store it: Hugging Face's Conv1D (GPT-2: weight `[in, out]`) or
//! `nn.Linear` (weight `[out, in]`, bias optional).

use crate::error::Result;
use candle_core::{DType, Tensor};
use candle_nn::VarBuilder;

#[derive(Clone)]
pub enum Affine {
    /// `x·W + b`, W `[in, out]`.
    Conv1D { weight: Tensor, bias: Tensor },
    /// `x·Wᵀ (+ b)`, W `[out, in]`.
    Linear {
        weight: Tensor,
        bias: Option<Tensor>,
    },
}

impl Affine {
    pub fn conv1d(vb: VarBuilder, inputs: usize, outputs: usize) -> Result<Affine> {
        Ok(Affine::Conv1D {
            weight: vb.get((inputs, outputs), "weight")?,
            bias: vb.get(outputs, "bias")?,
        })
    }

    pub fn linear(vb: VarBuilder, inputs: usize, outputs: usize, bias: bool) -> Result<Affine> {
        Ok(Affine::Linear {
            weight: vb.get((outputs, inputs), "weight")?,
            bias: if bias {
                Some(vb.get(outputs, "bias")?)
            } else {
                None
            },
        })
    }

    /// `x` `[T, in]` to `[T, out]`. A weight stored in half precision is converted to f32
    /// here, for this product only (exactly: every f16 and bf16 value is an f32 value).
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(match self {
            Affine::Conv1D { weight, bias } => x
                .matmul(&weight.to_dtype(DType::F32)?)?
                .broadcast_add(bias)?,
            Affine::Linear { weight, bias } => {
                let y = x.matmul(&weight.to_dtype(DType::F32)?.t()?)?;
                match bias {
                    Some(b) => y.broadcast_add(b)?,
                    None => y,
                }
            }
        })
    }

    /// The weight as `[in, out]` in f32, whichever way the checkpoint stores it.
    pub fn weight_in_out(&self) -> Result<Tensor> {
        Ok(match self {
            Affine::Conv1D { weight, .. } => weight.to_dtype(DType::F32)?,
            Affine::Linear { weight, .. } => weight.to_dtype(DType::F32)?.t()?.contiguous()?,
        })
    }

    /// The bias, where there is one.
    pub fn bias(&self) -> Option<&Tensor> {
        match self {
            Affine::Conv1D { bias, .. } => Some(bias),
            Affine::Linear { bias, .. } => bias.as_ref(),
        }
    }
}
