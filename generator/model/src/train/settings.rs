//! What a training run is asked to do: the model's shape and the optimisation settings.
//!
//! The settings are saved in the training log, so `--resume` continues with exactly them.

use super::error::{TrainError, TrainResult};
use crate::config::{DecoderConfig, Family, Gpt2Config, ModelConfig};
use serde::{Deserialize, Serialize};

/// GPT-2's vocabulary: every model tracebook trains reads and writes GPT-2 token ids.
pub const GPT2_VOCAB: usize = 50257;

/// The smallest vocabulary `--vocab` accepts: the 256 bytes, a few merges, `<|endoftext|>`.
pub const MIN_VOCAB: usize = 260;

/// Which architecture a run trains: GPT-2's, or the Llama family's (RoPE, RMSNorm, SwiGLU,
/// grouped-query attention), both on GPT-2's tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    #[default]
    Gpt2,
    Llama,
}

impl Arch {
    fn is_gpt2(&self) -> bool {
        *self == Arch::Gpt2
    }

    pub fn name(self) -> &'static str {
        match self {
            Arch::Gpt2 => "gpt2",
            Arch::Llama => "llama",
        }
    }
}

impl std::str::FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "gpt2" => Ok(Arch::Gpt2),
            "llama" => Ok(Arch::Llama),
            other => Err(format!("unknown architecture {other:?}: use gpt2 or llama")),
        }
    }
}

/// The sizes of the model being trained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Architecture {
    /// GPT-2 unless the log says otherwise (logs before `--arch` trained GPT-2).
    #[serde(default, skip_serializing_if = "Arch::is_gpt2")]
    pub arch: Arch,
    pub layers: usize,
    pub heads: usize,
    /// Key/value heads of a Llama model's grouped-query attention (None: half the heads when
    /// that divides them, else as many as the heads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_heads: Option<usize>,
    pub width: usize,
    /// Context length in tokens (`n_positions`, `max_position_embeddings`).
    pub context: usize,
    /// The size of a byte-level BPE trained on the corpus for this model (None: GPT-2's
    /// tokenizer and its 50,257 ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocab: Option<usize>,
}

impl Architecture {
    /// A GPT-2 of these sizes.
    pub fn gpt2(layers: usize, heads: usize, width: usize, context: usize) -> Architecture {
        Architecture {
            arch: Arch::Gpt2,
            layers,
            heads,
            kv_heads: None,
            width,
            context,
            vocab: None,
        }
    }

    /// Shapes that cannot make a GPT-2 are rejected before anything is read or written.
    pub fn validate(&self) -> TrainResult<()> {
        let shape = |problem: String, hint: &str| TrainError::Shape {
            problem,
            hint: hint.to_string(),
        };
        if self.layers == 0 || self.heads == 0 || self.width == 0 || self.context == 0 {
            return Err(shape(
                format!(
                    "--layers {}, --heads {}, --width {} and --context {} must all be positive",
                    self.layers, self.heads, self.width, self.context
                ),
                "for example --layers 4 --heads 4 --width 128 --context 128",
            ));
        }
        if let Some(v) = self
            .vocab
            .filter(|&v| !(MIN_VOCAB..=GPT2_VOCAB).contains(&v))
        {
            return Err(shape(
                format!("--vocab {v} is outside {MIN_VOCAB}..={GPT2_VOCAB}: a byte-level BPE holds the 256 bytes, merges and <|endoftext|>"),
                "a few thousand tokens suit a small model, e.g. --vocab 4096",
            ));
        }
        if !self.width.is_multiple_of(self.heads) {
            return Err(shape(
                format!(
                    "--width {} is not divisible by --heads {}: every head needs the same width",
                    self.width, self.heads
                ),
                "pick a width that is a multiple of the head count, e.g. --width 128 --heads 4",
            ));
        }
        match (self.arch, self.kv_heads) {
            (Arch::Gpt2, Some(kv)) => Err(shape(
                format!("--kv-heads {kv} is for --arch llama: GPT-2 gives every head its own keys and values"),
                "drop --kv-heads, or add --arch llama",
            )),
            (Arch::Llama, Some(kv)) if kv == 0 || !self.heads.is_multiple_of(kv) => Err(shape(
                format!("--kv-heads {kv} does not divide --heads {}: each key/value head serves the same number of query heads", self.heads),
                "pick a divisor of --heads, e.g. --heads 4 --kv-heads 2",
            )),
            (Arch::Llama, _) if !(self.width / self.heads).is_multiple_of(2) => Err(shape(
                format!("--width {} / --heads {} gives heads of odd width {}: RoPE rotates pairs of numbers", self.width, self.heads, self.width / self.heads),
                "pick an even head width, e.g. --width 128 --heads 4",
            )),
            _ => Ok(()),
        }
    }

