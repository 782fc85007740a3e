//! Notices edits by polling: a snapshot of the size and modification time of every file the
//! build reads (config, content, templates, static, traces), compared every 50 ms. Polling
//! needs no platform API and costs well under a millisecond on a site of a few hundred files.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What the build reads, relative to the site folder.
const WATCHED: &[&str] = &["tracebook.toml", "content", "templates", "static", "traces"];

/// Every watched file's size and modification time.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Snapshot(BTreeMap<PathBuf, (u64, Option<SystemTime>)>);

impl Snapshot {
    pub fn take(root: &Path) -> Snapshot {
        let mut files = BTreeMap::new();
        for name in WATCHED {
            visit(&root.join(name), &mut files);
        }
        Snapshot(files)
    }

    /// The files added, removed or changed since `earlier`, relative to `root`.
    pub fn changes(&self, earlier: &Snapshot, root: &Path) -> Vec<String> {
        let shown = |p: &PathBuf| p.strip_prefix(root).unwrap_or(p).display().to_string();
        let changed = self
            .0
            .iter()
            .filter(|(path, stamp)| earlier.0.get(*path) != Some(stamp))
            .map(|(path, _)| shown(path));
        let removed = earlier
            .0
            .keys()
            .filter(|path| !self.0.contains_key(*path))
            .map(shown);
        changed.chain(removed).collect()
    }
}

fn visit(path: &Path, files: &mut BTreeMap<PathBuf, (u64, Option<SystemTime>)>) {
    let Ok(meta) = fs::metadata(path) else {
        return;
    };
    if meta.is_file() {
        files.insert(path.to_path_buf(), (meta.len(), meta.modified().ok()));
        return;
    }
    let Ok(entries) = fs::read_dir(path) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // Editors' swap and backup files are not the site.
        if name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp") {
            continue;
        }
        visit(&entry.path(), files);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_and_a_new_file_are_noticed_but_not_swap_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("content")).unwrap();
        fs::write(root.join("content/a.md"), "one").unwrap();
        let before = Snapshot::take(root);
        fs::write(root.join("content/a.md"), "three").unwrap();
        fs::write(root.join("content/.a.md.swp"), "x").unwrap();
        fs::write(root.join("tracebook.toml"), "x").unwrap();
        let after = Snapshot::take(root);
        assert_eq!(
            after.changes(&before, root),
            ["content/a.md", "tracebook.toml"]
        );
    }
}
