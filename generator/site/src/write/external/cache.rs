//! The links found OK lately, so a re-check (CI on every push) asks only about new or stale
//! ones: `.tracebook/external-links.json` in the site, URL → when it last answered OK (Unix
//! seconds). A failure is never remembered as OK. The file is written whole, then renamed over
//! the old one, so an interrupted check never leaves half a file.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::time::Duration;

/// Where the cache lives, relative to the site root.
pub const CACHE_FILE: &str = ".tracebook/external-links.json";

/// Bumped when the file's meaning changes; a file of another version is ignored.
const VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkCache {
    version: u32,
    /// URL (without fragment) → Unix time of its last OK answer.
    ok: BTreeMap<String, u64>,
}

impl LinkCache {
    /// The cache at `path`; empty when there is none or it cannot be read (it is only a cache).
    pub fn load(path: &Path) -> LinkCache {
        std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<LinkCache>(&bytes).ok())
            .filter(|cache| cache.version == VERSION)
            .unwrap_or_default()
    }

    /// Whether `url` answered OK less than `max_age` before `now`.
    pub fn is_fresh(&self, url: &str, now: u64, max_age: Duration) -> bool {
        self.ok
            .get(url)
            .is_some_and(|&at| now.saturating_sub(at) < max_age.as_secs())
    }

    pub fn record_ok(&mut self, url: &str, now: u64) {
        self.ok.insert(url.to_string(), now);
    }

    /// A link that failed is asked about again next time, however recently it was OK.
    pub fn forget(&mut self, url: &str) {
        self.ok.remove(url);
    }

    /// Drops entries too old to spare a request.
    pub fn prune(&mut self, now: u64, max_age: Duration) {
        self.ok
            .retain(|_, at| now.saturating_sub(*at) < max_age.as_secs());
    }

    /// Writes the cache to `path` (base::cache_file: atomically, git-ignored).
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let file = LinkCache {
            version: VERSION,
            ok: self.ok.clone(),
        };
        crate::base::cache_file::save(path, &file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = 24 * 60 * 60;
    const WEEK: Duration = Duration::from_secs(7 * DAY);

    #[test]
    fn ok_links_stay_fresh_for_the_max_age() {
        let mut cache = LinkCache::default();
        cache.record_ok("https://a.example/", 1000);
        assert!(cache.is_fresh("https://a.example/", 1000 + 6 * DAY, WEEK));
        assert!(!cache.is_fresh("https://a.example/", 1000 + 7 * DAY, WEEK));
        assert!(!cache.is_fresh("https://a.example/", 1000, Duration::ZERO));
        assert!(!cache.is_fresh("https://b.example/", 1000, WEEK));
    }

    #[test]
    fn a_failure_forgets_the_link_and_pruning_drops_old_ones() {
        let mut cache = LinkCache::default();
        cache.record_ok("https://a.example/", 10 * DAY);
        cache.record_ok("https://old.example/", DAY);
        cache.forget("https://a.example/");
        assert!(!cache.is_fresh("https://a.example/", 10 * DAY, WEEK));
        cache.prune(10 * DAY, WEEK);
        assert!(cache.ok.is_empty());
    }

    #[test]
    fn saves_atomically_and_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CACHE_FILE);
        let mut cache = LinkCache::default();
        cache.record_ok("https://a.example/x", 1234);
        cache.save(&path).unwrap();
        cache.record_ok("https://b.example/", 99);
        cache.save(&path).unwrap();
        let loaded = LinkCache::load(&path);
        assert!(loaded.is_fresh("https://a.example/x", 1234, WEEK));
        assert!(loaded.is_fresh("https://b.example/", 99, WEEK));
        let mut folder: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        folder.sort();
        assert_eq!(
            folder,
            [".gitignore", "external-links.json"],
            "no temp file left"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"https://a.example/x\": 1234"), "{text}");
    }

    #[test]
    fn a_missing_corrupt_or_foreign_file_is_an_empty_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        assert_eq!(LinkCache::load(&path), LinkCache::default());
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(LinkCache::load(&path), LinkCache::default());
        std::fs::write(&path, r#"{"version": 99, "ok": {"https://a/": 1}}"#).unwrap();
        assert_eq!(LinkCache::load(&path), LinkCache::default());
    }
}
