//! Attention, one piece of code for every family: q, k and v from one fused projection (GPT-2)
//! or three (Llama family, with fewer key/value heads than query heads when attention is
//! grouped; BART and Marian), an optional RMSNorm per head of q and k (Qwen3), an optional
//! rotation (RoPE), a causal or sliding-window mask or none (an encoder's self-attention), and
//! keys and values from the sequence itself or from another (a decoder's cross-attention over
//! the encoder's output); softmax, the heads' mix and the output projection.

use crate::config::{DecoderConfig, Gpt2Config};
use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::linear::Affine;
use crate::transformer::norm::Norm;
use crate::transformer::rope::RopeTables;
use candle_core::{Device, Tensor, D};
use candle_nn::VarBuilder;
use tracebook_trace::{Derivation, DeriveOp};

#[derive(Clone)]
enum Projections {
    /// GPT-2's `c_attn`: `[d, 3d]`, q then k then v.
    Fused(Affine),
    Separate {
        q: Affine,
        k: Affine,
        v: Affine,
    },
}

#[derive(Clone)]
pub struct Attention {
    projections: Projections,
    out: Affine,
    n_head: usize,
    n_kv: usize,
    head_dim: usize,
    /// What `q·k` is multiplied by.
    scale: f64,
    /// Qwen3's RMSNorm over each head of q and of k, before the rotation.
    qk_norm: Option<(Norm, Norm)>,
    /// Keys a query sees at most (itself included); None: every earlier one.
    window: Option<usize>,
    /// Whether a query sees only the keys up to its own position (every decoder's
    /// self-attention); an encoder's sees every key.
    causal: bool,
    /// candle's fused softmax kernel has no backward pass; training uses the composed one.
    differentiable: bool,
}

/// What every layer's attention shares in one forward pass.
pub struct Context {
    /// The causal mask `[T, T]`: 0 where a query may look, −∞ above the diagonal.
    pub causal: Tensor,
    /// cos and sin of the positions, for a rotary model.
    pub rope: Option<RopeTables>,
    /// Sequences of the same length run at once, their rows stacked: `[batch × T, d]`.
    pub batch: usize,
}

impl Attention {
    /// GPT-2's `h.{layer}.attn`: the fused q/k/v projection and the output projection.
    pub fn gpt2(
        vb: VarBuilder,
        config: &Gpt2Config,
        layer: usize,
        differentiable: bool,
    ) -> Result<Self> {
        let d = config.n_embd;
        Ok(Self {
            projections: Projections::Fused(Affine::conv1d(vb.pp("c_attn"), d, 3 * d)?),
            out: Affine::conv1d(vb.pp("c_proj"), d, d)?,
            n_head: config.n_head,
            n_kv: config.n_head,
            head_dim: config.head_dim(),
            scale: config.attention_scale(layer),
            qk_norm: None,
            window: None,
            causal: true,
            differentiable,
        })
    }

    /// A BART or Marian attention (`self_attn`, `encoder_attn`): q, k, v and output
    /// projections, all with biases, `heads` heads over the width `d`; `causal` for a decoder's
    /// self-attention; `differentiable` for training.
    pub fn seq2seq(
        vb: VarBuilder,
        (d, heads): (usize, usize),
        causal: bool,
        differentiable: bool,
    ) -> Result<Self> {
        let dh = d / heads;
        Ok(Self {
            projections: Projections::Separate {
                q: Affine::linear(vb.pp("q_proj"), d, d, true)?,
                k: Affine::linear(vb.pp("k_proj"), d, d, true)?,
                v: Affine::linear(vb.pp("v_proj"), d, d, true)?,
            },
            out: Affine::linear(vb.pp("out_proj"), d, d, true)?,
            n_head: heads,
            n_kv: heads,
            head_dim: dh,
            scale: 1.0 / (dh as f64).sqrt(),
            qk_norm: None,
            window: None,
            causal,
            differentiable,
        })
    }

