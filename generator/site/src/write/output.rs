//! Writes the output atomically: into a temporary folder beside the target, swapped in only
//! when every file is written, so a failed build leaves the previous output as it was.
//!
//! A file whose bytes the previous output already holds is hard-linked from there instead of
//! written: a rebuild (every `serve` reload) mostly writes the same files, and on ext4 creating
//! thousands of new inodes while the previous thousands are deleted was most of a 1,000-article
//! build's time. The previous folder is removed after the swap, so each file keeps one name.

use crate::base::diagnostic::Diagnostic;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use tracebook_trace::{remove_dir_if_present, swap_folder};

/// Replaces `out_dir` with exactly `files` (paths relative to it, `/`-separated).
pub fn write_atomic(out_dir: &Path, files: &BTreeMap<String, Vec<u8>>) -> Result<u64, Diagnostic> {
    let shown = out_dir.display().to_string();
    refuse_foreign_folder(out_dir, &shown)?;
    let (new, old) = siblings(out_dir);
    let fail = |what: &str, err: std::io::Error| {
        Diagnostic::file(&shown, format!("{what}: {err}"))
            .with_hint("check that the output folder's parent exists and is writable")
    };
    remove_leftovers(out_dir);
    remove_dir_if_present(&new).map_err(|e| fail("cannot clear a leftover temporary folder", e))?;
    let previous = out_dir.join("index.html").is_file().then_some(out_dir);
    let written = match write_all(&new, files, previous) {
        Ok(bytes) => bytes,
        Err(err) => {
            let _ = fs::remove_dir_all(&new);
            return Err(fail(&format!("cannot write into {}", new.display()), err));
        }
    };
    swap_folder(out_dir, &new, &old).map_err(|e| {
        let _ = fs::remove_dir_all(&new);
        fail("cannot move the new output into place", e)
    })?;
    Ok(written)
}

/// Never replace a folder that is not a previous output (no index.html): it may be the author's.
fn refuse_foreign_folder(out_dir: &Path, shown: &str) -> Result<(), Diagnostic> {
    if out_dir.is_file() {
        return Err(
            Diagnostic::file(shown, "the output path is a file, not a folder")
                .with_hint("pass another folder with --out"),
        );
    }
    let is_empty = fs::read_dir(out_dir)
        .map(|mut d| d.next().is_none())
        .unwrap_or(true);
    if out_dir.is_dir() && !is_empty && !out_dir.join("index.html").is_file() {
        return Err(Diagnostic::file(shown, "refusing to replace this folder: it is not empty and holds no index.html, so it does not look like a previous build")
            .with_hint("pass an empty or new folder with --out, or remove this one yourself"));
    }
    Ok(())
}

/// `.NAME-new-PID` and `.NAME-old-PID` beside `out_dir`.
fn siblings(out_dir: &Path) -> (PathBuf, PathBuf) {
    let parent = out_dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = out_dir
        .file_name()
        .map_or_else(|| "public".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    (
        parent.join(format!(".{name}-new-{pid}")),
        parent.join(format!(".{name}-old-{pid}")),
    )
}

/// Writes `files` into `dir`, linking those that `previous` holds with the same bytes.
fn write_all(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    previous: Option<&Path>,
) -> std::io::Result<u64> {
    fs::create_dir_all(dir)?;
    let mut bytes = 0;
    for (path, content) in files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        let unchanged = previous
            .map(|p| p.join(path))
            .filter(|old| holds(old, content));
        if unchanged.is_none_or(|old| fs::hard_link(old, &target).is_err()) {
            fs::write(&target, content)?;
        }
        bytes += content.len() as u64;
    }
    Ok(bytes)
}

/// Whether `path` is a regular file (not a link) of exactly `content`.
fn holds(path: &Path, content: &[u8]) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == content.len() as u64)
        && fs::read(path).is_ok_and(|old| old == content)
}

/// Removes `.NAME-new-PID` and `.NAME-old-PID` folders beside `out_dir` that builds killed
/// before they could clean up left behind (their process is gone); a running build's stay.
fn remove_leftovers(out_dir: &Path) {
    let (new, _) = siblings(out_dir);
    let (Some(parent), Some(name)) = (new.parent(), out_dir.file_name()) else {
        return;
    };
    let name = name.to_string_lossy();
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let pid = [format!(".{name}-new-"), format!(".{name}-old-")]
            .iter()
            .find_map(|prefix| file_name.strip_prefix(prefix.as_str()))
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !process_is_running(pid) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}

fn process_is_running(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        pairs
            .iter()
            .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn replaces_the_previous_output_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_atomic(&out, &files(&[("index.html", "one"), ("old.html", "x")])).unwrap();
        let bytes =
            write_atomic(&out, &files(&[("index.html", "two"), ("sub/a.html", "a")])).unwrap();
        assert_eq!(bytes, 4);
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "two");
        assert!(out.join("sub/a.html").is_file());
        assert!(!out.join("old.html").exists());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["public"]);
    }

    #[cfg(unix)]
    #[test]
    fn files_of_the_same_bytes_are_linked_from_the_previous_output() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let inode = |name: &str| fs::metadata(out.join(name)).unwrap().ino();
        write_atomic(
            &out,
            &files(&[("index.html", "one"), ("a/same.svg", "s"), ("b.css", "b")]),
        )
        .unwrap();
        let (index, same, css) = (inode("index.html"), inode("a/same.svg"), inode("b.css"));
        write_atomic(
            &out,
            &files(&[("index.html", "two"), ("a/same.svg", "s"), ("b.css", "c")]),
        )
        .unwrap();
        assert_eq!(
            inode("a/same.svg"),
            same,
            "the unchanged file is the same file"
        );
        assert_ne!(inode("index.html"), index);
        assert_ne!(inode("b.css"), css);
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "two");
        assert_eq!(fs::read_to_string(out.join("b.css")).unwrap(), "c");
        assert_eq!(fs::metadata(out.join("a/same.svg")).unwrap().nlink(), 1);
    }

    #[test]
    fn refuses_to_replace_a_folder_that_is_not_an_output() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = write_atomic(dir.path(), &files(&[("index.html", "x")])).unwrap_err();
        assert!(err.message.contains("refusing to replace"), "{err}");
        assert!(dir.path().join("notes.txt").is_file());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn removes_what_killed_builds_left_but_not_a_running_builds_folder() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        // No process has pid 4194305 (above Linux's pid_max).
        let dead = dir.path().join(".public-new-4194305");
        let dead_old = dir.path().join(".public-old-4194305");
        let other = dir.path().join(".publications-new-4194305");
        for folder in [&dead, &dead_old, &other] {
            fs::create_dir_all(folder).unwrap();
        }
        // The parent of this test process is running; its folder must survive.
        let parent = std::os::unix::process::parent_id();
        let alive = dir.path().join(format!(".public-new-{parent}"));
        fs::create_dir_all(&alive).unwrap();
        write_atomic(&out, &files(&[("index.html", "x")])).unwrap();
        assert!(
            !dead.exists() && !dead_old.exists(),
            "a dead build's folders are removed"
        );
        assert!(alive.exists(), "a running build's folder stays");
        assert!(other.exists(), "another output's folder is not ours");
    }
}