    /// Key/value heads of the Llama architecture: as given, else half the heads where that
    /// divides them.
    pub fn key_value_heads(&self) -> usize {
        self.kv_heads.unwrap_or(if self.heads.is_multiple_of(2) {
            self.heads / 2
        } else {
            self.heads
        })
    }

    /// The gated MLP's inner width: 8/3 of the width rounded up to a multiple of 32, so its
    /// three matrices hold about as many weights as GPT-2's two of 4× the width.
    pub fn gated_inner(&self) -> usize {
        (8 * self.width).div_ceil(3 * 32) * 32
    }

    /// Token ids the model reads and writes: its own BPE's, else GPT-2's 50,257.
    pub fn vocab_size(&self) -> usize {
        self.vocab.unwrap_or(GPT2_VOCAB)
    }

    /// The config.json of the model, with tied embeddings either way.
    /// GPT-2: gelu_new, a 4× MLP, learned positions. Llama: RoPE (θ 10,000), RMSNorm, SwiGLU
    /// of [`Architecture::gated_inner`], grouped-query attention, no biases.
    pub fn config(&self) -> ModelConfig {
        match self.arch {
            Arch::Gpt2 => ModelConfig::Gpt2(Gpt2Config {
                vocab_size: self.vocab_size(),
                ..Gpt2Config::gpt2(self.layers, self.heads, self.width, self.context)
            }),
            Arch::Llama => ModelConfig::Decoder(self.llama_config()),
        }
    }

    fn llama_config(&self) -> DecoderConfig {
        let json = serde_json::json!({
            "architectures": [Family::Llama.architecture()],
            "model_type": Family::Llama.model_type(),
            "vocab_size": self.vocab_size(),
            "hidden_size": self.width,
            "intermediate_size": self.gated_inner(),
            "num_hidden_layers": self.layers,
            "num_attention_heads": self.heads,
            "num_key_value_heads": self.key_value_heads(),
            "head_dim": self.width / self.heads,
            "max_position_embeddings": self.context,
            "rms_norm_eps": 1e-5,
            "rope_theta": 10000.0,
            "hidden_act": "silu",
            "attention_bias": false,
            "mlp_bias": false,
            "tie_word_embeddings": true,
            "bos_token_id": self.vocab_size() - 1,
            "eos_token_id": self.vocab_size() - 1,
        });
        let serde_json::Value::Object(map) = json else {
            unreachable!("a JSON object literal")
        };
        DecoderConfig::from_json(Family::Llama, map)
            .expect("a validated architecture makes a valid Llama config")
    }
}

/// How the weights of a checkpoint are stored in model.safetensors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum WeightsDtype {
    #[default]
    F32,
    /// Half the size; the optimiser keeps its f32 copy for `--resume`.
    F16,
}

impl std::str::FromStr for WeightsDtype {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "f32" => Ok(WeightsDtype::F32),
            "f16" => Ok(WeightsDtype::F16),
            other => Err(format!("unknown dtype {other:?}: use f32 or f16")),
        }
    }
}

