//! SHA-256 of a weights file, streamed, and remembered by path, size and modification time so
//! that `trace`, `build` and `check` verify multi-hundred-megabyte weights only once.

use crate::atomic::write_atomic;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// tracebook's folder in the user's cache: `$XDG_CACHE_HOME/tracebook`, else
/// `~/.cache/tracebook`; `None` when neither variable is set.
pub fn user_cache_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|base| base.join("tracebook"))
}

/// The weight files of a model folder: its `model.safetensors`, or the shards that its
/// `model.safetensors.index.json` maps tensors to (each once, in name order). `None` when the
/// folder has neither; an index that cannot be read is an error naming it.
pub fn weight_files(dir: &Path) -> std::io::Result<Option<Vec<PathBuf>>> {
    let single = dir.join(WEIGHTS_FILE);
    if single.is_file() {
        return Ok(Some(vec![single]));
    }
    let index = dir.join(WEIGHTS_INDEX);
    if !index.is_file() {
        return Ok(None);
    }
    let shards = shard_names(&std::fs::read_to_string(&index)?).map_err(|message| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {message}", index.display()),
        )
    })?;
    Ok(Some(shards.into_iter().map(|n| dir.join(n)).collect()))
}

/// The single weights file of a checkpoint.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// The index of a sharded checkpoint.
pub const WEIGHTS_INDEX: &str = "model.safetensors.index.json";

/// The shard file names a `model.safetensors.index.json` names, each once, in name order.
pub fn shard_names(index_json: &str) -> Result<Vec<String>, String> {
    #[derive(Deserialize)]
    struct Index {
        weight_map: BTreeMap<String, String>,
    }
    let index: Index = serde_json::from_str(index_json)
        .map_err(|e| format!("not a safetensors index (a JSON object with weight_map): {e}"))?;
    let mut names: Vec<String> = index.weight_map.into_values().collect();
    names.sort();
    names.dedup();
    if let Some(bad) = names
        .iter()
        .find(|n| n.contains('/') || n.contains('\\') || n.starts_with('.'))
    {
        return Err(format!("shard {bad:?} is not a file name beside the index"));
    }
    if names.is_empty() {
        return Err("weight_map names no shards".into());
    }
    Ok(names)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Lower-case hex SHA-256 of `bytes`: what `sha256_file` gives for a file holding them (the
/// browser has the weights in memory, not in a file).
pub fn sha256_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

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
    Ok(hex(&hasher.finalize()))
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
        DigestCache {
            file: user_cache_dir().map(|dir| dir.join("sha256.json")),
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

    /// The identity a trace records for a checkpoint's weights: the SHA-256 of its one
    /// `model.safetensors`, or, for a sharded checkpoint, the SHA-256 of the lines
    /// `<sha256>  <file name>\n` of its shards in order (what `sha256sum SHARDS | sha256sum`
    /// prints).
    pub fn weights_sha256(&self, files: &[PathBuf]) -> std::io::Result<String> {
        if let [one] = files {
            return self.sha256(one);
        }
        let mut lines = String::new();
        for file in files {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            lines.push_str(&format!("{}  {name}\n", self.sha256(file)?));
        }
        Ok(hex(&Sha256::digest(lines.as_bytes())))
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
    fn bytes_hash_as_the_file_holding_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.safetensors");
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(sha256_bytes(b"abc"), sha256_file(&path).unwrap());
        assert_eq!(
            sha256_bytes(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn sharded_weights_are_named_by_their_shards_digests() {
        let dir = tempfile::tempdir().unwrap();
        let index = r#"{"metadata":{},"weight_map":{"b":"m-2.safetensors","a":"m-1.safetensors","c":"m-1.safetensors"}}"#;
        std::fs::write(dir.path().join(WEIGHTS_INDEX), index).unwrap();
        std::fs::write(dir.path().join("m-1.safetensors"), b"abc").unwrap();
        std::fs::write(dir.path().join("m-2.safetensors"), b"").unwrap();
        let files = weight_files(dir.path()).unwrap().unwrap();
        assert_eq!(
            files,
            [
                dir.path().join("m-1.safetensors"),
                dir.path().join("m-2.safetensors")
            ]
        );
        // printf 'ba78…15ad  m-1.safetensors\ne3b0…b855  m-2.safetensors\n' | sha256sum
        let lines = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  m-1.safetensors\n\
                     e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  m-2.safetensors\n";
        let expected = hex(&Sha256::digest(lines.as_bytes()));
        assert_eq!(
            DigestCache::none().weights_sha256(&files).unwrap(),
            expected
        );
        // One file is named by its own digest, as before sharding existed.
        let one = [dir.path().join("m-1.safetensors")];
        assert_eq!(
            DigestCache::none().weights_sha256(&one).unwrap(),
            sha256_file(&one[0]).unwrap()
        );
    }

    #[test]
    fn an_index_naming_paths_outside_its_folder_is_refused() {
        let err = shard_names(r#"{"weight_map":{"a":"../x.safetensors"}}"#).unwrap_err();
        assert!(err.contains("not a file name"), "{err}");
        assert!(shard_names("{}").unwrap_err().contains("weight_map"));
    }

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
