//! Running the real `tracebook` binary as every integration test does: one environment for
//! all, with the caches (`XDG_CACHE_HOME`, `HF_HOME`) in a folder of the test's own, so no test
//! touches the user's ~/.cache or the network's Hugging Face cache, and `NO_COLOR` unset so
//! output is what a user piping it sees.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `tracebook` with its caches under `home` (no `--root`: for commands such as `init`, `dev`,
/// `train` and ad-hoc `trace`, or a site found from the working directory).
pub fn command(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tracebook"));
    command
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("HF_HOME", home.join(".cache/huggingface"))
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("NO_COLOR");
    command
}

/// `tracebook --root ROOT` with the site's own cache folder.
pub fn tracebook(root: &Path) -> Command {
    let mut command = command(root);
    command.arg("--root").arg(root);
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
