//! Fault tests: what a killed, doubled or starved `tracebook` leaves behind. A build killed
//! at any moment leaves the previous `public/` complete; a trace killed mid-write leaves no
//! partial trace; two builds at once both finish with a correct `public/`; a read-only or
//! full output file system gives a clear error and keeps the previous output; a closed pipe
//! (`tracebook figures | head`) is no error.

#[path = "../generator/site/tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{read_tree, sites_dir, TempSite};

#[path = "support/cli.rs"]
mod cli;

use cli::{run, text, tracebook};

/// SplitMix64, so every run kills at the same moments.
struct Rng(tracebook_trace::SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n.max(1)
    }
}

/// The `full` fixture site with `extra` more articles, so a build takes long enough to be
/// killed in the middle of its work.
fn big_site(extra: usize) -> TempSite {
    let site = TempSite::new(&sites_dir().join("valid/full"));
    let article = std::fs::read_to_string(site.root().join("content/tokens.md")).unwrap();
    for i in 0..extra {
        let copy = article.replace("weight = 10", &format!("weight = {}", 100 + i));
        std::fs::write(site.root().join(format!("content/copy-{i:03}.md")), copy).unwrap();
    }
    site
}

/// Files of the output folder, and names of what lies beside it (temporaries included).
fn output_of(root: &Path, out: &Path) -> (BTreeMap<String, Vec<u8>>, Vec<String>) {
    let mut beside: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".public"))
        .collect();
    beside.sort();
    (read_tree(out), beside)
}

/// Runs `command`, kills it with SIGKILL after `delay`, and reaps it. True if it was still
/// running when the kill came.
fn kill_after(mut command: Command, delay: Duration) -> bool {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let was_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    was_running
}

