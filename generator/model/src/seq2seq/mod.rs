//! Encoder-decoder models (Marian, BART): the encoder reads the source text once, the decoder
//! writes the target a token at a time, attending to what it wrote (causal self-attention)
//! and to the encoder's output (cross-attention). Built from the decoder-only families' parts
//! where they agree: the same attention (with no mask, or keys from another sequence), MLP,
//! LayerNorm and projections; what is theirs alone is here: post-norm layers, positions, and
//! logits with `final_logits_bias`.
//!
//! Trace names: `encoder.*` and `decoder.*`, each with `embed`, `pos_embed`, (BART)
//! `ln_embed`, and `blocks.N.*` ([`layers`]). [`Seq2Seq::decode`] returns the logits `[T, V]`
//! of every target position; a trace keeps each position's top candidates instead.

pub mod embed;
pub mod layers;
pub mod loaded;
pub mod testmodel;
pub mod tracer;

use crate::config::seq2seq::Seq2SeqConfig;
use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::attention::{causal_mask, Context};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use embed::Embedding;
use layers::{DecoderLayer, EncoderLayer};

/// A Marian or BART model loaded for a forward pass.
pub struct Seq2Seq {
    config: Seq2SeqConfig,
    encoder_embed: Embedding,
    decoder_embed: Embedding,
    encoder: Vec<EncoderLayer>,
    decoder: Vec<DecoderLayer>,
    /// The unembedding `[V, d]`: the shared token embedding when tied.
    lm_head: Tensor,
    /// Added to every logit row `[V]`.
    final_logits_bias: Tensor,
}

impl Seq2Seq {
    /// `MarianMTModel` or `BartForConditionalGeneration` by their checkpoint names
    /// (`model.shared.weight`, `model.encoder.layers.0.self_attn.q_proj.weight`, ...).
    pub fn load(vb: VarBuilder, config: &Seq2SeqConfig) -> Result<Seq2Seq> {
        Seq2Seq::build(vb, config, false)
    }

    /// The same model with every step differentiable, for training.
    pub fn trainable(vb: VarBuilder, config: &Seq2SeqConfig) -> Result<Seq2Seq> {
        Seq2Seq::build(vb, config, true)
    }

    fn build(vb: VarBuilder, config: &Seq2SeqConfig, train: bool) -> Result<Seq2Seq> {
        let (d, vocab) = (config.d_model, config.vocab_size);
        let model = vb.pp("model");
        let shared = if model.contains_tensor("shared.weight") {
            model.get((vocab, d), "shared.weight")?
        } else {
            model.get((vocab, d), "encoder.embed_tokens.weight")?
        };
        let encoder = (0..config.encoder_layers)
            .map(|l| EncoderLayer::load(model.pp(format!("encoder.layers.{l}")), config, train))
            .collect::<Result<Vec<_>>>()?;
        let decoder = (0..config.decoder_layers)
            .map(|l| DecoderLayer::load(model.pp(format!("decoder.layers.{l}")), config, train))
            .collect::<Result<Vec<_>>>()?;
        let lm_head = if config.tie_word_embeddings {
            shared.clone()
        } else {
            vb.get((vocab, d), "lm_head.weight")?
        };
        // A checkpoint without it: transformers starts it at zero.
        let final_logits_bias = if vb.contains_tensor("final_logits_bias") {
            vb.get((1, vocab), "final_logits_bias")?.reshape(vocab)?
        } else {
            Tensor::zeros(vocab, DType::F32, &Device::Cpu)?
        };
        Ok(Seq2Seq {
            encoder_embed: Embedding::load(model.pp("encoder"), config, shared.clone())?,
            decoder_embed: Embedding::load(model.pp("decoder"), config, shared)?,
            config: config.clone(),
            encoder,
            decoder,
            lm_head,
            final_logits_bias,
        })
    }

    pub fn config(&self) -> &Seq2SeqConfig {
        &self.config
    }

    /// The encoder's output `[S, d]` for the source ids.
    pub fn encode(&self, source: &[u32], rec: &mut dyn Recorder) -> Result<Tensor> {
        let mut x = self.encoder_embed.forward(source, "encoder", rec)?;
        let ctx = Context {
            causal: causal_mask(source.len())?,
            rope: None,
            batch: 1,
        };
        for (l, layer) in self.encoder.iter().enumerate() {
            x = layer.forward(&x, &ctx, &format!("encoder.blocks.{l}"), rec)?;
        }
        Ok(x)
    }

    /// The logits `[T, V]` after each target id, given the encoder's output `memory` `[S, d]`:
    /// `target` starts with the decoder's start token, so row t predicts target token t + 1.
    pub fn decode(
        &self,
        memory: &Tensor,
        target: &[u32],
        rec: &mut dyn Recorder,
    ) -> Result<Tensor> {
        let mut x = self.decoder_embed.forward(target, "decoder", rec)?;
        let ctx = Context {
            causal: causal_mask(target.len())?,
            rope: None,
            batch: 1,
        };
        for (l, layer) in self.decoder.iter().enumerate() {
            x = layer.forward(&x, memory, &ctx, &format!("decoder.blocks.{l}"), rec)?;
        }
        let logits = self
            .lm_head
            .matmul(&x.t()?)?
            .t()?
            .broadcast_add(&self.final_logits_bias)?;
        Ok(logits)
    }

    /// The likeliest translation of `source` (ids ending with `</s>`), a token at a time: the
    /// decoder's start token, then each step's likeliest next token, until `</s>` or `max`
    /// tokens (the start token left out, `</s>` kept).
    pub fn translate_greedy(&self, source: &[u32], max: usize) -> Result<Vec<u32>> {
        let memory = self.encode(source, &mut crate::recorder::NoRecorder)?;
        let mut target = vec![self.config.decoder_start_token_id];
        while target.len() <= max {
            let logits = self.decode(&memory, &target, &mut crate::recorder::NoRecorder)?;
            let last = logits.get(target.len() - 1)?.to_vec1::<f32>()?;
            let next = crate::topk::top_k(&last, 1)[0].0 as u32;
            target.push(next);
            if next == self.config.eos_token_id {
                break;
            }
        }
        Ok(target.split_off(1))
    }
}
