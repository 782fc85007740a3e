//! The config of an encoder-decoder checkpoint: Marian (`MarianMTModel`: the Helsinki-NLP
//! opus-mt translation models) and BART (`BartForConditionalGeneration`). Both are post-norm
//! transformers (each sublayer's residual sum normalised), with biases everywhere, an encoder
//! whose self-attention sees every position, a decoder with causal self-attention and
//! cross-attention over the encoder's output, and logits from the shared token embedding plus
//! `final_logits_bias`. They differ in positions (Marian: sinusoidal, computed; BART: learned,
//! offset by 2) and in BART's LayerNorm after the embeddings.
//!
//! Every field that changes what transformers computes is read, or refused by name when it
//! asks for what tracebook does not compute; fields transformers ignores are ignored.

use crate::activation::Activation;
use serde_json::{Map, Value};

/// Which encoder-decoder architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seq2SeqKind {
    Marian,
    Bart,
}

impl Seq2SeqKind {
    pub fn from_model_type(model_type: &str) -> Option<Seq2SeqKind> {
        match model_type {
            "marian" => Some(Seq2SeqKind::Marian),
            "bart" => Some(Seq2SeqKind::Bart),
            _ => None,
        }
    }

    pub fn model_type(self) -> &'static str {
        match self {
            Seq2SeqKind::Marian => "marian",
            Seq2SeqKind::Bart => "bart",
        }
    }

    /// The architecture name config.json gives.
    pub fn architecture(self) -> &'static str {
        match self {
            Seq2SeqKind::Marian => "MarianMTModel",
            Seq2SeqKind::Bart => "BartForConditionalGeneration",
        }
    }
}

/// An encoder-decoder's config.json, as transformers reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Seq2SeqConfig {
    pub kind: Seq2SeqKind,
    pub vocab_size: usize,
    pub d_model: usize,
    pub encoder_layers: usize,
    pub decoder_layers: usize,
    pub encoder_attention_heads: usize,
    pub decoder_attention_heads: usize,
    pub encoder_ffn_dim: usize,
    pub decoder_ffn_dim: usize,
    pub activation: Activation,
    pub max_position_embeddings: usize,
    /// The token embeddings are multiplied by √d_model.
    pub scale_embedding: bool,
    /// The unembedding is the shared token embedding (else `lm_head.weight`).
    pub tie_word_embeddings: bool,
    pub decoder_start_token_id: u32,
    pub pad_token_id: u32,
    pub eos_token_id: u32,
}

/// LayerNorm's epsilon in both (torch's default; neither config sets it).
pub const LAYER_NORM_EPS: f64 = 1e-5;

/// BART's learned positions start at row 2 (fairseq's padding offset).
pub const BART_POSITION_OFFSET: usize = 2;

impl Seq2SeqConfig {
    /// A tiny model of `kind` for tests: 64 wide, 2 encoder and 2 decoder layers of 4 heads,
    /// an MLP of 128, a vocabulary of 96 and 64 positions.
    pub fn tiny(kind: Seq2SeqKind) -> Seq2SeqConfig {
        Seq2SeqConfig {
            kind,
            vocab_size: 96,
            d_model: 64,
            encoder_layers: 2,
            decoder_layers: 2,
            encoder_attention_heads: 4,
            decoder_attention_heads: 4,
            encoder_ffn_dim: 128,
            decoder_ffn_dim: 128,
            activation: match kind {
                Seq2SeqKind::Marian => Activation::Swish,
                Seq2SeqKind::Bart => Activation::Gelu,
            },
            max_position_embeddings: 64,
            scale_embedding: kind == Seq2SeqKind::Marian,
            tie_word_embeddings: true,
            decoder_start_token_id: 95,
            pad_token_id: 95,
            eos_token_id: 0,
        }
    }