#[test]
fn a_build_killed_at_any_moment_leaves_the_previous_output_complete() {
    let site = big_site(150);
    let out = site.root().join("public");
    let started = Instant::now();
    let first = run(site.root(), &["build"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let took = started.elapsed();
    let (expected, _) = output_of(site.root(), &out);
    assert!(expected.len() > 150, "the big site has its pages");

    let mut rng = Rng(tracebook_trace::SplitMix64::new(7));
    let mut killed_mid_build = 0;
    let span = (took.as_micros() as u64 * 12 / 10).max(1_000);
    for round in 0..40 {
        let delay = Duration::from_micros(rng.below(span));
        let mut command = tracebook(site.root());
        command.arg("build");
        killed_mid_build += usize::from(kill_after(command, delay));
        let (files, _) = output_of(site.root(), &out);
        // The first file that differs, for a failure to say where to look.
        let differs = (expected.iter())
            .find(|(name, bytes)| files.get(*name) != Some(*bytes))
            .map(|(name, _)| name.clone())
            .or_else(|| files.keys().find(|n| !expected.contains_key(*n)).cloned());
        assert!(
            files == expected,
            "round {round}: killed after {delay:?}, public/ is not the complete output \
             ({} files of {}; first difference: {differs:?})",
            files.len(),
            expected.len()
        );
    }
    assert!(
        killed_mid_build >= 20,
        "most kills land mid-build ({killed_mid_build} of 40; a build takes {took:?})"
    );

    // The next build cleans up what the killed ones left beside public/.
    let again = run(site.root(), &["build"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let (files, beside) = output_of(site.root(), &out);
    assert_eq!(files, expected);
    assert_eq!(beside, Vec::<String>::new(), "no temporaries are left");
}

#[test]
fn two_builds_at_once_both_finish_with_a_correct_output() {
    let site = big_site(40);
    let out = site.root().join("public");
    let first = run(site.root(), &["build"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let (expected, _) = output_of(site.root(), &out);
    for round in 0..10 {
        let children: Vec<_> = (0..2)
            .map(|_| {
                tracebook(site.root())
                    .arg("build")
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                text(&output.stderr)
            );
        }
        let (files, beside) = output_of(site.root(), &out);
        assert!(files == expected, "round {round}: public/ differs");
        assert_eq!(
            beside,
            Vec::<String>::new(),
            "round {round}: temporaries left"
        );
    }
}

/// One tiny random-weights model for the trace tests.
fn test_model(dir: &Path) -> PathBuf {
    let path = dir.join("tiny");
    let out = cli::command(dir)
        .args(["dev", "test-model"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    path
}

#[test]
fn a_trace_killed_mid_write_leaves_no_partial_trace() {
    let dir = tempfile::tempdir().unwrap();
    let model = test_model(dir.path());
    let target = dir.path().join("t.json");
    // A long prompt and f32, so writing the trace takes a while.
    let prompt = "The robots will bring peace and food to every town. ".repeat(8);
    let args = |command: &mut Command| {
        command.args([
            "trace",
            "--model",
            model.to_str().unwrap(),
            "--prompt",
            &prompt,
            "--precision",
            "f32",
            "--out",
            target.to_str().unwrap(),
        ]);
    };
    let started = Instant::now();
    let mut command = tracebook(dir.path());
    args(&mut command);
    let whole = command.output().unwrap();
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let took = started.elapsed();
    let complete = std::fs::read(&target).unwrap();
    std::fs::remove_file(&target).unwrap();

    let mut rng = Rng(tracebook_trace::SplitMix64::new(11));
    let span = took.as_micros() as u64 * 12 / 10;
    let mut outcomes = BTreeMap::from([("absent", 0), ("complete", 0)]);
    for round in 0..16 {
        let delay = Duration::from_micros(rng.below(span));
        let mut command = tracebook(dir.path());
        args(&mut command);
        kill_after(command, delay);
        match std::fs::read(&target) {
            Err(_) => *outcomes.get_mut("absent").unwrap() += 1,
            Ok(bytes) => {
                assert!(
                    bytes == complete,
                    "round {round}: killed after {delay:?}, t.json is partial ({} of {} bytes)",
                    bytes.len(),
                    complete.len()
                );
                tracebook_trace::Trace::read(&target).unwrap();
                *outcomes.get_mut("complete").unwrap() += 1;
                std::fs::remove_file(&target).unwrap();
            }
        }
    }
    assert!(
        outcomes["absent"] > 0,
        "some kills came before the write: {outcomes:?}"
    );
}

/// A tmpfs mounted at a new folder (`.0`), unmounted on drop, then its folder (`.1`) removed;
/// `None` where this process may not mount (not root), and the test says so.
struct Tmpfs(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Tmpfs {
    fn mount(options: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let point = dir.path().join("mnt");
        std::fs::create_dir(&point).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&point)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("cannot mount a tmpfs here (not root?): this fault test does not run");
            return None;
        }
        Some(Tmpfs(point, dir))
    }

    fn remount(&self, options: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_read_only_output_folder_is_a_clear_error_that_keeps_the_previous_output() {
    let site = big_site(0);
    let Some(fs) = Tmpfs::mount("size=16m") else {
        return;
    };
    let out = fs.0.join("public");
    let out_arg = out.to_str().unwrap();
    let first = run(site.root(), &["build", "--out", out_arg]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let before = read_tree(&out);
    fs.remount("ro");
    let second = run(site.root(), &["build", "--out", out_arg]);
    let stderr = text(&second.stderr);
    assert!(!second.status.success());
    assert!(stderr.contains(out_arg), "names the folder: {stderr}");
    assert!(
        stderr.contains("Read-only file system"),
        "says why: {stderr}"
    );
    assert!(stderr.contains("writable"), "says what to do: {stderr}");
    assert_eq!(read_tree(&out), before);
}

#[test]
fn a_full_disk_is_a_clear_error_that_keeps_the_previous_output() {
    let site = big_site(0);
    let Some(fs) = Tmpfs::mount("size=1m") else {
        return;
    };
    let out = fs.0.join("public");
    let out_arg = out.to_str().unwrap();
    let first = run(site.root(), &["build", "--out", out_arg]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let before = read_tree(&out);
    let used: usize = before.values().map(Vec::len).sum();
    assert!(used < 600_000, "the small site fits twice: {used} bytes");
    // Fill the disk, leaving less room than a second copy of the output needs.
    let filler = vec![0u8; 1_048_576 - used - used / 2];
    let _ = std::fs::write(fs.0.join("filler"), &filler);
    // The files the previous output holds are linked, not copied; a new one as large as the
    // whole output cannot fit.
    let static_dir = site.root().join("static");
    std::fs::create_dir_all(&static_dir).unwrap();
    std::fs::write(static_dir.join("new.bin"), vec![7u8; used]).unwrap();
    let second = run(site.root(), &["build", "--out", out_arg]);
    let stderr = text(&second.stderr);
    assert!(!second.status.success(), "the build cannot fit");
    assert!(
        stderr.contains("No space left on device"),
        "says why: {stderr}"
    );
    assert!(stderr.contains(out_arg), "names the folder: {stderr}");
    assert_eq!(read_tree(&out), before, "the previous output is whole");
    let beside: Vec<String> = std::fs::read_dir(&fs.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        beside.iter().all(|n| !n.starts_with(".public")),
        "the half-written temporary is removed: {beside:?}"
    );
}

/// `tracebook figures | head` where head has already gone: no error and no panic, as for
/// `inspect` (tests/cli_trace.rs); every command prints its output through `outln!`.
#[test]
fn a_closed_pipe_is_no_error() {
    let home = tempfile::tempdir().unwrap();
    for args in [&["figures"][..], &["figures", "attention"][..]] {
        let mut child = tracebook(home.path())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the command writes a line.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = text(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            output.status.success(),
            "{args:?}: {:?} {stderr}",
            output.status
        );
    }
}
