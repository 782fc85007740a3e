//! SHA-256 of a weights file, streamed, and remembered by path, size and modification time so
//! that `trace`, `build` and `check` verify multi-hundred-megabyte weights only once.

use crate::atomic::write_atomic;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Lower-case hex SHA-256 of the file at `path`, read in 1 MiB chunks.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
struct Entry {
    size: u64,
    modified_ns: u128,
    sha256: String,
}

/// Digests already computed, kept in a small JSON file (by default in the user's cache folder).
/// A cache that cannot be read or written only costs time: the digest is computed again.
#[derive(Debug, Clone)]
pub struct DigestCache {
    file: Option<PathBuf>,
}

impl DigestCache {
    /// `$XDG_CACHE_HOME/tracebook/sha256.json`, else `~/.cache/tracebook/sha256.json`.
    pub fn user() -> DigestCache {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
        DigestCache {
            file: base.map(|b| b.join("tracebook").join("sha256.json")),
        }
    }

    pub fn at(file: PathBuf) -> DigestCache {
        DigestCache { file: Some(file) }
    }

    /// No cache: always hash.
    pub fn none() -> DigestCache {
        DigestCache { file: None }
    }

    /// SHA-256 of `path`, from the cache when its size and modification time are unchanged.
    pub fn sha256(&self, path: &Path) -> std::io::Result<String> {
        let meta = std::fs::metadata(path)?;
        let modified_ns = meta
            .modified()?
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let key = std::fs::canonicalize(path)?.display().to_string();
        let mut entries = self.load();
        if let Some(e) = entries.get(&key) {
            if e.size == meta.len() && e.modified_ns == modified_ns {
                return Ok(e.sha256.clone());
            }
        }
        let sha256 = sha256_file(path)?;
        entries.insert(
            key,
            Entry {
                size: meta.len(),
                modified_ns,
                sha256: sha256.clone(),
            },
        );
        self.store(&entries);
        Ok(sha256)
    }

    fn load(&self) -> BTreeMap<String, Entry> {
        self.file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    fn store(&self, entries: &BTreeMap<String, Entry>) {
        if let Some(file) = &self.file {
            let json = serde_json::to_string_pretty(entries).unwrap_or_default();
            let _ = file
                .parent()
                .map(std::fs::create_dir_all)
                .transpose()
                .and_then(|_| write_atomic(file, json.as_bytes()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest_and_cache_hits_until_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let weights = dir.path().join("w.bin");
        std::fs::write(&weights, b"abc").unwrap();
        assert_eq!(
            sha256_file(&weights).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let cache = DigestCache::at(dir.path().join("cache/sha256.json"));
        let first = cache.sha256(&weights).unwrap();
        assert_eq!(first, sha256_file(&weights).unwrap());
        // Poison the cached value: a hit returns it, proving the file was not hashed again.
        let file = dir.path().join("cache/sha256.json");
        let text = std::fs::read_to_string(&file)
            .unwrap()
            .replace(&first, "cached");
        std::fs::write(&file, text).unwrap();
        assert_eq!(cache.sha256(&weights).unwrap(), "cached");
        // A different size invalidates the entry.
        std::fs::write(&weights, b"abcd").unwrap();
        assert_eq!(
            cache.sha256(&weights).unwrap(),
            sha256_file(&weights).unwrap()
        );
        assert_eq!(
            DigestCache::none().sha256(&weights).unwrap(),
            sha256_file(&weights).unwrap()
        );
    }
}
