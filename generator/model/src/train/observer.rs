//! What a training run tells its caller as it goes (the CLI draws a progress bar from it).

use super::bigram::BigramBaseline;
use super::log::{CorpusInfo, StepRecord};
use std::path::Path;

/// The facts known once the corpus is read and the weights are ready.
pub struct Start<'a> {
    /// Steps already done (non-zero when resuming).
    pub first_step: usize,
    pub total_steps: usize,
    pub tokens_per_step: usize,
    pub parameters: usize,
    pub corpus: &'a CorpusInfo,
    pub bigram: Option<BigramBaseline>,
    pub initial_val_loss: Option<f64>,
}

/// Receives the events of a run; every method does nothing unless overridden.
pub trait Observer {
    fn started(&mut self, _start: &Start) {}
    fn stepped(&mut self, _record: &StepRecord) {}
    fn saved(&mut self, _step: usize, _dir: &Path) {}
}

/// Reports nothing.
pub struct Quiet;

impl Observer for Quiet {}
