//! The trace: what one GPT-2 run on one prompt computed, as a versioned JSON file.
//!
//! The model crate writes traces; the site and figure crates read them. This crate is the
//! boundary between the two stages and depends on no model code. The file format, its
//! compact codec and its error bounds are specified in `docs/trace-format.md`.

mod atomic;
mod attribution;
mod axes;
mod builtin;
mod codec;
mod digest;
mod error;
mod file;
mod float_json;
mod folder_swap;
pub mod int4;
pub mod int8;
mod intervention;
mod json_style;
mod kind;
mod meta;
mod model_name;
mod percent;
mod precision;
mod prompt;
mod splitmix;
mod stale;
pub mod suggest;
pub mod targets;
mod tensor;
mod tokens;
mod trace;
pub mod weights;

pub use atomic::write_atomic;
pub use attribution::{Attribution, AttributionSpec, Flow, TABLES as ATTRIBUTION_TABLES};
pub use axes::axis_names;
pub use builtin::{
    retired_builtin_model_message, BUILTIN_MODEL_ID, BUILTIN_MODEL_SHA256, RETIRED_BUILTIN_MODEL_ID,
};
pub use codec::exact_math;
pub use codec::{Derivation, DeriveOp, Encoding};
pub use digest::{
    sha256_bytes, sha256_file, shard_names, user_cache_dir, weight_files, DigestCache,
    WEIGHTS_FILE, WEIGHTS_INDEX,
};
pub use error::{Origin, TraceError};
pub use folder_swap::{remove_dir_if_present, swap_folder};
pub use intervention::{
    Ablation, AblationMode, AblationSpec, NamedToken, Outcome, PatchSpec, Patching,
    TABLES as EXPERIMENT_TABLES,
};
pub use kind::TensorKind;
pub use meta::{
    BeamNode, BeamTree, Candidate, DecoderBlock, GenerationStep, Merge, ModelInfo, ModelShape,
    Seq2SeqShape, Token, TraceMeta, TraceOptions, TrainingSummary, Translation, WeightHistory,
    WordMerges, DEFAULT_TOP_K,
};
pub use model_name::{folder_name, model_label, same_model_id};
pub use percent::percent;
pub use precision::{ParsePrecisionError, Precision};
pub use prompt::{PromptOptions, PromptSpec, MAX_BEAMS, MAX_BEAM_NODES};
pub use splitmix::SplitMix64;
pub use stale::Expected;
pub use tensor::{IndexError, Tensor};
pub use trace::Trace;

/// The `format` string every trace file starts with.
pub const FORMAT: &str = "tracebook-trace";

/// The format version this crate writes; it reads this one and every earlier one.
pub const FORMAT_VERSION: u32 = 3;
