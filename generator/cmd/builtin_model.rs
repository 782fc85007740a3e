//! The model built into the binary, `tracebook-mini-en`: its files are embedded at compile time
//! (5.2 MB of f16 weights, the same bytes as `models/tracebook-mini-en`, in
//! `tracebook_site::live::builtin`), and written once into the user's cache when a command
//! needs a folder, so any site can trace with it offline.
//!
//! Model ids resolve in this order: a folder relative to the site (or absolute) when it exists;
//! this built-in name; a Hugging Face hub id, from the cache or downloaded.

use std::path::Path;
use tracebook_model::{resolve, ModelFiles};
// The embedded files, as the model folder holds them: the site builder embeds them (to write a
// browser model from them), and one copy serves both.
use tracebook_site::live::builtin::materialize;
use tracebook_trace::{retired_builtin_model_message, BUILTIN_MODEL_ID, RETIRED_BUILTIN_MODEL_ID};

/// Resolve `spec` as the site names a model: a folder, the built-in name, or a hub id.
pub fn resolve_model(spec: &str, root: &Path, allow_download: bool) -> anyhow::Result<ModelFiles> {
    if spec == BUILTIN_MODEL_ID && !root.join(spec).is_dir() {
        let dir = materialize()
            .map_err(|e| anyhow::anyhow!("cannot write the built-in model into the cache: {e}"))?;
        return Ok(tracebook_model::source::from_dir(BUILTIN_MODEL_ID, &dir)?);
    }
    if spec == RETIRED_BUILTIN_MODEL_ID && !root.join(spec).is_dir() {
        anyhow::bail!(retired_builtin_model_message());
    }
    Ok(resolve(spec, root, allow_download)?)
}
