//! GPT-2 and the Llama family (Llama, Mistral, Qwen2, Qwen3, Gemma) in candle: configs,
//! memory-mapped weights, one forward pass with a
//! recorder, generation, model sources (folder, Hugging Face cache, hub) and tracing into traces.
//!
//! The `native` feature (on by default) holds what needs an operating system: weights by
//! memory map, the Hugging Face cache and downloads, and training. Without it the crate builds
//! for `wasm32-unknown-unknown`: a model from bytes in memory ([`Model::from_bytes`]), the same
//! forward pass, recorder, generation and [`trace`] (the `live` crate runs it in the browser).

pub mod activation;
pub mod any_model;
pub mod attribute;
pub mod config;
pub mod derived;
pub mod error;
pub mod experiments;
pub mod generate;
pub mod intervene;
pub mod model;
pub mod recorder;
pub mod seq2seq;
pub mod source;
pub mod testmodel;
pub mod topk;
pub mod tracer;
#[cfg(feature = "native")]
pub mod train;
pub mod transformer;
pub mod weights;

pub use any_model::AnyModel;
pub use config::{DecoderConfig, Family, Gpt2Config, ModelConfig};
pub use error::{ModelError, Result};
pub use model::{Model, ModelBytes};
pub use recorder::{NoRecorder, Recorder, TensorRecorder};
pub use seq2seq::loaded::Seq2SeqModel;
#[cfg(feature = "native")]
pub use source::resolve;
pub use source::ModelFiles;
pub use tracer::{trace, TraceRequest};
pub use transformer::Transformer;
