//! The `tracebook trace` and `inspect` commands as a user runs them: real binary, real files,
//! on the tiny random-weights test model.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

#[path = "support/cli.rs"]
mod cli;

fn run(args: &[&str], root: &Path) -> Output {
    cli::run(root, args)
}

/// `tracebook trace --model MODEL --prompt PROMPT --out OUT`, then `extra`, run in `root`.
fn trace_prompt(model: &str, prompt: &str, out: &Path, extra: &[&str], root: &Path) -> Output {
    let out = out.to_str().unwrap();
    let mut args = vec!["trace", "--model", model, "--prompt", prompt, "--out", out];
    args.extend_from_slice(extra);
    run(&args, root)
}

fn stderr(o: &Output) -> String {
    cli::text(&o.stderr)
}

/// One tiny test model for all tests of this file (written once, read-only afterwards).
fn model() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny");
        let out = cli::tracebook(dir.path())
            .args(["dev", "test-model"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        (dir, path)
    })
    .1
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn ad_hoc_trace_then_inspect_prints_exact_f32_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let o = trace_prompt(
        model().to_str().unwrap(),
        "The robots will bring",
        &out,
        &["--precision", "f32"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["inspect", out.to_str().unwrap()], dir.path());
    let listing = String::from_utf8(o.stdout).unwrap();
    assert!(
        listing.contains("blocks.1.attn.pattern") && listing.contains("4×4×4"),
        "{listing}"
    );
    let o = run(
        &[
            "inspect",
            out.to_str().unwrap(),
            "--tensor",
            "blocks.0.ln1.std",
            "--json",
        ],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let values = json["data"].as_array().unwrap();
    assert_eq!(values.len(), 4);
    assert!(values.iter().all(|v| v.as_f64().unwrap() > 0.0));
    // For a person: the tokens and their positions, then a table, a block per head.
    let file = out.to_str().unwrap();
    let listing = String::from_utf8(run(&["inspect", file], dir.path()).stdout).unwrap();
    assert!(
        listing.contains("tokens    4: 0 \"The\"  1 \" robots\""),
        "{listing}"
    );
    let o = run(
        &["inspect", file, "--tensor", "blocks.1.attn.pattern"],
        dir.path(),
    );
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(
        table.starts_with("blocks.1.attn.pattern  4×4×4 (heads × queries × keys)\n"),
        "{table}"
    );
    assert_eq!(table.matches("\nhead ").count(), 4, "{table}");
    assert!(
        table.contains("\n  0 \"The\"           1.000          0"),
        "{table}"
    );
    assert!(
        table.contains("keys  "),
        "the key tokens head the columns: {table}"
    );

    // Ids print as integers with their token text, a row per position, a column per rank.
    let file = out.to_str().unwrap();
    let o = run(
        &["inspect", file, "--tensor", "logits.topk_ids"],
        dir.path(),
    );
    let rows = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = rows.lines().collect();
    assert!(lines[0].contains("(positions × ranks)"), "{rows}");
    assert_eq!(
        lines.len(),
        2 + 4,
        "a title, the ranks, a row per token: {rows}"
    );
    let first = lines[2];
    assert!(
        first.starts_with("  0 \"The\"") && !first.contains(".0"),
        "{first}"
    );
    assert!(first.contains(" \""), "token text beside each id: {first}");
    assert!(first.ends_with("more (--all-columns)"), "{first}");

    // A 3-D tensor that is not by head is a grid per layer; every column on request.
    let o = run(
        &[
            "inspect",
            file,
            "--tensor",
            "logit_lens.topk_probs",
            "--all-columns",
        ],
        dir.path(),
    );
    let grids = String::from_utf8(o.stdout).unwrap();
    let title = grids.lines().next().unwrap();
    assert!(title.ends_with("(layers × positions × ranks)"), "{grids}");
    let ranks: usize = title.split(['×', ' ']).nth(4).unwrap().parse().unwrap();
    assert!(
        grids.contains("\nlayer 0\n") && !grids.contains("\nhead "),
        "{grids}"
    );
    assert!(!grids.contains("more"), "every column: {grids}");
    let row = grids
        .lines()
        .find(|l| l.starts_with("  0 \"The\""))
        .unwrap();
    let values = row.split_once("\"The\"").unwrap().1;
    assert_eq!(
        values.split_whitespace().count(),
        ranks,
        "every rank: {row}"
    );
    let o = run(
        &["inspect", file, "--tensor", "logits.topk_ids", "--json"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = json["data"][0].as_u64().expect("an integer id");
    assert!(json["token_texts"][id.to_string()].is_string(), "{json}");
}

#[test]
fn bad_prompts_fail_cleanly_and_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let long = " robot".repeat(1100);
    for (prompt, expected) in [
        ("", "the prompt is empty"),
        (long.as_str(), "context of 1024"),
    ] {
        let o = trace_prompt(model().to_str().unwrap(), prompt, &out, &[], dir.path());
        assert!(!o.status.success());
        assert!(stderr(&o).contains(expected), "{}", stderr(&o));
        assert_eq!(
            files_in(dir.path()),
            Vec::<String>::new(),
            "no partial or temporary file"
        );
    }
}

#[test]
fn a_missing_model_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let o = trace_prompt(
        "./no-such-model",
        "hi",
        Path::new("t.json"),
        &[],
        dir.path(),
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no-such-model does not exist"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn corrupt_and_future_traces_are_refused_with_the_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"format\": \"tracebook-trace\", \"version\": 1, \"meta\": ",
    )
    .unwrap();
    let o = run(&["inspect", bad.to_str().unwrap()], dir.path());
    assert!(!o.status.success());
    assert!(stderr(&o).contains("bad.json"), "{}", stderr(&o));
    let future = dir.path().join("future.json");
    std::fs::write(&future, "{\"format\": \"tracebook-trace\", \"version\": 3}").unwrap();
    let o = run(&["inspect", future.to_str().unwrap()], dir.path());
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("future.json") && err.contains("version 3"),
        "{err}"
    );
}