/// Everything that decides what a run computes, plus how often it reports and saves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub architecture: Architecture,
    /// Total optimiser steps of the run (a resumed run may raise it).
    pub steps: usize,
    /// Sequences of `context` tokens per step.
    pub batch_size: usize,
    /// Peak learning rate, reached at the end of the warmup.
    pub learning_rate: f64,
    /// Where the cosine decay ends, at the last step.
    pub min_learning_rate: f64,
    pub warmup: usize,
    /// AdamW's decoupled weight decay, applied to matrices and embeddings only.
    pub weight_decay: f64,
    /// Gradients are rescaled so their global L2 norm is at most this.
    pub grad_clip: f64,
    pub seed: u64,
    /// The share of the corpus (its last tokens) held out for validation.
    pub val_share: f64,
    /// Validation windows of `context` tokens, evenly spread over the held-out part.
    pub val_windows: usize,
    pub eval_every: usize,
    pub checkpoint_every: usize,
    pub dtype: WeightsDtype,
    /// Steps after which a copy of the model is kept under `snapshots/` (0 = the initial weights).
    #[serde(default)]
    pub snapshots: Vec<usize>,
    /// The share of training windows that repeat a stretch of the corpus (the stretch, the
    /// same stretch again, then the text that follows it), to teach in-context copying.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repeat_share: f64,
    /// The share of training windows that say a stretch of random tokens (drawn uniformly
    /// from the whole vocabulary) twice, then go on with corpus text: the second copy can be
    /// predicted only by copying, whatever the tokens, which is what teaches a copy of any
    /// sentence a reader types.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub random_repeat_share: f64,
    /// The share of training windows that say one short stretch of random tokens over and over
    /// (a sixteenth to a quarter of the window long) until the window is full: most of the
    /// window is predictable only by copying, the quickest of the three to teach it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cycle_share: f64,
    /// How GPT-2's learned position table starts: see [`PositionInit`].
    #[serde(default, skip_serializing_if = "PositionInit::is_normal")]
    pub position_init: PositionInit,
}

/// How GPT-2's learned position table (`wpe`) starts. Either way it is trained like every
/// other weight; only its first values differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PositionInit {
    /// N(0, 0.02²), as GPT-2 was initialised.
    #[default]
    Normal,
    /// Sinusoids (Vaswani et al., 2017): row `p` holds sin and cos of `p / 10000^(2i/width)`,
    /// scaled to the embeddings' 0.02 (root mean square). In such a table one step back is the
    /// same rotation at every position, so a single attention matrix can find the token before
    /// wherever a head reads; a random table offers no such shortcut, and on the example
    /// model's mix its rows drifted into a smooth ramp in which neighbours were as alike as
    /// tokens two apart (see docs/BENCHMARKS.md, [model]).
    Sinusoid,
}

impl PositionInit {
    fn is_normal(&self) -> bool {
        *self == PositionInit::Normal
    }
}

