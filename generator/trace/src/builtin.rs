//! The model that ships inside the `tracebook` binary, by name and weights' identity, so that a
//! site naming it can tell fresh traces from stale ones without loading it (or having candle).

/// The name a site gives the built-in model in `[model] id` (and `trace --model`): tracebook's
/// own 7M-parameter GPT-2-architecture model, `models/tracebook-tiny-en` in its repository.
pub const TINY_MODEL_ID: &str = "tracebook-tiny-en";

/// The sha256 of the built-in model's `model.safetensors`; the binary's tests check that it is
/// the digest of the bytes it embeds.
pub const TINY_MODEL_SHA256: &str =
    "9264bc24ed9b7e8d985b6bd0c1bfd4d2e80a58867bd2bdcad1bf6afc9d2447bb";
