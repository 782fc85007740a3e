//! The example site's claims as `tracebook check --claims list --format json` lists them, for
//! the tests that ask them of other prompts (claims_carry.rs, live_claims.rs).

use std::process::Command;

/// The list of the site at the repository's root: `{"claims": [{file, line, prompt, claim,
/// carries, why, ...}], ...}`.
pub fn example() -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_tracebook"))
        .args(["check", "--claims", "list", "--format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("tracebook runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the list is JSON")
}
