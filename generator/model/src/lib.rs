//! GPT-2 in candle: config, memory-mapped weights in either key layout, the forward pass with a
//! recorder, generation, model sources (folder, Hugging Face cache, hub) and tracing into traces.

pub mod activation;
pub mod config;
pub mod derived;
pub mod error;
pub mod generate;
pub mod gpt2;
pub mod model;
pub mod recorder;
pub mod source;
pub mod testmodel;
pub mod topk;
pub mod tracer;
pub mod train;
pub mod weights;

pub use config::Gpt2Config;
pub use error::{ModelError, Result};
pub use gpt2::Gpt2;
pub use model::Model;
pub use recorder::{NoRecorder, Recorder, TensorRecorder};
pub use source::{resolve, ModelFiles};
pub use tracer::{trace, TraceRequest};
