//! The model built into the binary, `tracebook-mini-en`: its files are embedded at compile time
//! (5.2 MB of f16 weights, the same bytes as `models/tracebook-mini-en`, in
//! `tracebook_site::live::builtin`), and written once into the user's cache when a command
//! needs a folder, so any site can trace with it offline.
//!
//! Model ids resolve in this order: a folder relative to the site (or absolute) when it exists;
//! this built-in name; a Hugging Face hub id, from the cache or downloaded.

use anyhow::Context;
use std::path::{Path, PathBuf};
use tracebook_model::{resolve, ModelFiles};
// The embedded files, by name, as the model folder holds them: the site builder embeds them
// (to write a browser model from them), and one copy serves both.
use tracebook_site::live::builtin::files;
use tracebook_trace::{
    user_cache_dir, BUILTIN_MODEL_ID, BUILTIN_MODEL_SHA256, RETIRED_BUILTIN_MODEL_ID,
};

/// Resolve `spec` as the site names a model: a folder, the built-in name, or a hub id.
pub fn resolve_model(spec: &str, root: &Path, allow_download: bool) -> anyhow::Result<ModelFiles> {
    if spec == BUILTIN_MODEL_ID && !root.join(spec).is_dir() {
        let dir = materialize()?;
        return Ok(tracebook_model::source::from_dir(BUILTIN_MODEL_ID, &dir)?);
    }
    if spec == RETIRED_BUILTIN_MODEL_ID && !root.join(spec).is_dir() {
        anyhow::bail!(
            "{RETIRED_BUILTIN_MODEL_ID} is no longer built into tracebook: the built-in model is \
             now {BUILTIN_MODEL_ID} (GPT-2's architecture with a 4,096-token vocabulary of its \
             own; it copies a repeated sentence, which {RETIRED_BUILTIN_MODEL_ID} could not)\n  \
             hint: write [model] id = \"{BUILTIN_MODEL_ID}\" in tracebook.toml and run `tracebook \
             trace` (the prose's claims then say which sentences to revise), or keep the old \
             model: copy its folder (models/{RETIRED_BUILTIN_MODEL_ID} in tracebook's repository) \
             into your site and name the folder"
        );
    }
    Ok(resolve(spec, root, allow_download)?)
}

/// The built-in model's folder in the user's cache, written (atomically, once per version of
/// the weights) if it is not there yet.
fn materialize() -> anyhow::Result<PathBuf> {
    let base = user_cache_dir()
        .or_else(|| Some(std::env::temp_dir().join("tracebook")))
        .expect("a temporary folder always exists");
    let dir = base.join("models").join(format!(
        "{BUILTIN_MODEL_ID}-{}",
        &BUILTIN_MODEL_SHA256[..12]
    ));
    if files().iter().all(|(name, bytes)| {
        std::fs::metadata(dir.join(name)).is_ok_and(|m| m.len() == bytes.len() as u64)
    }) {
        return Ok(dir);
    }
    let parent = dir.parent().expect("a models folder");
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create the folder {}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".tracebook-builtin-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot write into {}", parent.display()))?;
    for (name, bytes) in files() {
        let path = staging.path().join(name);
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let staged = staging.keep();
    if std::fs::rename(&staged, &dir).is_err() {
        // Another process wrote it first (or a broken copy is in the way): keep a whole one.
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::rename(&staged, &dir) {
            let _ = std::fs::remove_dir_all(&staged);
            if !dir.join("model.safetensors").is_file() {
                return Err(e).with_context(|| format!("cannot write {}", dir.display()));
            }
        }
    }
    Ok(dir)
}
