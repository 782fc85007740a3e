//! The GPT-2 forward pass, written once: a recorder sees every intermediate tensor.
//!
//! Shapes follow the trace table: `T` tokens, `d` width, `H` heads, `dh = d / H`; one sequence.

use crate::activation::Activation;
use crate::config::Gpt2Config;
use crate::error::Result;
use crate::recorder::Recorder;
use crate::weights::Weights;
use candle_core::{Device, Tensor, D};
use candle_nn::VarBuilder;
use tracebook_trace::{Derivation, DeriveOp};

/// LayerNorm with its statistics exposed, as `ln1` and `ln2` are traced (`ln_final` records
/// its output only).
struct LayerNorm {
    weight: Tensor,
    bias: Tensor,
    eps: f64,
    /// Record `mean` and `std` beside `normalized`.
    statistics: bool,
}

impl LayerNorm {
    fn load(vb: VarBuilder, d: usize, eps: f64, statistics: bool) -> Result<Self> {
        Ok(Self {
            weight: vb.get(d, "weight")?,
            bias: vb.get(d, "bias")?,
            eps,
            statistics,
        })
    }

    /// `x` is the tensor the trace calls `input` (None where the trace has no name for it).
    fn forward(
        &self,
        x: &Tensor,
        input: Option<&str>,
        name: &str,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let mean = x.mean_keepdim(D::Minus1)?;
        let centered = x.broadcast_sub(&mean)?;
        let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
        let std = (var + self.eps)?.sqrt()?;
        let normalized = centered
            .broadcast_div(&std)?
            .broadcast_mul(&self.weight)?
            .broadcast_add(&self.bias)?;
        let Some(input) = input.filter(|_| rec.enabled()) else {
            rec.record(&format!("{name}.normalized"), &normalized)?;
            return Ok(normalized);
        };
        let (w, b) = (format!("{name}.w"), format!("{name}.b"));
        rec.parameter(&w, &self.weight)?;
        rec.parameter(&b, &self.bias)?;
        let eps = self.eps;
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
                stat(DeriveOp::Std).with_eps(eps),
            )?;
        }
        let how = Derivation::new(DeriveOp::LayerNorm, &[input, &w, &b]).with_eps(eps);
        rec.derived(&format!("{name}.normalized"), &normalized, how)?;
        Ok(normalized)
    }
}

/// Hugging Face's Conv1D: weight stored as [in, out], so y = x·W + b.
struct Conv1D {
    weight: Tensor,
    bias: Tensor,
}

