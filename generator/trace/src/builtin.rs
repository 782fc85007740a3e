//! The model that ships inside the `tracebook` binary, by name and weights' identity, so that a
//! site naming it can tell fresh traces from stale ones without loading it (or having candle).

/// The name a site gives the built-in model in `[model] id` (and `trace --model`): tracebook's
/// own 2.6M-parameter GPT-2-architecture model with a 4,096-token vocabulary of its own,
/// `models/tracebook-mini-en` in its repository.
pub const BUILTIN_MODEL_ID: &str = "tracebook-mini-en";

/// The sha256 of the built-in model's `model.safetensors`; the binary's tests check that it is
/// the digest of the bytes it embeds.
pub const BUILTIN_MODEL_SHA256: &str =
    "babb168202453a314a5bc569faf2a13e6d5781341ff60b883c7f09a966a84127";

/// The model built into tracebook before tracebook-mini-en (7.2M parameters, GPT-2's
/// vocabulary): a site that names it without a folder of that name is told what to do.
pub const RETIRED_BUILTIN_MODEL_ID: &str = "tracebook-tiny-en";

/// What a site (or `trace --model`) naming the retired built-in model without a folder of that
/// name is told: the error and its fix.
pub fn retired_builtin_model_message() -> String {
    format!(
        "{RETIRED_BUILTIN_MODEL_ID} is no longer built into tracebook: the built-in model is \
         now {BUILTIN_MODEL_ID} (GPT-2's architecture with a 4,096-token vocabulary of its \
         own; it copies a repeated sentence, which {RETIRED_BUILTIN_MODEL_ID} could not)\n  \
         hint: write [model] id = \"{BUILTIN_MODEL_ID}\" in tracebook.toml and run `tracebook \
         trace` (the prose's claims then say which sentences to revise), or keep the old \
         model: copy its folder (models/{RETIRED_BUILTIN_MODEL_ID} in tracebook's repository) \
         into your site and name the folder"
    )
}
