//! Putting a freshly written folder in place of an old one, for the site output and for
//! training checkpoints: one rule, so both survive being killed at any instant.

use std::fs;
use std::io;
use std::path::Path;

/// Puts folder `new` in place of `target`; `old` is a free name beside them for the
/// fallback. On Linux the two folders are exchanged in one `renameat2(RENAME_EXCHANGE)`, so
/// at every instant `target` is complete (a process killed at any point leaves the previous
/// one, or the new one with the previous in `new`); where the platform or file system cannot,
/// two renames leave a brief gap in which the previous folder waits in `old`.
pub fn swap_folder(target: &Path, new: &Path, old: &Path) -> io::Result<()> {
    if !target.exists() {
        return fs::rename(new, target);
    }
    if exchange(new, target)? {
        // `new` now holds the previous folder.
        return fs::remove_dir_all(new);
    }
    remove_dir_if_present(old)?;
    fs::rename(target, old)?;
    if let Err(err) = fs::rename(new, target) {
        let _ = fs::rename(old, target);
        return Err(err);
    }
    fs::remove_dir_all(old)
}

/// Removes folder `dir` and everything in it; a missing one is fine.
pub fn remove_dir_if_present(dir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

/// Atomically exchanges two paths; `Ok(false)` where the platform or file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    use rustix::io::Errno;
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => Ok(false),
        Err(errno) => Err(errno.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<bool> {
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_folder_takes_the_place_of_the_old_one() {
        let root = tempfile::tempdir().unwrap();
        let (target, new, old) = (
            root.path().join("out"),
            root.path().join(".out-new"),
            root.path().join(".out-old"),
        );
        for (dir, text) in [(&target, "before"), (&new, "after")] {
            fs::create_dir(dir).unwrap();
            fs::write(dir.join("a"), text).unwrap();
        }
        swap_folder(&target, &new, &old).unwrap();
        assert_eq!(fs::read_to_string(target.join("a")).unwrap(), "after");
        let names: Vec<_> = fs::read_dir(root.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "neither `new` nor `old` is left behind");
    }

    #[test]
    fn a_missing_target_is_simply_created() {
        let root = tempfile::tempdir().unwrap();
        let (target, new) = (root.path().join("out"), root.path().join(".out-new"));
        fs::create_dir(&new).unwrap();
        swap_folder(&target, &new, &root.path().join(".out-old")).unwrap();
        assert!(target.is_dir() && !new.exists());
        remove_dir_if_present(&new).unwrap();
    }
}
