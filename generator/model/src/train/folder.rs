//! Replacing a checkpoint folder as a whole: the new one is written beside it and swapped in
//! by [`swap_folder`], so an interrupted run leaves the last complete checkpoint in place.

use super::error::{TrainError, TrainResult};
use std::path::{Path, PathBuf};
use tracebook_trace::{remove_dir_if_present, swap_folder};

/// Write a new version of folder `target` with `fill`, then swap it in.
pub fn replace(target: &Path, fill: impl FnOnce(&Path) -> TrainResult<()>) -> TrainResult<()> {
    let parent = parent_of(target);
    std::fs::create_dir_all(&parent).map_err(|e| TrainError::write(&parent, e))?;
    let tmp = sibling(target, "tmp");
    remove_if_present(&tmp)?;
    std::fs::create_dir(&tmp).map_err(|e| TrainError::write(&tmp, e))?;
    if let Err(e) = fill(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    swap_folder(target, &tmp, &sibling(target, "previous"))
        .map_err(|e| TrainError::write(target, e))
}

/// After an interruption between the two renames of `replace`, put the previous folder back;
/// a half-written new folder is discarded.
pub fn recover(target: &Path) -> TrainResult<()> {
    let previous = sibling(target, "previous");
    if !target.exists() && previous.is_dir() {
        std::fs::rename(&previous, target).map_err(|e| TrainError::write(target, e))?;
    }
    remove_if_present(&sibling(target, "tmp"))
}

/// Whether `dir` is missing or an empty folder (a new run may only write there).
pub fn is_free(dir: &Path) -> bool {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(_) => !dir.exists(),
    }
}

fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `.NAME.tmp` / `.NAME.previous` next to `target`: same file system, so renames are atomic.
fn sibling(target: &Path, role: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "checkpoint".into());
    parent_of(target).join(format!(".{name}.{role}"))
}

fn remove_if_present(dir: &Path) -> TrainResult<()> {
    remove_dir_if_present(dir).map_err(|e| TrainError::write(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_fill_leaves_the_old_folder_untouched() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("ckpt");
        replace(&target, |d| {
            std::fs::write(d.join("a"), "one").map_err(|e| TrainError::write(d, e))
        })
        .unwrap();
        let failed = replace(&target, |d| {
            std::fs::write(d.join("a"), "two").unwrap();
            Err(TrainError::setting("boom", "none"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(target.join("a")).unwrap(), "one");
        let names: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary folder is left behind");
    }

    #[test]
    fn recover_restores_the_previous_folder() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("ckpt");
        let previous = root.path().join(".ckpt.previous");
        std::fs::create_dir(&previous).unwrap();
        std::fs::write(previous.join("a"), "kept").unwrap();
        recover(&target).unwrap();
        assert_eq!(std::fs::read_to_string(target.join("a")).unwrap(), "kept");
        assert!(is_free(&root.path().join("nothing-here")));
        assert!(!is_free(&target));
    }
}