#[test]
fn site_trace_writes_missing_skips_fresh_and_rewrites_stale() {
    let site = tempfile::tempdir().unwrap();
    let config = |cats: &str| {
        format!(
            "title = \"t\"\n[model]\nid = \"{}\"\n[prompts]\nrobots = \"The robots will bring\"\ncats = {{ text = \"{cats}\", generate = 2 }}\n",
            model().display()
        )
    };
    std::fs::create_dir(site.path().join("content")).unwrap();
    std::fs::write(
        site.path().join("tracebook.toml"),
        config("I like cats and"),
    )
    .unwrap();
    let o = run(&["trace"], site.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files_in(&site.path().join("traces")),
        ["cats.json", "robots.json"]
    );
    let robots = std::fs::read(site.path().join("traces/robots.json")).unwrap();

    let o = run(&["trace"], site.path());
    let said = cli::text(&o.stdout);
    assert!(
        said.contains(&format!(
            "all 2 traces of model {} are up to date",
            model().display()
        )),
        "{said}"
    );

    std::fs::write(
        site.path().join("tracebook.toml"),
        config("I like dogs and"),
    )
    .unwrap();
    let o = run(&["trace"], site.path());
    let said = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        said.contains("wrote 1 trace(s)") && said.contains("1 up to date"),
        "{said}"
    );
    assert!(
        said.contains("cats.json") && said.contains("prompt text"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(site.path().join("traces/robots.json")).unwrap(),
        robots
    );

    let o = run(&["trace", "--only", "robts"], site.path());
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no prompt named \"robts\""),
        "{}",
        stderr(&o)
    );
}

