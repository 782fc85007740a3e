//! The forward pass, written once for every family tracebook traces: GPT-2 (learned positions,
//! LayerNorm, fused q/k/v, plain MLP) and the Llama family (RoPE, RMSNorm, separate and possibly
//! grouped q/k/v, gated MLP). Each part loads itself from the checkpoint's names through candle's
//! `VarBuilder` and a recorder sees every intermediate tensor.
//!
//! Shapes follow the trace table: `T` tokens, `d` width, `H` heads of width `dh`; one sequence.

pub mod attention;
pub mod block;
pub mod linear;
pub mod mlp;
pub mod norm;
pub mod rope;

use crate::config::{DecoderConfig, Gpt2Config, ModelConfig};
use crate::error::Result;
use crate::recorder::Recorder;
use crate::weights::Weights;
use attention::{causal_mask, Context};
use block::Block;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use norm::{Norm, TracedNorm};
use rope::RopeTables;

/// How token positions enter the model.
#[derive(Clone)]
enum Positions {
    /// GPT-2: a learned row per position, added to the token embeddings (`pos_embed`).
    Learned(Tensor),
    /// RoPE: q and k rotated in every layer by these inverse frequencies.
    Rotary(Vec<f32>),
}

/// Rows of a half-precision unembedding converted to f32 at once (16,384 × d: 128 MB at
/// Llama-3.2-1B's width).
const UNEMBED_ROWS: usize = 16_384;

/// A decoder-only language model of any family tracebook traces.
#[derive(Clone)]
pub struct Transformer {
    config: ModelConfig,
    /// The token embedding `[V, d]` (`wte`, `embed_tokens`).
    wte: Tensor,
    /// What the embeddings are multiplied by before the first block (Gemma: √d).
    embed_scale: Option<f64>,
    /// The unembedding `[V, d]`: the token embedding itself when they are tied.
    lm_head: Tensor,
    positions: Positions,
    blocks: Vec<Block>,
    ln_f: TracedNorm,
}

impl Transformer {
    pub fn new(weights: &Weights, config: &ModelConfig) -> Result<Transformer> {
        Transformer::load(weights.var_builder(), config, false)
    }

    /// The same model with every step differentiable, for training: gradients reach every
    /// weight. Its outputs equal `new`'s up to float rounding.
    pub fn trainable(weights: &Weights, config: &ModelConfig) -> Result<Transformer> {
        Transformer::load(weights.var_builder(), config, true)
    }

    /// The same model with every step differentiable, sharing this one's weights (tensors are
    /// reference-counted): gradients reach the inputs, for saliency.
    pub fn differentiable(&self) -> Transformer {
        Transformer {
            blocks: self.blocks.iter().map(Block::differentiable).collect(),
            ..self.clone()
        }
    }

    fn load(vb: VarBuilder, config: &ModelConfig, differentiable: bool) -> Result<Transformer> {
        match config {
            ModelConfig::Gpt2(c) => Transformer::gpt2(vb, c, differentiable),
            ModelConfig::Decoder(c) => Transformer::decoder(vb, c, differentiable),
        }
    }

    /// GPT2LMHeadModel, by the checkpoint's canonical names (`wte.weight`, `h.0.attn...`).
    fn gpt2(vb: VarBuilder, config: &Gpt2Config, differentiable: bool) -> Result<Transformer> {
        let (d, vocab) = (config.n_embd, config.vocab_size);
        let blocks = (0..config.n_layer)
            .map(|l| Block::gpt2(vb.pp(format!("h.{l}")), l, config, differentiable))
            .collect::<Result<Vec<_>>>()?;
        let wte = vb.get((vocab, d), "wte.weight")?;
        let lm_head = if config.tie_word_embeddings {
            wte.clone()
        } else {
            vb.get((vocab, d), "lm_head.weight")?
        };
        Ok(Transformer {
            config: ModelConfig::Gpt2(config.clone()),
            wte,
            embed_scale: None,
            lm_head,
            positions: Positions::Learned(vb.get((config.n_positions, d), "wpe.weight")?),
            blocks,
            ln_f: TracedNorm {
                norm: Norm::layer(vb.pp("ln_f"), d, config.layer_norm_epsilon)?,
                statistics: false,
            },
        })
    }

    /// LlamaForCausalLM and its kin, by their names (`model.embed_tokens.weight`,
    /// `model.layers.0.self_attn.q_proj.weight`, ..., `lm_head.weight`).
    fn decoder(
        vb: VarBuilder,
        config: &DecoderConfig,
        differentiable: bool,
    ) -> Result<Transformer> {
        let (d, vocab) = (config.hidden_size, config.vocab_size);
        let model = vb.pp("model");
        let blocks = (0..config.num_hidden_layers)
            .map(|l| Block::decoder(model.pp(format!("layers.{l}")), l, config, differentiable))
            .collect::<Result<Vec<_>>>()?;
        let wte = model.get((vocab, d), "embed_tokens.weight")?;
        let lm_head = if config.tie_word_embeddings {
            wte.clone()
        } else {
            vb.get((vocab, d), "lm_head.weight")?
        };
        let eps = config.rms_norm_eps;
        Ok(Transformer {
            config: ModelConfig::Decoder(config.clone()),
            wte,
            embed_scale: config.gemma_norm.then(|| (d as f64).sqrt()),
            lm_head,
            positions: Positions::Rotary(config.inverse_frequencies()),
            blocks,
            ln_f: TracedNorm {
                norm: Norm::rms(model.pp("norm"), d, eps, config.gemma_norm)?,
                statistics: false,
            },
        })
    }