    /// Reads config.json's fields for `kind`; a field that asks for a computation tracebook
    /// does not do is refused by name.
    pub fn from_json(kind: Seq2SeqKind, map: &Map<String, Value>) -> Result<Seq2SeqConfig, String> {
        refuse(kind, map)?;
        let int = |key: &str, default: usize| -> Result<usize, String> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(v) => v
                    .as_u64()
                    .map(|n| n as usize)
                    .ok_or_else(|| format!("{key} must be a whole number, not {v}")),
            }
        };
        let flag = |key: &str, default: bool| -> Result<bool, String> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| format!("{key} must be true or false, not {v}")),
            }
        };
        let (vocab, start, pad, eos) = match kind {
            Seq2SeqKind::Marian => (58101, 58100, 58100, 0),
            Seq2SeqKind::Bart => (50265, 2, 1, 2),
        };
        let activation = match map.get("activation_function").and_then(Value::as_str) {
            Some(name) => Activation::from_name(name)?,
            None => Activation::Gelu,
        };
        let config = Seq2SeqConfig {
            kind,
            vocab_size: int("vocab_size", vocab)?,
            d_model: int("d_model", 1024)?,
            encoder_layers: int("encoder_layers", 12)?,
            decoder_layers: int("decoder_layers", 12)?,
            encoder_attention_heads: int("encoder_attention_heads", 16)?,
            decoder_attention_heads: int("decoder_attention_heads", 16)?,
            encoder_ffn_dim: int("encoder_ffn_dim", 4096)?,
            decoder_ffn_dim: int("decoder_ffn_dim", 4096)?,
            activation,
            max_position_embeddings: int("max_position_embeddings", 1024)?,
            scale_embedding: flag("scale_embedding", false)?,
            tie_word_embeddings: flag("tie_word_embeddings", true)?,
            decoder_start_token_id: int("decoder_start_token_id", start)? as u32,
            pad_token_id: int("pad_token_id", pad)? as u32,
            eos_token_id: int("eos_token_id", eos)? as u32,
        };
        for (heads, which) in [
            (config.encoder_attention_heads, "encoder_attention_heads"),
            (config.decoder_attention_heads, "decoder_attention_heads"),
        ] {
            if heads == 0 || !config.d_model.is_multiple_of(heads) {
                return Err(format!(
                    "d_model = {} is not a multiple of {which} = {heads}",
                    config.d_model
                ));
            }
        }
        if config.vocab_size == 0 || config.d_model == 0 {
            return Err("vocab_size and d_model must be above 0".into());
        }
        Ok(config)
    }

    /// The config.json transformers reads for this config.
    pub fn to_hf_json(&self) -> String {
        let json = serde_json::json!({
            "model_type": self.kind.model_type(),
            "architectures": [self.kind.architecture()],
            "vocab_size": self.vocab_size,
            "d_model": self.d_model,
            "encoder_layers": self.encoder_layers,
            "decoder_layers": self.decoder_layers,
            "encoder_attention_heads": self.encoder_attention_heads,
            "decoder_attention_heads": self.decoder_attention_heads,
            "encoder_ffn_dim": self.encoder_ffn_dim,
            "decoder_ffn_dim": self.decoder_ffn_dim,
            "activation_function": self.activation.name(),
            "max_position_embeddings": self.max_position_embeddings,
            "scale_embedding": self.scale_embedding,
            "tie_word_embeddings": self.tie_word_embeddings,
            "decoder_start_token_id": self.decoder_start_token_id,
            "pad_token_id": self.pad_token_id,
            "eos_token_id": self.eos_token_id,
            "forced_eos_token_id": self.eos_token_id,
            "is_encoder_decoder": true,
        });
        serde_json::to_string_pretty(&json).expect("a JSON value")
    }

    /// This config with `field` of its config.json set to `value` (JSON, or a bare string).
    pub fn with(&self, field: &str, value: &str) -> Result<Seq2SeqConfig, String> {
        let json: Value = serde_json::from_str(&self.to_hf_json()).expect("our own JSON");
        let Value::Object(mut map) = json else {
            unreachable!("to_hf_json writes an object")
        };
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.into()));
        map.insert(field.to_string(), value);
        Seq2SeqConfig::from_json(self.kind, &map)
    }

    /// The sizes a trace records about the model: the decoder's in the common fields, the
    /// encoder's in `seq2seq`.
    pub fn shape(&self) -> tracebook_trace::ModelShape {
        tracebook_trace::ModelShape {
            n_layer: self.decoder_layers,
            n_head: self.decoder_attention_heads,
            n_embd: self.d_model,
            n_positions: self.max_position_embeddings,
            vocab_size: self.vocab_size,
            layer_norm_epsilon: LAYER_NORM_EPS,
            activation_function: self.activation.name().to_string(),
            model_type: Some(self.kind.model_type().to_string()),
            seq2seq: Some(tracebook_trace::Seq2SeqShape {
                encoder_layers: self.encoder_layers,
                encoder_heads: self.encoder_attention_heads,
                encoder_ffn_dim: self.encoder_ffn_dim,
                decoder_ffn_dim: self.decoder_ffn_dim,
                positions: match self.kind {
                    Seq2SeqKind::Marian => "sinusoidal",
                    Seq2SeqKind::Bart => "learned",
                }
                .into(),
                scale_embedding: Some(self.scale_embedding),
                tie_word_embeddings: Some(self.tie_word_embeddings),
            }),
            ..Default::default()
        }
    }

    /// The width of each head of the encoder's (`encoder`) or the decoder's attention.
    pub fn head_dim(&self, encoder: bool) -> usize {
        let heads = if encoder {
            self.encoder_attention_heads
        } else {
            self.decoder_attention_heads
        };
        self.d_model / heads
    }
}

/// Fields that would change the computation in a way tracebook does not follow.
fn refuse(kind: Seq2SeqKind, map: &Map<String, Value>) -> Result<(), String> {
    let set = |key: &str| map.get(key).is_some_and(|v| v.as_bool() == Some(true));
    if kind == Seq2SeqKind::Marian
        && map
            .get("share_encoder_decoder_embeddings")
            .and_then(Value::as_bool)
            == Some(false)
    {
        return Err(
            "share_encoder_decoder_embeddings is false: the decoder has its own \
                    vocabulary and embedding, which tracebook does not compute"
                .into(),
        );
    }
    if let Some(size) = map.get("decoder_vocab_size").and_then(Value::as_u64) {
        if map.get("vocab_size").and_then(Value::as_u64) != Some(size) {
            return Err(format!(
                "decoder_vocab_size = {size} differs from vocab_size: a decoder vocabulary of \
                 its own, which tracebook does not compute"
            ));
        }
    }
    for (key, what) in [
        ("normalize_before", "pre-norm layers (mBART's)"),
        (
            "add_final_layer_norm",
            "a final LayerNorm after each stack (mBART's)",
        ),
    ] {
        if set(key) {
            return Err(format!(
                "{key} is true: {what}; transformers' {} computes post-norm layers only, and \
                 so does tracebook",
                kind.architecture()
            ));
        }
    }
    Ok(())
}
