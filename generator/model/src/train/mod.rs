//! Training GPT-2-architecture models from scratch with the same forward pass that traces them
//! (recorder off): corpus, batches, cross-entropy, AdamW with warmup and cosine decay, gradient
//! clipping, validation against a bigram baseline, and atomic Hugging Face checkpoints.

pub mod adamw;
pub mod bigram;
pub mod checkpoint;
pub mod copying;
pub mod corpus;
pub mod error;
pub mod folder;
pub mod log;
pub mod loss;
pub mod memory;
pub mod observer;
pub mod params;
pub mod rng;
pub mod run;
pub mod schedule;
pub mod settings;
pub mod slices;
pub mod step;
pub mod translate;
pub mod watch;
pub mod windows;

pub use error::{TrainError, TrainResult};
pub use log::{StepRecord, TrainingLog};
pub use observer::{Observer, Quiet, Start};
pub use run::{train, TrainRun};
pub use settings::{Arch, Architecture, PositionInit, Settings, WeightsDtype};
pub use translate::{train_translation, TranslationLog, TranslationRun};