    /// A Llama-family `model.layers.{layer}.self_attn`.
    pub fn decoder(
        vb: VarBuilder,
        config: &DecoderConfig,
        layer: usize,
        differentiable: bool,
    ) -> Result<Self> {
        let (d, dh) = (config.hidden_size, config.head_dim);
        let (h, kv) = (config.num_attention_heads, config.num_key_value_heads);
        let bias = config.qkv_bias;
        let qk_norm = match config.qk_norm {
            true => Some((
                Norm::rms(vb.pp("q_norm"), dh, config.rms_norm_eps, false)?,
                Norm::rms(vb.pp("k_norm"), dh, config.rms_norm_eps, false)?,
            )),
            false => None,
        };
        Ok(Self {
            projections: Projections::Separate {
                q: Affine::linear(vb.pp("q_proj"), d, h * dh, bias)?,
                k: Affine::linear(vb.pp("k_proj"), d, kv * dh, bias)?,
                v: Affine::linear(vb.pp("v_proj"), d, kv * dh, bias)?,
            },
            out: Affine::linear(vb.pp("o_proj"), h * dh, d, config.o_bias)?,
            n_head: h,
            n_kv: kv,
            head_dim: dh,
            scale: config.attention_scale(),
            qk_norm,
            window: config.windows[layer],
            causal: true,
            differentiable,
        })
    }

    /// q `[B × H, T, dh]` for `x` `[B × T, d]`, and k and v `[B × H_kv, S, dh]` for `source`
    /// `[B × S, d]` (`x` itself in self-attention), before any norm or rotation.
    fn project(
        &self,
        x: &Tensor,
        source: Option<&Tensor>,
        batch: usize,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        let dh = self.head_dim;
        let heads = |y: &Tensor, n: usize| -> Result<Tensor> {
            let t = y.dim(0)? / batch;
            Ok(y.reshape((batch, t, n, dh))?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((batch * n, t, dh))?)
        };
        Ok(match (&self.projections, source) {
            (Projections::Fused(c_attn), None) => {
                let qkv = c_attn.forward(x)?;
                let w = self.n_head * dh;
                let part = |i: usize| heads(&qkv.narrow(1, i * w, w)?, self.n_head);
                (part(0)?, part(1)?, part(2)?)
            }
            (Projections::Fused(_), Some(_)) => {
                unreachable!("GPT-2's fused projection attends to its own sequence only")
            }
            (Projections::Separate { q, k, v }, source) => {
                let source = source.unwrap_or(x);
                (
                    heads(&q.forward(x)?, self.n_head)?,
                    heads(&k.forward(source)?, self.n_kv)?,
                    heads(&v.forward(source)?, self.n_kv)?,
                )
            }
        })
    }

    /// The key/value heads repeated so that query head h meets key/value head h / group.
    fn shared(&self, x: Tensor) -> Result<Tensor> {
        if self.n_kv == self.n_head {
            return Ok(x);
        }
        let (kv, t, dh) = x.dims3()?;
        let group = self.n_head / self.n_kv;
        Ok(x.unsqueeze(1)?
            .broadcast_as((kv, group, t, dh))?
            .reshape((kv * group, t, dh))?)
    }

    /// Self-attention over `x` `[B × T, d]`; `b` is the block's trace name (`blocks.0`), and
    /// the tensors are recorded as `{b}.attn.*`.
    pub fn forward(
        &self,
        x: &Tensor,
        ctx: &Context,
        b: &str,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        self.attend(x, None, ctx, &format!("{b}.attn"), rec)
    }

