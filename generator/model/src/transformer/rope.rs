//! Rotary position embeddings as `transformers` applies them: each head's dimension i is
//! paired with i + dh/2 and the pair rotated by position × frequency i.

use crate::error::Result;
use candle_core::{Device, Tensor, D};

/// cos and sin of every position's angles, `[T, dh]` (each frequency twice, as `transformers`
/// concatenates them).
pub struct RopeTables {
    cos: Tensor,
    sin: Tensor,
}

impl RopeTables {
    /// The tables for positions 0..t from the inverse frequencies (dh/2 of them).
    pub fn new(inverse_frequencies: &[f32], t: usize) -> Result<RopeTables> {
        let half = inverse_frequencies.len();
        let mut cos = Vec::with_capacity(t * 2 * half);
        let mut sin = Vec::with_capacity(t * 2 * half);
        for p in 0..t {
            for _ in 0..2 {
                for &f in inverse_frequencies {
                    // transformers multiplies in f32, then takes cos and sin of the f32 angle.
                    let angle = (p as f32 * f) as f64;
                    cos.push(angle.cos() as f32);
                    sin.push(angle.sin() as f32);
                }
            }
        }
        Ok(RopeTables {
            cos: Tensor::from_vec(cos, (t, 2 * half), &Device::Cpu)?,
            sin: Tensor::from_vec(sin, (t, 2 * half), &Device::Cpu)?,
        })
    }

    /// `x·cos + rotate_half(x)·sin` for `x` `[heads, T, dh]`, where rotate_half(x) is
    /// `[−x₂, x₁]` of x's halves.
    pub fn rotate(&self, x: &Tensor) -> Result<Tensor> {
        let half = x.dim(D::Minus1)? / 2;
        let (x1, x2) = (
            x.narrow(D::Minus1, 0, half)?,
            x.narrow(D::Minus1, half, half)?,
        );
        let rotated = Tensor::cat(&[&x2.neg()?, &x1], D::Minus1)?;
        Ok((x.broadcast_mul(&self.cos)? + rotated.broadcast_mul(&self.sin)?)?)
    }
}
