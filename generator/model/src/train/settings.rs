//! What a training run is asked to do: the model's shape and the optimisation settings.
//!
//! The settings are saved in the training log, so `--resume` continues with exactly them.

use super::error::{TrainError, TrainResult};
use crate::config::Gpt2Config;
use serde::{Deserialize, Serialize};

/// GPT-2's vocabulary: every model tracebook trains reads and writes GPT-2 token ids.
pub const GPT2_VOCAB: usize = 50257;

/// The sizes of the GPT-2-architecture model being trained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Architecture {
    pub layers: usize,
    pub heads: usize,
    pub width: usize,
    /// Context length in tokens (`n_positions`).
    pub context: usize,
}

impl Architecture {
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
        if !self.width.is_multiple_of(self.heads) {
            return Err(shape(
                format!(
                    "--width {} is not divisible by --heads {}: every head needs the same width",
                    self.width, self.heads
                ),
                "pick a width that is a multiple of the head count, e.g. --width 128 --heads 4",
            ));
        }
        Ok(())
    }

    /// The config.json of the model: GPT-2's vocabulary, gelu_new, 4× MLP, tied embeddings.
    pub fn config(&self) -> Gpt2Config {
        Gpt2Config {
            vocab_size: GPT2_VOCAB,
            ..Gpt2Config::gpt2(self.layers, self.heads, self.width, self.context)
        }
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
        }
    }

    pub fn validate(&self) -> TrainResult<()> {
        self.architecture.validate()?;
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
            ("--layers", a.layers.to_string()),
            ("--heads", a.heads.to_string()),
            ("--width", a.width.to_string()),
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
