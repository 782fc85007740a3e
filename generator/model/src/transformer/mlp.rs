//! The MLP: GPT-2's widen, activate, narrow; or the Llama family's gated one, where the
//! activated gate multiplies the up projection (SwiGLU with SiLU, GeGLU with GELU).

use crate::activation::Activation;
use crate::config::{DecoderConfig, Gpt2Config};
use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::linear::Affine;
use candle_core::Tensor;
use candle_nn::VarBuilder;
use tracebook_trace::{Derivation, DeriveOp};

#[derive(Clone)]
pub enum Mlp {
    /// `c_proj(act(c_fc(x)))`: traced as `mlp.pre` and `mlp.post`.
    Plain {
        fc: Affine,
        proj: Affine,
        act: Activation,
    },
    /// `down(act(gate(x)) · up(x))`: traced as `mlp.gate`, `mlp.up`, `mlp.act` and `mlp.post`
    /// (`mlp.post` derived as act × up, `mlp.act` as the activation of the gate where the
    /// format has an op for it, so every printed act × up = post holds).
    Gated {
        gate: Affine,
        up: Affine,
        down: Affine,
        act: Activation,
    },
}

impl Mlp {
    /// GPT-2's `h.{layer}.mlp`.
    pub fn gpt2(vb: VarBuilder, config: &Gpt2Config) -> Result<Mlp> {
        let (d, inner) = (config.n_embd, config.inner());
        Ok(Mlp::Plain {
            fc: Affine::conv1d(vb.pp("c_fc"), d, inner)?,
            proj: Affine::conv1d(vb.pp("c_proj"), inner, d)?,
            act: config.activation_function,
        })
    }

    /// A Llama-family `model.layers.{layer}.mlp`.
    pub fn gated(vb: VarBuilder, config: &DecoderConfig) -> Result<Mlp> {
        let (d, inner, bias) = (
            config.hidden_size,
            config.intermediate_size,
            config.mlp_bias,
        );
        Ok(Mlp::Gated {
            gate: Affine::linear(vb.pp("gate_proj"), d, inner, bias)?,
            up: Affine::linear(vb.pp("up_proj"), d, inner, bias)?,
            down: Affine::linear(vb.pp("down_proj"), inner, d, bias)?,
            act: config.activation,
        })
    }

    pub fn forward(&self, x: &Tensor, b: &str, rec: &mut dyn Recorder) -> Result<Tensor> {
        let name = |hook: &str| format!("{b}.mlp.{hook}");
        match self {
            Mlp::Plain { fc, proj, act } => {
                let pre = fc.forward(x)?;
                let pre_name = name("pre");
                rec.record(&pre_name, &pre)?;
                let post = act.apply(&pre)?;
                match act.derive_op() {
                    Some(op) => {
                        rec.derived(&name("post"), &post, Derivation::new(op, &[&pre_name]))?
                    }
                    None => rec.record(&name("post"), &post)?,
                }
                proj.forward(&post)
            }
            Mlp::Gated {
                gate,
                up,
                down,
                act,
            } => {
                let g = gate.forward(x)?;
                rec.record(&name("gate"), &g)?;
                let u = up.forward(x)?;
                rec.record(&name("up"), &u)?;
                let a = act.apply(&g)?;
                let (gate_name, act_name, up_name) = (name("gate"), name("act"), name("up"));
                match act.derive_op() {
                    Some(op) => rec.derived(&act_name, &a, Derivation::new(op, &[&gate_name]))?,
                    None => rec.record(&act_name, &a)?,
                }
                let post = (a * u)?;
                let product = Derivation::new(DeriveOp::Mul, &[&act_name, &up_name]);
                rec.derived(&name("post"), &post, product)?;
                down.forward(&post)
            }
        }
    }
}
