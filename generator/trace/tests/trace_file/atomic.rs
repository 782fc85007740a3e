//! Writing traces: atomic replacement, nothing left behind on failure.

use crate::common::small_trace;
use std::fs;
use std::path::Path;
use tracebook_trace::{write_atomic, Precision, Trace, TraceError};

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn writing_creates_and_then_replaces_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("robots.json");
    write_atomic(&path, b"first").unwrap();
    write_atomic(&path, b"second").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    assert_eq!(
        entries(dir.path()),
        ["robots.json"],
        "no temporary file is left"
    );
}

#[test]
fn a_failed_write_leaves_the_target_and_the_folder_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("traces");
    fs::create_dir(&target).unwrap();
    fs::write(target.join("keep.json"), b"old").unwrap();
    assert!(
        write_atomic(&target, b"new").is_err(),
        "a folder cannot be replaced by a file"
    );
    assert_eq!(fs::read(target.join("keep.json")).unwrap(), b"old");
    assert_eq!(
        entries(dir.path()),
        ["traces"],
        "the temporary file was removed"
    );
    assert!(write_atomic(&dir.path().join("missing/robots.json"), b"x").is_err());
}

#[cfg(unix)]
#[test]
fn written_files_get_the_usual_permissions_not_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    let atomic = dir.path().join("atomic");
    fs::write(&plain, b"x").unwrap();
    write_atomic(&atomic, b"x").unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&atomic), mode(&plain));
}

#[test]
fn a_trace_written_then_read_is_the_same_trace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("robots.json");
    let trace = small_trace(Precision::Compact);
    trace.write(&path).unwrap();
    assert_eq!(Trace::read(&path).unwrap(), trace);
    assert_eq!(fs::read_to_string(&path).unwrap(), trace.to_json());
}

#[test]
fn a_trace_that_cannot_be_written_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/folder/robots.json");
    let err = small_trace(Precision::Compact).write(&path).unwrap_err();
    assert!(matches!(err, TraceError::Write { .. }));
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{}: cannot write", path.display())),
        "{message}"
    );
    assert!(
        message.contains("hint: check that its folder exists"),
        "{message}"
    );
}