/// A copy of the tiny test model in `dir`, with `log` as its training_log.json.
fn model_with_log(dir: &Path, log: &[u8]) -> PathBuf {
    let copy = dir.join("trained");
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(model()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    std::fs::write(copy.join("training_log.json"), log).unwrap();
    copy
}

#[test]
fn a_model_trained_by_tracebook_puts_its_training_run_in_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let log_path = repo.join("models/tracebook-tiny-en/training_log.json");
    let log: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&log_path).unwrap()).unwrap();
    let trained = model_with_log(dir.path(), &std::fs::read(&log_path).unwrap());
    let out = dir.path().join("t.json");
    let o = trace_prompt(
        trained.to_str().unwrap(),
        "The robots will bring",
        &out,
        &[],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let trace = tracebook_trace::Trace::read(&out).unwrap();
    let run = trace
        .meta
        .training
        .expect("the trace records the training run");
    let steps = log["steps"].as_array().unwrap();
    assert_eq!(run.steps, steps.len());
    assert!(
        run.loss.len() <= 200 && run.loss.len() >= 100,
        "{}",
        run.loss.len()
    );
    assert_eq!(run.loss.last().unwrap().0, run.steps);
    let first_group = run.loss[0].0;
    let mean: f64 = steps[..first_group]
        .iter()
        .map(|s| s["loss"].as_f64().unwrap())
        .sum::<f64>()
        / first_group as f64;
    assert!(
        (run.loss[0].1 - mean).abs() < 1e-9,
        "the first point is its group's mean"
    );
    let validated = steps.iter().filter(|s| s.get("val_loss").is_some()).count();
    assert_eq!(
        run.val_loss.len(),
        validated + 1,
        "every validation loss and step 0"
    );
    assert_eq!(
        run.val_loss[0],
        (0, log["initial_val_loss"].as_f64().unwrap())
    );
    assert_eq!(run.bigram_val_loss, log["bigram"]["val_loss"].as_f64());
}

#[test]
fn a_broken_training_log_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let trained = model_with_log(dir.path(), b"{ not json");
    let out = dir.path().join("t.json");
    let o = trace_prompt(
        trained.to_str().unwrap(),
        "The robots",
        &out,
        &[],
        dir.path(),
    );
    assert!(!o.status.success());
    let message = stderr(&o);
    assert!(message.contains("training_log.json"), "{message}");
    assert!(
        message.contains("not a training log tracebook can read"),
        "{message}"
    );
    assert!(message.contains("remove training_log.json"), "{message}");
    assert!(!out.exists());
}

#[test]
fn inspect_into_a_reader_that_stops_early_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let o = trace_prompt(
        model().to_str().unwrap(),
        "The robots will bring",
        &out,
        &["--precision", "f32"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // As `tracebook inspect t.json --tensor logits.last | head -c 1`: the reader is gone before
    // the output is written.
    let mut child = cli::tracebook(dir.path())
        .args(["inspect", out.to_str().unwrap(), "--tensor", "logits.last"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    let said = cli::text(&done.stderr);
    assert!(!said.contains("panicked"), "{said}");
    assert!(done.status.success(), "{said}");
}

/// `trace --prompt` outside a site with no `--model` wants GPT-2; offline and without it in the
/// cache, the error says how to trace with the built-in model instead, and that works.
#[test]
fn an_ad_hoc_trace_without_gpt2_says_how_to_use_the_built_in_model() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("hf");
    let file = dir.path().join("t.json");
    let refused = cli::tracebook(dir.path())
        .env("HF_HOME", &cache)
        .env("HF_HUB_CACHE", cache.join("hub"))
        .args([
            "trace",
            "--offline",
            "--prompt",
            "The cat sat",
            "--out",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = stderr(&refused);
    assert!(said.contains("--model tracebook-mini-en"), "{said}");
    assert!(!file.exists());
    let o = run(
        &[
            "trace",
            "--offline",
            "--model",
            "tracebook-mini-en",
            "--prompt",
            "The cat sat",
            "--out",
            file.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains("tracebook-mini-en"));
}

/// A site made when tracebook-tiny-en was the built-in model, naming it with no folder of that
/// name: `trace` says what replaced it and both ways on, and writes nothing.
#[test]
fn the_retired_built_in_model_is_an_error_that_names_its_successor() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.json");
    let o = run(
        &[
            "trace",
            "--offline",
            "--model",
            "tracebook-tiny-en",
            "--prompt",
            "The cat sat",
            "--out",
            file.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(!o.status.success());
    let said = stderr(&o);
    assert!(
        said.contains("tracebook-tiny-en is no longer built into tracebook")
            && said.contains("id = \"tracebook-mini-en\"")
            && said.contains("models/tracebook-tiny-en"),
        "{said}"
    );
    assert!(!file.exists());
}
