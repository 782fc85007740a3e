//! The model built into tracebook, `tracebook-mini-en`: the files of this folder embedded at
//! compile time. The site builder reads them to write the browser model of a site that uses it
//! (`[live]`), with no model folder on the machine; the binary's `trace` writes them into the
//! user's cache to trace with. A crate of its own so that the site crate packages for
//! crates.io without files outside it (and under its size limit: the four files are 8.2 MB).

use std::path::{Path, PathBuf};
use tracebook_trace::{user_cache_dir, BUILTIN_MODEL_ID, BUILTIN_MODEL_SHA256};

/// The names of the model folder's files, in the order [`files`] gives them.
pub const NAMES: [&str; 4] = [
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "training_log.json",
];

/// The embedded files, by name, as the model folder holds them.
pub fn files() -> [(&'static str, &'static [u8]); 4] {
    [
        (NAMES[0], include_bytes!("../config.json")),
        (NAMES[1], include_bytes!("../model.safetensors")),
        (NAMES[2], include_bytes!("../tokenizer.json")),
        (NAMES[3], include_bytes!("../training_log.json")),
    ]
}

/// The embedded file called `name`.
pub fn file(name: &str) -> Option<&'static [u8]> {
    files()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| b)
}

/// The built-in model's folder in the user's cache (else the temporary folder), written
/// atomically once per version of the weights if it is not there yet, for code that loads a
/// model from a folder (the binary's `trace`, the Python package's `trace()`).
pub fn materialize() -> std::io::Result<PathBuf> {
    let base = user_cache_dir().unwrap_or_else(|| std::env::temp_dir().join("tracebook"));
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
    let context = |what: &str, path: &Path| {
        let what = format!("cannot {what} {}", path.display());
        move |e: std::io::Error| std::io::Error::new(e.kind(), format!("{what}: {e}"))
    };
    std::fs::create_dir_all(parent).map_err(context("create the folder", parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".tracebook-builtin-")
        .tempdir_in(parent)
        .map_err(context("write into", parent))?;
    for (name, bytes) in files() {
        let path = staging.path().join(name);
        std::fs::write(&path, bytes).map_err(context("write", &path))?;
    }
    let staged = staging.keep();
    if std::fs::rename(&staged, &dir).is_err() {
        // Another process wrote it first (or a broken copy is in the way): keep a whole one.
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::rename(&staged, &dir) {
            let _ = std::fs::remove_dir_all(&staged);
            if !dir.join("model.safetensors").is_file() {
                return Err(context("write", &dir)(e));
            }
        }
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_weights_are_the_ones_sites_are_told_of() {
        let digest = tracebook_trace::sha256_bytes(file("model.safetensors").unwrap());
        assert_eq!(
            digest,
            tracebook_trace::BUILTIN_MODEL_SHA256,
            "update tracebook_trace::BUILTIN_MODEL_SHA256"
        );
    }
}