impl std::str::FromStr for PositionInit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "normal" => Ok(PositionInit::Normal),
            "sinusoid" => Ok(PositionInit::Sinusoid),
            other => Err(format!(
                "unknown position init {other:?}: use normal or sinusoid"
            )),
        }
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Settings {
    /// A small model that trains in minutes on two cores.
    pub fn small(architecture: Architecture) -> Settings {
        Settings {
            architecture,
            steps: 2000,
            batch_size: 8,
            learning_rate: 2e-3,
            min_learning_rate: 2e-4,
            warmup: 100,
            weight_decay: 0.1,
            grad_clip: 1.0,
            seed: 0,
            val_share: 0.05,
            val_windows: 32,
            eval_every: 100,
            checkpoint_every: 250,
            dtype: WeightsDtype::F32,
            snapshots: Vec::new(),
            repeat_share: 0.0,
            random_repeat_share: 0.0,
            cycle_share: 0.0,
            position_init: PositionInit::Normal,
        }
    }

    pub fn validate(&self) -> TrainResult<()> {
        self.architecture.validate()?;
        if self.position_init == PositionInit::Sinusoid && !self.architecture.arch.is_gpt2() {
            return Err(TrainError::setting(
                "--position-init sinusoid starts GPT-2's learned position table; \
                 --arch llama has none (its positions are rotary)"
                    .to_string(),
                "leave out --position-init with --arch llama",
            ));
        }
        let positive = [
            ("--steps", self.steps),
            ("--batch-size", self.batch_size),
            ("--eval-every", self.eval_every),
            ("--checkpoint-every", self.checkpoint_every),
        ];
        if let Some((name, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(TrainError::setting(
                format!("{name} must be at least 1"),
                "give a positive number",
            ));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate.is_finite()) {
            return Err(TrainError::setting(
                format!("--lr {} is not a positive number", self.learning_rate),
                "GPT-2-sized learning rates are around 1e-4 to 3e-3",
            ));
        }
        if !(0.0..=self.learning_rate).contains(&self.min_learning_rate) {
            return Err(TrainError::setting(
                format!(
                    "--min-lr {} must lie between 0 and --lr {}",
                    self.min_learning_rate, self.learning_rate
                ),
                "the cosine decay ends at --min-lr; a tenth of --lr is usual",
            ));
        }
        if !(0.0..=1.0).contains(&self.repeat_share) {
            return Err(TrainError::setting(
                format!("--repeat-share {} is not in [0, 1]", self.repeat_share),
                "a share such as 0.25 repeats a stretch in a quarter of the windows",
            ));
        }
        let random = self.random_repeat_share;
        let shares = [self.repeat_share, random, self.cycle_share];
        if !shares.iter().all(|s| (0.0..=1.0).contains(s)) || shares.iter().sum::<f64>() > 1.0 {
            return Err(TrainError::setting(
                format!(
                    "--repeat-share {}, --random-repeat-share {random} and --cycle-share {} \
                     are not shares of the windows: each must lie in [0, 1] and together at \
                     most 1",
                    self.repeat_share, self.cycle_share
                ),
                "e.g. --repeat-share 0.25 --random-repeat-share 0.25 leaves half the \
                 windows plain text",
            ));
        }
        if !(0.0..0.5).contains(&self.val_share) {
            return Err(TrainError::setting(
                format!("--val-share {} is not in [0, 0.5)", self.val_share),
                "hold out a small share such as 0.05, or 0 for no validation",
            ));
        }
        if self.warmup > self.steps {
            return Err(TrainError::setting(
                format!(
                    "--warmup {} is longer than the run (--steps {})",
                    self.warmup, self.steps
                ),
                "warm up over a small part of the run, e.g. a tenth of the steps",
            ));
        }
        if self.grad_clip.is_nan() || self.grad_clip <= 0.0 || self.weight_decay < 0.0 {
            return Err(TrainError::setting(
                "--grad-clip must be positive and --weight-decay not negative",
                "the usual values are --grad-clip 1 and --weight-decay 0.1",
            ));
        }
        Ok(())
    }

    /// The settings a resumed run must share with the run it continues, by option name.
    pub(crate) fn must_match(&self) -> Vec<(&'static str, String)> {
        let a = &self.architecture;
        vec![
            ("--arch", a.arch.name().to_string()),
            ("--layers", a.layers.to_string()),
            ("--heads", a.heads.to_string()),
            (
                "--kv-heads",
                a.kv_heads.map(|k| k.to_string()).unwrap_or_default(),
            ),
            ("--width", a.width.to_string()),
            (
                "--vocab",
                a.vocab.map(|v| v.to_string()).unwrap_or_default(),
            ),
            ("--repeat-share", self.repeat_share.to_string()),
            (
                "--random-repeat-share",
                self.random_repeat_share.to_string(),
            ),
            ("--cycle-share", self.cycle_share.to_string()),
            (
                "--position-init",
                format!("{:?}", self.position_init).to_lowercase(),
            ),
            ("--context", a.context.to_string()),
            ("--batch-size", self.batch_size.to_string()),
            ("--lr", self.learning_rate.to_string()),
            ("--min-lr", self.min_learning_rate.to_string()),
            ("--warmup", self.warmup.to_string()),
            ("--weight-decay", self.weight_decay.to_string()),
            ("--grad-clip", self.grad_clip.to_string()),
            ("--seed", self.seed.to_string()),
            ("--val-share", self.val_share.to_string()),
            ("--val-windows", self.val_windows.to_string()),
        ]
    }
}