impl Conv1D {
    fn load(vb: VarBuilder, inputs: usize, outputs: usize) -> Result<Self> {
        Ok(Self {
            weight: vb.get((inputs, outputs), "weight")?,
            bias: vb.get(outputs, "bias")?,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(x.matmul(&self.weight)?.broadcast_add(&self.bias)?)
    }
}

struct Attention {
    c_attn: Conv1D,
    c_proj: Conv1D,
    n_head: usize,
    /// What `q·k` is multiplied by (see `Gpt2Config::attention_scale`).
    scale: f64,
    /// candle's fused softmax kernel has no backward pass; training uses the composed one.
    differentiable: bool,
}

impl Attention {
    /// `h.{layer}.attn`: the fused q/k/v projection and the output projection.
    fn load(
        vb: VarBuilder,
        config: &Gpt2Config,
        layer: usize,
        differentiable: bool,
    ) -> Result<Self> {
        let d = config.n_embd;
        Ok(Self {
            c_attn: Conv1D::load(vb.pp("c_attn"), d, 3 * d)?,
            c_proj: Conv1D::load(vb.pp("c_proj"), d, d)?,
            n_head: config.n_head,
            scale: config.attention_scale(layer),
            differentiable,
        })
    }

    fn forward(
        &self,
        x: &Tensor,
        mask: &Tensor,
        b: &str,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let (t, d) = x.dims2()?;
        let dh = d / self.n_head;
        let qkv = self.c_attn.forward(x)?;
        let heads = |i: usize| -> Result<Tensor> {
            Ok(qkv
                .narrow(1, i * d, d)?
                .reshape((t, self.n_head, dh))?
                .transpose(0, 1)?
                .contiguous()?)
        };
        let (q, k, v) = (heads(0)?, heads(1)?, heads(2)?);
        let (qn, kn, vn) = (
            format!("{b}.attn.q"),
            format!("{b}.attn.k"),
            format!("{b}.attn.v"),
        );
        rec.record(&qn, &q)?;
        rec.record(&kn, &k)?;
        rec.record(&vn, &v)?;
        let scores = (q.matmul(&k.t()?)? * self.scale)?;
        let (sn, pn) = (format!("{b}.attn.scores"), format!("{b}.attn.pattern"));
        let dot = Derivation::new(DeriveOp::Dot, &[&qn, &kn]).with_scale(self.scale as f32);
        rec.derived(&sn, &scores, dot)?;
        let masked = scores.broadcast_add(mask)?;
        let pattern = if self.differentiable {
            candle_nn::ops::softmax(&masked, D::Minus1)?
        } else {
            candle_nn::ops::softmax_last_dim(&masked)?
        };
        rec.derived(
            &pn,
            &pattern,
            Derivation::new(DeriveOp::CausalSoftmax, &[&sn]),
        )?;
        let z = pattern.matmul(&v)?;
        rec.derived(
            &format!("{b}.attn.z"),
            &z,
            Derivation::new(DeriveOp::Matmul, &[&pn, &vn]),
        )?;
        let merged = z.transpose(0, 1)?.reshape((t, d))?;
        self.c_proj.forward(&merged)
    }
}

struct Mlp {
    c_fc: Conv1D,
    c_proj: Conv1D,
    act: Activation,
}

impl Mlp {
    /// `h.{layer}.mlp`: the widening and the narrowing projection.
    fn load(vb: VarBuilder, config: &Gpt2Config) -> Result<Self> {
        let (d, inner) = (config.n_embd, config.inner());
        Ok(Self {
            c_fc: Conv1D::load(vb.pp("c_fc"), d, inner)?,
            c_proj: Conv1D::load(vb.pp("c_proj"), inner, d)?,
            act: config.activation_function,
        })
    }

    fn forward(&self, x: &Tensor, b: &str, rec: &mut dyn Recorder) -> Result<Tensor> {
        let pre = self.c_fc.forward(x)?;
        let pre_name = format!("{b}.mlp.pre");
        rec.record(&pre_name, &pre)?;
        let post = self.act.apply(&pre)?;
        let post_name = format!("{b}.mlp.post");
        match self.act.derive_op() {
            Some(op) => rec.derived(&post_name, &post, Derivation::new(op, &[&pre_name]))?,
            None => rec.record(&post_name, &post)?,
        }
        self.c_proj.forward(&post)
    }
}

struct Block {
    ln_1: LayerNorm,
    attn: Attention,
    ln_2: LayerNorm,
    mlp: Mlp,
}

impl Block {
    /// `h.{layer}`.
    fn load(
        vb: VarBuilder,
        layer: usize,
        config: &Gpt2Config,
        differentiable: bool,
    ) -> Result<Self> {
        let (d, eps) = (config.n_embd, config.layer_norm_epsilon);
        Ok(Self {
            ln_1: LayerNorm::load(vb.pp("ln_1"), d, eps, true)?,
            attn: Attention::load(vb.pp("attn"), config, layer, differentiable)?,
            ln_2: LayerNorm::load(vb.pp("ln_2"), d, eps, true)?,
            mlp: Mlp::load(vb.pp("mlp"), config)?,
        })
    }

    fn forward(
        &self,
        x: &Tensor,
        mask: &Tensor,
        l: usize,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let b = format!("blocks.{l}");
        let at = |hook: &str| format!("{b}.{hook}");
        let sum = |from: &[&str]| Derivation::new(DeriveOp::Sum, from);
        let (pre, mid, post) = (at("resid_pre"), at("resid_mid"), at("resid_post"));
        let input = match l {
            0 => sum(&["embed", "pos_embed"]),
            _ => sum(&[&format!("blocks.{}.resid_post", l - 1)]),
        };
        rec.derived(&pre, x, input)?;
        let ln1 = self.ln_1.forward(x, Some(&pre), &at("ln1"), rec)?;
        let attn_out = self.attn.forward(&ln1, mask, &b, rec)?;
        rec.record(&at("attn_out"), &attn_out)?;
        let resid_mid = (x + attn_out)?;
        rec.derived(&mid, &resid_mid, sum(&[&pre, &at("attn_out")]))?;
        let ln2 = self.ln_2.forward(&resid_mid, Some(&mid), &at("ln2"), rec)?;
        let mlp_out = self.mlp.forward(&ln2, &b, rec)?;
        rec.record(&at("mlp_out"), &mlp_out)?;
        let resid_post = (resid_mid + mlp_out)?;
        rec.derived(&post, &resid_post, sum(&[&mid, &at("mlp_out")]))?;
        Ok(resid_post)
    }
}

/// A GPT-2 family language model (GPT2LMHeadModel).
pub struct Gpt2 {
    config: Gpt2Config,
    wte: Tensor,
    /// The unembedding `[V, d]`: `wte` itself when the embeddings are tied (GPT-2), else
    /// the checkpoint's `lm_head.weight`.
    lm_head: Tensor,
    wpe: Tensor,
    blocks: Vec<Block>,
    ln_f: LayerNorm,
}

impl Gpt2 {
    pub fn new(weights: &Weights, config: &Gpt2Config) -> Result<Gpt2> {
        Gpt2::load(weights.var_builder(), config, false)
    }

    /// The same model with every step differentiable, for training: gradients reach every
    /// weight. Its outputs equal `new`'s up to float rounding.
    pub fn trainable(weights: &Weights, config: &Gpt2Config) -> Result<Gpt2> {
        Gpt2::load(weights.var_builder(), config, true)
    }

    /// The model from `vb`, whose names are the checkpoint's canonical ones (`wte.weight`,
    /// `h.0.attn.c_attn.weight`, ...): each part loads itself from its own prefix, with the
    /// shapes `config` implies.
    fn load(vb: VarBuilder, config: &Gpt2Config, differentiable: bool) -> Result<Gpt2> {
        let (d, vocab) = (config.n_embd, config.vocab_size);
        let blocks = (0..config.n_layer)
            .map(|l| Block::load(vb.pp(format!("h.{l}")), l, config, differentiable))
            .collect::<Result<Vec<_>>>()?;
        let wte = vb.get((vocab, d), "wte.weight")?;
        let lm_head = if config.tie_word_embeddings {
            wte.clone()
        } else {
            vb.get((vocab, d), "lm_head.weight")?
        };
        Ok(Gpt2 {
            config: config.clone(),
            wte,
            lm_head,
            wpe: vb.get((config.n_positions, d), "wpe.weight")?,
            blocks,
            // The final LayerNorm is traced by its output only (`ln_final.normalized`).
            ln_f: LayerNorm::load(vb.pp("ln_f"), d, config.layer_norm_epsilon, false)?,
        })
    }

    pub fn config(&self) -> &Gpt2Config {
        &self.config
    }

    /// Logits `[T, V]` for the token ids; `rec` sees every tensor of the trace table except the
    /// logits summaries, which the caller derives from the returned logits.
    pub fn forward(&self, ids: &[u32], rec: &mut dyn Recorder) -> Result<Tensor> {
        let embed = self.token_embeddings(ids)?;
        rec.record("embed", &embed)?;
        let resid = self.residual_stream(&embed, rec)?;
        self.unembed(&resid, rec)
    }

    /// The rows of `wte` for the token ids: `[T, d]`.
    pub fn token_embeddings(&self, ids: &[u32]) -> Result<Tensor> {
        let ids_t = Tensor::new(ids, &Device::Cpu)?;
        Ok(self.wte.index_select(&ids_t, 0)?)
    }

    /// The residual stream after the last block, `[T, d]`, from the token embeddings: adds the
    /// position embeddings and runs every block.
    pub fn residual_stream(&self, embed: &Tensor, rec: &mut dyn Recorder) -> Result<Tensor> {
        let t = embed.dim(0)?;
        let pos_embed = self.wpe.narrow(0, 0, t)?;
        rec.record("pos_embed", &pos_embed)?;
        let mask = causal_mask(t)?;
        let mut x = (embed + pos_embed)?;
        for (l, block) in self.blocks.iter().enumerate() {
            x = block.forward(&x, &mask, l, rec)?;
        }
        Ok(x)
    }

    /// The final LayerNorm of the residual stream: the `[T, d]` states the unembedding reads.
    pub fn final_norm(&self, resid: &Tensor, rec: &mut dyn Recorder) -> Result<Tensor> {
        let last = self.config.n_layer.checked_sub(1);
        let input = last.map(|l| format!("blocks.{l}.resid_post"));
        self.ln_f.forward(resid, input.as_deref(), "ln_final", rec)
    }

    /// The final LayerNorm and the unembedding: residual stream `[T, d]` to logits `[T, V]`.
    /// The logit lens applies it to the stream after every block.
    pub fn unembed(&self, resid: &Tensor, rec: &mut dyn Recorder) -> Result<Tensor> {
        let x = self.final_norm(resid, rec)?;
        Ok(self.lm_head.matmul(&x.t()?)?.t()?)
    }

    /// The token embedding `[V, d]`.
    pub fn wte(&self) -> &Tensor {
        &self.wte
    }

    /// The unembedding `[V, d]` (the token embedding when they are tied).
    pub fn lm_head(&self) -> &Tensor {
        &self.lm_head
    }
}

/// 0 where a query may look (key position ≤ query position), −∞ above the diagonal.
fn causal_mask(t: usize) -> Result<Tensor> {
    let values: Vec<f32> = (0..t)
        .flat_map(|i| (0..t).map(move |j| if j <= i { 0.0 } else { f32::NEG_INFINITY }))
        .collect();
    Ok(Tensor::from_vec(values, (t, t), &Device::Cpu)?)
}
