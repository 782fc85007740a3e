//! Running the real `tracebook` binary in a site folder, as every integration test does: one
//! environment for all (`--root`, and a cache folder inside the site so no test touches the
//! user's ~/.cache).

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `tracebook --root ROOT` with the site's own cache folder.
pub fn tracebook(root: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tracebook"));
    command
        .arg("--root")
        .arg(root)
        .env("XDG_CACHE_HOME", root.join(".cache"))
        .env_remove("NO_COLOR");
    command
}

/// Runs `tracebook --root ROOT ARGS...` to completion.
pub fn run(root: &Path, args: &[&str]) -> Output {
    tracebook(root).args(args).output().unwrap()
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts `output` succeeded, showing its stderr if not; returns its stdout.
pub fn ok(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed:\n{}",
        text(&output.stderr)
    );
    text(&output.stdout)
}