    /// Attention from `x` `[B × T, d]` to `source` `[B × S, d]`: self-attention when `source`
    /// is None, else cross-attention (keys and values from `source`, every key seen). The
    /// tensors are recorded as `{prefix}.*` (`decoder.blocks.0.cross_attn.pattern`).
    pub fn attend(
        &self,
        x: &Tensor,
        source: Option<&Tensor>,
        ctx: &Context,
        prefix: &str,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let batch = ctx.batch;
        let t = x.dim(0)? / batch;
        let (mut q, mut k, v) = self.project(x, source, batch)?;
        let name = |hook: &str| format!("{prefix}.{hook}");
        if let Some((q_norm, k_norm)) = &self.qk_norm {
            q = q_norm.apply(&q)?;
            k = k_norm.apply(&k)?;
        }
        if let Some(rope) = &ctx.rope {
            rec.record(&name("q_unrotated"), &q)?;
            rec.record(&name("k_unrotated"), &k)?;
            q = rope.rotate(&q)?;
            k = rope.rotate(&k)?;
        }
        let (qn, kn, vn) = (name("q"), name("k"), name("v"));
        rec.record(&qn, &q)?;
        rec.record(&kn, &k)?;
        rec.record(&vn, &v)?;
        let grouped = self.n_kv != self.n_head;
        let (k, v) = (self.shared(k)?, self.shared(v)?);
        let scores = (q.matmul(&k.t()?)? * self.scale)?;
        let (sn, pn) = (name("scores"), name("pattern"));
        if grouped {
            rec.record(&sn, &scores)?;
        } else {
            let dot = Derivation::new(DeriveOp::Dot, &[&qn, &kn]).with_scale(self.scale as f32);
            rec.derived(&sn, &scores, dot)?;
        }
        let causal = self.causal && source.is_none();
        let windowed = self.window.filter(|&w| w < t && causal);
        let masked = match (windowed, causal) {
            (Some(w), _) => scores.broadcast_add(&sliding_mask(t, w)?)?,
            (None, true) => scores.broadcast_add(&ctx.causal)?,
            (None, false) => scores,
        };
        let pattern = if self.differentiable {
            candle_nn::ops::softmax(&masked, D::Minus1)?
        } else {
            candle_nn::ops::softmax_last_dim(&masked)?
        };
        match (windowed, causal) {
            (None, true) => rec.derived(
                &pn,
                &pattern,
                Derivation::new(DeriveOp::CausalSoftmax, &[&sn]),
            )?,
            _ => rec.record(&pn, &pattern)?,
        }
        let z = pattern.matmul(&v)?;
        if grouped {
            rec.record(&name("z"), &z)?;
        } else {
            let how = Derivation::new(DeriveOp::Matmul, &[&pn, &vn]);
            rec.derived(&name("z"), &z, how)?;
        }
        let z = rec.edit(&name("z"), z)?;
        let merged = z
            .reshape((batch, self.n_head, t, self.head_dim))?
            .transpose(1, 2)?
            .reshape((batch * t, self.n_head * self.head_dim))?;
        self.out.forward(&merged)
    }
}

impl Attention {
    /// The same attention with its softmax differentiable (or not).
    pub fn with_differentiable(&self, differentiable: bool) -> Attention {
        Attention {
            differentiable,
            ..self.clone()
        }
    }

    /// What each head writes into the residual stream from its output `z` at one position
    /// (`[H, dh]`): its slice of the output projection, without the projection's bias, as
    /// `[H, d]`. The heads' writes plus [`Attention::output_bias`] are the attention's output.
    pub fn head_writes(&self, z: &Tensor) -> Result<Tensor> {
        let w = self.out.weight_in_out()?;
        let d = w.dim(1)?;
        let per_head = w.reshape((self.n_head, self.head_dim, d))?;
        Ok(z.unsqueeze(1)?.matmul(&per_head)?.squeeze(1)?)
    }

    /// What each head would write from every position's value vector: `v` as the forward
    /// records it (`[kv heads, T, dh]`), each key/value head shared by its query heads, through
    /// each head's slice of the output projection, as `[H, T, d]`. Weighted by the head's
    /// attention pattern and summed over positions, these are [`Attention::head_writes`].
    pub fn value_writes(&self, v: &Tensor) -> Result<Tensor> {
        let v = self.shared(v.clone())?;
        let w = self.out.weight_in_out()?;
        let d = w.dim(1)?;
        let per_head = w.reshape((self.n_head, self.head_dim, d))?;
        Ok(v.contiguous()?.matmul(&per_head)?)
    }

    /// The output projection's bias (GPT-2's `c_proj.bias`), where it has one.
    pub fn output_bias(&self) -> Option<&Tensor> {
        self.out.bias()
    }
}

/// 0 where a query may look (key position ≤ query position), −∞ above the diagonal.
pub fn causal_mask(t: usize) -> Result<Tensor> {
    sliding_mask(t, t)
}

/// 0 where key j is one of the `window` latest up to query i (i − window < j ≤ i), else −∞.
fn sliding_mask(t: usize, window: usize) -> Result<Tensor> {
    let values: Vec<f32> = (0..t)
        .flat_map(|i| {
            (0..t).map(move |j| {
                if j <= i && i - j < window {
                    0.0
                } else {
                    f32::NEG_INFINITY
                }
            })
        })
        .collect();
    Ok(Tensor::from_vec(values, (t, t), &Device::Cpu)?)
}
