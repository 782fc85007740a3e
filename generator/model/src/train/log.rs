//! `training_log.json`: the settings, the corpus, and loss, validation loss and tokens seen at
//! every step, saved beside each checkpoint so figures can draw the run.

use super::bigram::BigramBaseline;
use super::error::{TrainError, TrainResult};
use super::settings::Settings;
use serde::{Deserialize, Serialize};
use std::path::Path;
use tracebook_trace::{TrainingSummary, WeightHistory};

pub const LOG_FORMAT: &str = "tracebook-training-log/1";
pub const LOG_FILE: &str = "training_log.json";

/// Where the training text came from and how it was split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusInfo {
    pub path: String,
    pub sha256: String,
    pub bytes: usize,
    pub tokens: usize,
    pub train_tokens: usize,
    pub val_tokens: usize,
    /// Validation windows the validation loss (and the bigram baseline) is measured on.
    pub val_windows: usize,
}

/// One optimiser step: `step` updates done when it ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub step: usize,
    pub lr: f64,
    /// Mean training loss of the step's batch, before its update (nats per token).
    pub loss: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
    pub tokens_seen: usize,
    /// Wall-clock seconds of training so far, over all sessions of the run.
    pub seconds: f64,
    /// Validation loss after the update, on the steps where it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub val_loss: Option<f64>,
    /// Loss on the second copy of random tokens said twice (see `copying`), on the steps where
    /// the validation loss was measured: near ln(vocabulary) until the model copies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_loss: Option<f64>,
    /// The best head's mean attention to the token before, on the same sequences (see
    /// `copying::HeadScores`): a previous-token head scores near 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_token_score: Option<f64>,
    /// The best head's mean attention from the second copy to the token after the first
    /// occurrence: an induction head scores near 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub induction_score: Option<f64>,
    /// The watched weight (see [`TrainingLog::watched`]) after the update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// The loss's gradient with respect to the watched weight, after clipping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_grad: Option<f64>,
}

/// One number of the weights the run follows step by step, to show what gradient descent
/// does to a single weight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchedWeight {
    /// The weight tensor's checkpoint name.
    pub name: String,
    /// The number's index in it, flattened row-major.
    pub index: usize,
    /// Its value before the first step.
    pub initial: f64,
}

/// A copy of the model kept at one step, under `snapshots/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotRecord {
    pub step: usize,
    /// Relative to the checkpoint folder.
    pub folder: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingLog {
    pub format: String,
    pub settings: Settings,
    pub corpus: CorpusInfo,
    pub parameters: usize,
    pub tokens_per_step: usize,
    /// Validation loss of the freshly initialised model.
    pub initial_val_loss: Option<f64>,
    pub bigram: Option<BigramBaseline>,
    pub steps: Vec<StepRecord>,
    pub snapshots: Vec<SnapshotRecord>,
    /// The weight followed step by step; absent in logs of runs started before tracebook
    /// recorded one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watched: Option<WatchedWeight>,
}

impl TrainingLog {
    /// Optimiser steps done.
    pub fn steps_done(&self) -> usize {
        self.steps.last().map_or(0, |r| r.step)
    }

    pub fn seconds(&self) -> f64 {
        self.steps.last().map_or(0.0, |r| r.seconds)
    }

    /// The last measured validation loss.
    pub fn last_val_loss(&self) -> Option<f64> {
        self.steps.iter().rev().find_map(|r| r.val_loss)
    }

    /// Training tokens per wall-clock second over the whole run.
    pub fn tokens_per_second(&self) -> f64 {
        let seconds = self.seconds();
        if seconds > 0.0 {
            (self.steps_done() * self.tokens_per_step) as f64 / seconds
        } else {
            0.0
        }
    }

    pub fn load(path: &Path) -> TrainResult<TrainingLog> {
        let bad = |problem: String| {
            TrainError::Checkpoint {
            path: path.to_path_buf(),
            problem,
            hint: "this is not a training log tracebook wrote; start a new run in another --out folder".into(),
        }
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
        let log: TrainingLog = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if log.format != LOG_FORMAT {
            return Err(bad(format!("unknown format {:?}", log.format)));
        }
        Ok(log)
    }

    /// The run in brief, as traces of this model record it: the loss averaged over at most
    /// `MAX_POINTS` groups of consecutive steps, every validation loss, and the baseline.
    pub fn summary(&self) -> TrainingSummary {
        const MAX_POINTS: usize = 200;
        let group = self.steps.len().div_ceil(MAX_POINTS).max(1);
        let grouped = |value: fn(&StepRecord) -> Option<f64>| -> Vec<(usize, f64)> {
            self.steps
                .chunks(group)
                .filter_map(|chunk| {
                    let values: Vec<f64> = chunk.iter().filter_map(value).collect();
                    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
                    (!values.is_empty()).then(|| (chunk[chunk.len() - 1].step, mean))
                })
                .collect()
        };
        let last_of = |value: fn(&StepRecord) -> Option<f64>| -> Vec<(usize, f64)> {
            self.steps
                .chunks(group)
                .filter_map(|chunk| {
                    let last = &chunk[chunk.len() - 1];
                    Some((last.step, value(last)?))
                })
                .collect()
        };
        let loss = grouped(|r| Some(r.loss));
        let weight = self.watched.as_ref().map(|w| WeightHistory {
            name: w.name.clone(),
            index: w.index,
            values: std::iter::once((0, w.initial))
                .chain(last_of(|r| r.weight))
                .collect(),
            grads: grouped(|r| r.weight_grad),
        });
        let val_loss = self
            .initial_val_loss
            .map(|v| (0, v))
            .into_iter()
            .chain(
                self.steps
                    .iter()
                    .filter_map(|r| Some((r.step, r.val_loss?))),
            )
            .collect();
        TrainingSummary {
            steps: self.steps_done(),
            tokens_per_step: self.tokens_per_step,
            corpus_tokens: self.corpus.train_tokens,
            parameters: self.parameters,
            loss,
            val_loss,
            bigram_val_loss: self.bigram.as_ref().map(|b| b.val_loss),
            lr: last_of(|r| Some(r.lr)),
            grad_norm: grouped(|r| Some(r.grad_norm)),
            weight,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a training log always serializes") + "\n"
    }
}
