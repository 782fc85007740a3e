//! One transformer block, pre-norm as in every family tracebook traces:
//! `resid_mid = resid_pre + attn(norm1(resid_pre))`, `resid_post = resid_mid + mlp(norm2(resid_mid))`.

use crate::config::{DecoderConfig, Gpt2Config};
use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::attention::{Attention, Context};
use crate::transformer::mlp::Mlp;
use crate::transformer::norm::{Norm, TracedNorm};
use candle_core::Tensor;
use candle_nn::VarBuilder;
use tracebook_trace::{Derivation, DeriveOp};

#[derive(Clone)]
pub struct Block {
    ln_1: TracedNorm,
    attn: Attention,
    ln_2: TracedNorm,
    mlp: Mlp,
}

impl Block {
    /// GPT-2's `h.{layer}`.
    pub fn gpt2(
        vb: VarBuilder,
        layer: usize,
        config: &Gpt2Config,
        differentiable: bool,
    ) -> Result<Self> {
        let (d, eps) = (config.n_embd, config.layer_norm_epsilon);
        let norm = |name: &str| -> Result<TracedNorm> {
            Ok(TracedNorm {
                norm: Norm::layer(vb.pp(name), d, eps)?,
                statistics: true,
            })
        };
        Ok(Self {
            ln_1: norm("ln_1")?,
            attn: Attention::gpt2(vb.pp("attn"), config, layer, differentiable)?,
            ln_2: norm("ln_2")?,
            mlp: Mlp::gpt2(vb.pp("mlp"), config)?,
        })
    }

    /// A Llama-family `model.layers.{layer}`.
    pub fn decoder(
        vb: VarBuilder,
        layer: usize,
        config: &DecoderConfig,
        differentiable: bool,
    ) -> Result<Self> {
        let (d, eps) = (config.hidden_size, config.rms_norm_eps);
        let norm = |name: &str| -> Result<TracedNorm> {
            Ok(TracedNorm {
                norm: Norm::rms(vb.pp(name), d, eps, config.gemma_norm)?,
                statistics: true,
            })
        };
        Ok(Self {
            ln_1: norm("input_layernorm")?,
            attn: Attention::decoder(vb.pp("self_attn"), config, layer, differentiable)?,
            ln_2: norm("post_attention_layernorm")?,
            mlp: Mlp::gated(vb.pp("mlp"), config)?,
        })
    }

    /// The same block with its attention's softmax differentiable (weights shared).
    pub fn differentiable(&self) -> Block {
        Block {
            attn: self.attn.with_differentiable(true),
            ..self.clone()
        }
    }

    /// The block's attention.
    pub fn attention(&self) -> &Attention {
        &self.attn
    }

    /// Block `l` on the stream `x`; `input` names what block 0's stream is the sum of.
    pub fn forward(
        &self,
        x: &Tensor,
        ctx: &Context,
        l: usize,
        input: &[&str],
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let b = format!("blocks.{l}");
        let at = |hook: &str| format!("{b}.{hook}");
        let sum = |from: &[&str]| Derivation::new(DeriveOp::Sum, from);
        let (pre, mid, post) = (at("resid_pre"), at("resid_mid"), at("resid_post"));
        let input = match l {
            0 => sum(input),
            _ => sum(&[&format!("blocks.{}.resid_post", l - 1)]),
        };
        rec.derived(&pre, x, input)?;
        let x = &rec.edit(&pre, x.clone())?;
        let ln1 = self.ln_1.forward(x, Some(&pre), &at("ln1"), rec)?;
        let attn_out = self.attn.forward(&ln1, ctx, &b, rec)?;
        rec.record(&at("attn_out"), &attn_out)?;
        let resid_mid = (x + attn_out)?;
        rec.derived(&mid, &resid_mid, sum(&[&pre, &at("attn_out")]))?;
        let ln2 = self.ln_2.forward(&resid_mid, Some(&mid), &at("ln2"), rec)?;
        let mlp_out = self.mlp.forward(&ln2, &b, rec)?;
        rec.record(&at("mlp_out"), &mlp_out)?;
        let mlp_out = rec.edit(&at("mlp_out"), mlp_out)?;
        let resid_post = (resid_mid + mlp_out)?;
        rec.derived(&post, &resid_post, sum(&[&mid, &at("mlp_out")]))?;
        Ok(resid_post)
    }
}
