//! Training: how surprised the model is by each token of a prompt (`loss`), and how its
//! weights were learned, from the training log a trace carries (`training`, `descent`).

pub(super) mod descent;
pub(super) mod loss;
pub(super) mod training;

// The chart `training` and `descent` draw on, and `training` with `other`.
mod training_chart;
mod training_pair;
