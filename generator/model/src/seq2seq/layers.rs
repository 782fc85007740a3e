//! The post-norm layers of Marian and BART, each sublayer's residual sum normalised:
//!
//! - encoder: `resid_mid = resid_pre + attn(resid_pre)`, `ln1`; `resid_post = ln1 + mlp(ln1)`,
//!   `ln2` (the layer's output);
//! - decoder: the same with cross-attention between: `resid_mid = resid_pre +
//!   self_attn(resid_pre)`, `ln1`; `resid_cross = ln1 + cross_attn(ln1, encoder output)`,
//!   `ln_cross`; `resid_post = ln_cross + mlp(ln_cross)`, `ln2`.
//!
//! Attention tensors are `{b}.attn.*` (encoder), `{b}.self_attn.*` and `{b}.cross_attn.*`
//! (decoder; the cross pattern is `[H, T, S]`, target × source).

use crate::config::seq2seq::{Seq2SeqConfig, LAYER_NORM_EPS};
use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::attention::{Attention, Context};
use crate::transformer::linear::Affine;
use crate::transformer::mlp::Mlp;
use crate::transformer::norm::{Norm, TracedNorm};
use candle_core::Tensor;
use candle_nn::VarBuilder;

pub struct EncoderLayer {
    attn: Attention,
    ln1: TracedNorm,
    mlp: Mlp,
    ln2: TracedNorm,
}

pub struct DecoderLayer {
    self_attn: Attention,
    ln1: TracedNorm,
    cross_attn: Attention,
    ln_cross: TracedNorm,
    mlp: Mlp,
    ln2: TracedNorm,
}

/// `fc2(act(fc1(x)))`, traced as `mlp.pre` and `mlp.post`.
fn mlp(vb: &VarBuilder, config: &Seq2SeqConfig, inner: usize) -> Result<Mlp> {
    let d = config.d_model;
    Ok(Mlp::Plain {
        fc: Affine::linear(vb.pp("fc1"), d, inner, true)?,
        proj: Affine::linear(vb.pp("fc2"), inner, d, true)?,
        act: config.activation,
    })
}

/// `x + sublayer`, recorded as `name`, then its norm (recorded as `norm_name`).
fn add_and_norm(
    x: &Tensor,
    out: &Tensor,
    (name, norm, norm_name): (&str, &TracedNorm, &str),
    rec: &mut dyn Recorder,
) -> Result<Tensor> {
    let sum = (x + out)?;
    rec.record(name, &sum)?;
    norm.forward(&sum, Some(name), norm_name, rec)
}

impl EncoderLayer {
    /// `model.encoder.layers.{l}`; `train`: every step differentiable.
    pub fn load(vb: VarBuilder, config: &Seq2SeqConfig, train: bool) -> Result<EncoderLayer> {
        let shape = (config.d_model, config.encoder_attention_heads);
        Ok(EncoderLayer {
            attn: Attention::seq2seq(vb.pp("self_attn"), shape, false, train)?,
            ln1: layer_norm(vb.pp("self_attn_layer_norm"), config)?,
            mlp: mlp(&vb, config, config.encoder_ffn_dim)?,
            ln2: layer_norm(vb.pp("final_layer_norm"), config)?,
        })
    }

    /// The layer on `x` `[S, d]`; `b` is its trace name (`encoder.blocks.0`).
    pub fn forward(
        &self,
        x: &Tensor,
        ctx: &Context,
        b: &str,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let at = |hook: &str| format!("{b}.{hook}");
        rec.record(&at("resid_pre"), x)?;
        let attn_out = self.attn.attend(x, None, ctx, &at("attn"), rec)?;
        rec.record(&at("attn_out"), &attn_out)?;
        let x = add_and_norm(x, &attn_out, (&at("resid_mid"), &self.ln1, &at("ln1")), rec)?;
        let mlp_out = self.mlp.forward(&x, b, rec)?;
        rec.record(&at("mlp_out"), &mlp_out)?;
        add_and_norm(
            &x,
            &mlp_out,
            (&at("resid_post"), &self.ln2, &at("ln2")),
            rec,
        )
    }
}

impl DecoderLayer {
    /// `model.decoder.layers.{l}`; `train`: every step differentiable.
    pub fn load(vb: VarBuilder, config: &Seq2SeqConfig, train: bool) -> Result<DecoderLayer> {
        let shape = (config.d_model, config.decoder_attention_heads);
        Ok(DecoderLayer {
            self_attn: Attention::seq2seq(vb.pp("self_attn"), shape, true, train)?,
            ln1: layer_norm(vb.pp("self_attn_layer_norm"), config)?,
            cross_attn: Attention::seq2seq(vb.pp("encoder_attn"), shape, false, train)?,
            ln_cross: layer_norm(vb.pp("encoder_attn_layer_norm"), config)?,
            mlp: mlp(&vb, config, config.decoder_ffn_dim)?,
            ln2: layer_norm(vb.pp("final_layer_norm"), config)?,
        })
    }

    /// The layer on `x` `[T, d]` with the encoder's output `memory` `[S, d]`; `b` is its
    /// trace name (`decoder.blocks.0`).
    pub fn forward(
        &self,
        x: &Tensor,
        memory: &Tensor,
        ctx: &Context,
        b: &str,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let at = |hook: &str| format!("{b}.{hook}");
        rec.record(&at("resid_pre"), x)?;
        let self_out = self.self_attn.attend(x, None, ctx, &at("self_attn"), rec)?;
        rec.record(&at("self_attn_out"), &self_out)?;
        let x = add_and_norm(x, &self_out, (&at("resid_mid"), &self.ln1, &at("ln1")), rec)?;
        let cross_out = self
            .cross_attn
            .attend(&x, Some(memory), ctx, &at("cross_attn"), rec)?;
        rec.record(&at("cross_attn_out"), &cross_out)?;
        let x = add_and_norm(
            &x,
            &cross_out,
            (&at("resid_cross"), &self.ln_cross, &at("ln_cross")),
            rec,
        )?;
        let mlp_out = self.mlp.forward(&x, b, rec)?;
        rec.record(&at("mlp_out"), &mlp_out)?;
        add_and_norm(
            &x,
            &mlp_out,
            (&at("resid_post"), &self.ln2, &at("ln2")),
            rec,
        )
    }
}

/// LayerNorm of the model's width by `vb`'s names (`weight`, `bias`).
pub fn layer_norm(vb: VarBuilder, config: &Seq2SeqConfig) -> Result<TracedNorm> {
    Ok(TracedNorm {
        norm: Norm::layer(vb, config.d_model, LAYER_NORM_EPS)?,
        statistics: false,
    })
}
