//! Figure options as types. Each kind declares its options as a struct deserialized with
//! serde (`deny_unknown_fields`, defaults and fixed ranges in the field types); the shared
//! preamble — the `prompt` and `caption` every kind takes, and the layer, head, token and
//! size keys whose ranges depend on the trace — is read here once, by [`read`] and
//! [`Block`]. Errors name the key at fault and suggest a fix.

mod block;
mod choice;
mod problems;
mod serde_errors;
mod types;
mod values;

pub(crate) use block::resolve_prompt;
pub use block::Block;
pub use types::{
    capped, Dims, HeadKey, Int, LayerKey, PositionKey, Probability, Temperature, Temperatures,
    TokenKey, Tokens, TopK, TopKRule,
};
pub use values::{Head, Layer};

pub(crate) use choice::choice;
pub(crate) use serde_errors::Problem;

/// The option keys a kind's options struct accepts, in declaration order, read from its
/// `Deserialize` implementation (so the list cannot drift from the struct).
pub fn keys<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
    let mut keys = vec!["prompt", "caption"];
    keys.extend(serde_aux::serde_introspection::serde_introspect::<T>());
    keys
}

#[cfg(test)]
mod tests;
