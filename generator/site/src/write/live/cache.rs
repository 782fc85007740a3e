//! The browser model kept between builds, in `$XDG_CACHE_HOME/tracebook/browser-models/` (else
//! `~/.cache/tracebook/...`): converting the site's model took half of the example build's
//! CPU time, and its bytes depend only on the weights, the precision and the conversion.
//!
//! An entry is `KEY.safetensors` with `KEY.sha256` beside it (the file's digest and length),
//! where KEY is the SHA-256 of [`FORMAT`], the weights' identity (as traces record it) and the
//! precision. Entries are written atomically; one whose length does not match is converted
//! again. The [`KEEP`] most recently used models are kept, the others removed. A cache that
//! cannot be read or written costs only time.

use super::browser_model::{self, SourceModel};
use crate::base::diagnostic::Diagnostic;
use crate::load::config::LivePrecision;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use tracebook_trace::{sha256_bytes, user_cache_dir, write_atomic};

/// The version of the browser model's bytes: raise it whenever [`browser_model::convert`]
/// writes other bytes for the same weights (a test pins the built-in model's digests).
pub const FORMAT: u32 = 1;

/// How many converted models the cache keeps.
pub const KEEP: usize = 4;

/// The browser model and its SHA-256.
pub struct Converted {
    pub bytes: Vec<u8>,
    pub sha256: String,
}

/// The browser model of `source` at `precision`, from the user's cache when it holds it.
pub fn browser_model(
    source: &SourceModel,
    precision: LivePrecision,
) -> Result<Converted, Diagnostic> {
    let dir = user_cache_dir().map(|d| d.join("browser-models"));
    let key = source
        .weights_sha256()
        .ok()
        .map(|weights| sha256_bytes(format!("{FORMAT} {weights} {}", precision.name()).as_bytes()));
    match (dir, key) {
        (Some(dir), Some(key)) => cached(&dir, &key, source, precision),
        _ => convert(source, precision),
    }
}

fn convert(source: &SourceModel, precision: LivePrecision) -> Result<Converted, Diagnostic> {
    let bytes = browser_model::convert(source, precision)?;
    let sha256 = sha256_bytes(&bytes);
    Ok(Converted { bytes, sha256 })
}

fn cached(
    dir: &Path,
    key: &str,
    source: &SourceModel,
    precision: LivePrecision,
) -> Result<Converted, Diagnostic> {
    let (model, digest) = paths(dir, key);
    if let Some(hit) = read(&model, &digest) {
        // The modification time orders the entries by use.
        let _ = std::fs::File::options()
            .write(true)
            .open(&model)
            .and_then(|f| f.set_modified(SystemTime::now()));
        return Ok(hit);
    }
    let converted = convert(source, precision)?;
    let stored = std::fs::create_dir_all(dir)
        .and_then(|_| write_atomic(&model, &converted.bytes))
        .and_then(|_| {
            let line = format!("{} {}\n", converted.sha256, converted.bytes.len());
            write_atomic(&digest, line.as_bytes())
        });
    if stored.is_ok() {
        prune(dir);
    }
    Ok(converted)
}

fn paths(dir: &Path, key: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{key}.safetensors")),
        dir.join(format!("{key}.sha256")),
    )
}

/// An entry whose file has the length its digest line gives.
fn read(model: &Path, digest: &Path) -> Option<Converted> {
    let line = std::fs::read_to_string(digest).ok()?;
    let (sha256, len) = line.trim().split_once(' ')?;
    let bytes = std::fs::read(model).ok()?;
    (sha256.len() == 64 && len.parse::<usize>().ok()? == bytes.len()).then(|| Converted {
        bytes,
        sha256: sha256.to_string(),
    })
}

/// Removes all but the [`KEEP`] most recently used entries.
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut models: Vec<(SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    models.sort_by_key(|m| std::cmp::Reverse(m.0));
    for (_, model) in models.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(model.with_extension("sha256"));
        let _ = std::fs::remove_file(model);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in model's browser model, at both precisions. When a change to the conversion
    /// moves these digests, raise [`FORMAT`] (or readers of a cached model get the old bytes)
    /// and write the new digests here.
    #[test]
    fn the_conversion_is_the_one_format_names() {
        let source =
            browser_model::locate(tracebook_trace::BUILTIN_MODEL_ID, Path::new("/nonexistent"))
                .unwrap();
        let digest = |p| sha256_bytes(&browser_model::convert(&source, p).unwrap());
        assert_eq!(FORMAT, 1);
        assert_eq!(
            digest(LivePrecision::Int8),
            "96be9795c63e3af5ddfedec8281b13b8cb255bb5e7abe395d9c789423c9a3ee2"
        );
        assert_eq!(
            digest(LivePrecision::F16),
            "5388323348301caabc060f552004741266bc994a55ce55b46926bf838852dcf0"
        );
    }

    #[test]
    fn the_most_recently_used_models_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        for n in 0..KEEP + 2 {
            let (model, digest) = paths(dir.path(), &n.to_string());
            std::fs::write(&model, b"m").unwrap();
            std::fs::write(&digest, b"d").unwrap();
            let used = now - std::time::Duration::from_secs(60 * n as u64);
            std::fs::File::options()
                .write(true)
                .open(&model)
                .unwrap()
                .set_modified(used)
                .unwrap();
        }
        prune(dir.path());
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut kept: Vec<String> = (0..KEEP)
            .flat_map(|n| [format!("{n}.safetensors"), format!("{n}.sha256")])
            .collect();
        kept.sort();
        assert_eq!(left, kept);
    }
}