    pub fn config(&self) -> &ModelConfig {
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

    /// What each token puts into the residual stream, `[T, d]`: its row of the token
    /// embedding (times √d for Gemma, which scales them).
    pub fn token_embeddings(&self, ids: &[u32]) -> Result<Tensor> {
        let ids_t = Tensor::new(ids, &Device::Cpu)?;
        // The rows as f32 before any scaling (a half-precision table stays as stored).
        let rows = self.wte.index_select(&ids_t, 0)?.to_dtype(DType::F32)?;
        Ok(match self.embed_scale {
            // transformers multiplies by the scale rounded to the weights' float type.
            Some(scale) => (rows * (scale as f32) as f64)?,
            None => rows,
        })
    }

    /// The residual stream after the last block, `[T, d]`, from the token embeddings: adds the
    /// position embeddings (or prepares the rotation) and runs every block.
    pub fn residual_stream(&self, embed: &Tensor, rec: &mut dyn Recorder) -> Result<Tensor> {
        let t = embed.dim(0)?;
        let x = match &self.positions {
            Positions::Learned(wpe) => {
                let pos_embed = wpe.narrow(0, 0, t)?.to_dtype(DType::F32)?;
                rec.record("pos_embed", &pos_embed)?;
                (embed + pos_embed)?
            }
            Positions::Rotary(_) => embed.clone(),
        };
        self.run_blocks(0, &x, 1, rec)
    }

    /// The streams entering block 0 of `batch` sequences of the same tokens, from their token
    /// embeddings stacked as rows (`[batch × T, d]`): the position rows added to each where
    /// positions are learned (rotary positions enter in every layer instead).
    pub fn with_positions(&self, embed: &Tensor, batch: usize) -> Result<Tensor> {
        let t = embed.dim(0)? / batch;
        Ok(match &self.positions {
            Positions::Learned(wpe) => {
                let rows = wpe.narrow(0, 0, t)?.to_dtype(DType::F32)?;
                embed.broadcast_add(&rows.repeat((batch, 1))?)?
            }
            Positions::Rotary(_) => embed.clone(),
        })
    }

    /// Blocks `first..` on `x`, the streams entering block `first` of `batch` sequences of the
    /// same length stacked as rows (`[batch × T, d]`): the streams after the last block.
    /// Interventions run many edited copies of one prompt this way at once.
    pub fn run_blocks(
        &self,
        first: usize,
        x: &Tensor,
        batch: usize,
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let t = x.dim(0)? / batch;
        let ctx = Context {
            causal: causal_mask(t)?,
            rope: match &self.positions {
                Positions::Rotary(freqs) => Some(RopeTables::new(freqs, t)?),
                Positions::Learned(_) => None,
            },
            batch,
        };
        let input: &[&str] = match &self.positions {
            Positions::Learned(_) => &["embed", "pos_embed"],
            Positions::Rotary(_) => &["embed"],
        };
        let mut x = x.clone();
        for (l, block) in self.blocks.iter().enumerate().skip(first) {
            x = block.forward(&x, &ctx, l, input, rec)?;
        }
        Ok(x)
    }

    /// The next-token logits `[batch, V]` of `batch` stacked sequences from their streams
    /// after the last block (`[batch × T, d]`): the final norm and unembedding of each
    /// sequence's last row.
    pub fn next_token_logits(&self, resid: &Tensor, batch: usize) -> Result<Tensor> {
        let t = resid.dim(0)? / batch;
        let last = Tensor::new(
            (0..batch)
                .map(|b| (b * t + t - 1) as u32)
                .collect::<Vec<_>>(),
            &Device::Cpu,
        )?;
        let rows = resid.index_select(&last, 0)?;
        self.unembed(&rows, &mut crate::recorder::NoRecorder)
    }

    /// The final norm of the residual stream: the `[T, d]` states the unembedding reads.
    pub fn final_norm(&self, resid: &Tensor, rec: &mut dyn Recorder) -> Result<Tensor> {
        let last = self.blocks.len().checked_sub(1);
        let input = last.map(|l| format!("blocks.{l}.resid_post"));
        self.ln_f.forward(resid, input.as_deref(), "ln_final", rec)
    }

    /// The final norm and the unembedding: residual stream `[T, d]` to logits `[T, V]`.
    /// The logit lens applies it to the stream after every block.
    pub fn unembed(&self, resid: &Tensor, rec: &mut dyn Recorder) -> Result<Tensor> {
        let x = self.final_norm(resid, rec)?.t()?;
        if self.lm_head.dtype() == DType::F32 {
            return Ok(self.lm_head.matmul(&x)?.t()?);
        }
        // A half-precision unembedding (V × d, the largest matrix) is converted a block of rows
        // at a time, so it never sits in memory as f32 whole.
        let vocab = self.lm_head.dim(0)?;
        let blocks = (0..vocab)
            .step_by(UNEMBED_ROWS)
            .map(|start| {
                let rows = UNEMBED_ROWS.min(vocab - start);
                let block = self.lm_head.narrow(0, start, rows)?.to_dtype(DType::F32)?;
                block.matmul(&x)
            })
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Tensor::cat(&blocks, 0)?.t()?)
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The final norm (`ln_f`, `model.norm`).
    pub fn final_norm_layer(&self) -> &Norm {
        &self.ln_f.norm
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
