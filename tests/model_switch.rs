//! The README's model switch, as an author does it: copy the example site, point `[model] id`
//! at a GPT-2-small-shaped checkpoint (random weights: 12 layers of 12 heads, width 768, as
//! `openai-community/gpt2`), `tracebook trace`; then `build --claims warn` builds every page
//! (the attention figure that picks among all 144 heads included, every page but the print
//! page within 150 KB before a reader picks), `check` fails and names the claims the new model
//! made false, `check --claims list` lists them all, and the training article still builds
//! from its prompts pinned to models/tracebook-mini-en (whose training log it reads). The
//! site's copy lacks the model folders its pinned prompts name (tracebook-mini-en,
//! tracebook-tiny-en, tracebook-mini-llama), as a clone without them would: those prompts
//! keep their traces, fresh by the model's name.

#[path = "support/cli.rs"]
mod cli;
#[path = "../generator/site/tests/support/mod.rs"]
mod support;

use cli::{ok, run, text};
use std::path::Path;

#[test]
fn switching_models_lists_the_prose_to_revise_and_builds_meanwhile() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    for part in ["content", "traces", "templates", "static", "figures"] {
        support::copy_dir(&repo.join(part), &site.join(part));
    }
    std::fs::copy(repo.join("references.bib"), site.join("references.bib")).unwrap();
    let config = std::fs::read_to_string(repo.join("tracebook.toml")).unwrap();
    assert!(config.contains("id = \"models/tracebook-mini-en\""));
    std::fs::write(
        site.join("tracebook.toml"),
        config.replace(
            "id = \"models/tracebook-mini-en\"",
            "id = \"models/random\"",
        ),
    )
    .unwrap();
    let random = site.join("models/random");
    let args = vec![
        "dev",
        "test-model",
        "--shape",
        "small",
        random.to_str().unwrap(),
    ];
    ok(&run(site, &args), "dev test-model");

    assert!(
        !run(site, &["check"]).status.success(),
        "every trace is stale now"
    );
    let traced = ok(&run(site, &["trace", "--offline"]), "trace");
    // The prompts pinned to other models keep their traces: those folders were not copied,
    // and their traces are fresh by the model's name, so nothing needs their weights.
    for pinned in [
        "tracebook-mini-en",
        "tracebook-tiny-en",
        "tracebook-mini-llama",
    ] {
        assert!(
            traced.contains(&format!(
                "traces of model models/{pinned} are up to date (its weights are not here"
            )),
            "{traced}"
        );
    }

    let build = run(site, &["build", "--claims", "warn"]);
    let summary = ok(&build, "build --claims warn");
    let warnings = text(&build.stderr);
    assert!(summary.contains("built"), "{summary}");
    let false_claims = reported(&warnings, "warning: this claim is false");
    assert!(
        false_claims >= 10,
        "a random model falsifies the prose:\n{warnings}"
    );
    assert!(site.join("public/training.html").is_file());
    for page in std::fs::read_dir(site.join("public")).unwrap().flatten() {
        let name = page.file_name().to_string_lossy().into_owned();
        let size = page.metadata().unwrap().len();
        if name.ends_with(".html") && name != "print.html" {
            assert!(
                size <= 150_000,
                "{name} is {size} bytes before a reader picks"
            );
        }
    }
    // heads.md's `pickers = "all"`: 144 panels, the other 143 in a file loaded on first pick.
    let heads = std::fs::read_to_string(site.join("public/heads.html")).unwrap();
    let panels = std::fs::read_to_string(site.join("public/heads.figure-3.panels.js")).unwrap();
    assert!(heads.contains("\"src\":\"heads.figure-3.panels.js\""));
    assert_eq!(panels.matches("data-tb-panel=").count(), 143);
    let training = std::fs::read_to_string(site.join("public/training.html")).unwrap();
    // The training trace names its model as the other traces of the same weights do.
    assert!(training.contains("From the training log of <code>tracebook-mini-en</code>"));

    let check = run(site, &["check"]);
    assert!(!check.status.success(), "check fails on false claims");
    let errors = text(&check.stderr);
    assert_eq!(
        reported(&errors, "error: this claim is false"),
        false_claims
    );
    let first = errors
        .lines()
        .find(|l| l.contains("error: this claim is false"))
        .unwrap();
    let place = first.split(": error").next().unwrap();
    let mut parts = place.split(':');
    assert!(parts.next().unwrap().starts_with("content/"), "{first}");
    assert!(
        parts.next().unwrap().parse::<usize>().is_ok(),
        "a line: {first}"
    );
    assert!(
        parts.next().unwrap().parse::<usize>().is_ok(),
        "a column: {first}"
    );
    assert!(
        first.contains(" is "),
        "with the value that made it false: {first}"
    );

    let list = run(site, &["check", "--claims", "list"]);
    assert!(!list.status.success());
    let listed = text(&list.stdout);
    assert_eq!(
        listed.matches("  FALSE  ").count(),
        false_claims,
        "{listed}"
    );
    assert!(
        listed.contains(&format!("{false_claims} false")),
        "{listed}"
    );
}

/// How many claims the lines starting with `what` report: one each, and those a line adds
/// with "(and N more time(s) in this file" (one message said once per file).
fn reported(said: &str, what: &str) -> usize {
    said.lines()
        .filter(|l| l.contains(what))
        .map(|l| {
            1 + l
                .split_once("(and ")
                .and_then(|(_, rest)| rest.split_once(" more time"))
                .and_then(|(n, _)| n.parse::<usize>().ok())
                .unwrap_or(0)
        })
        .sum()
}

/// Prose that no longer fits a re-traced prompt (a position past its end, a token it no longer
/// holds, as a model with another vocabulary cuts words differently): an error that says where,
/// and under `--claims warn` a warning, the page printing "?" for the value meanwhile.
#[test]
fn values_and_claims_a_trace_cannot_answer_follow_the_claims_policy() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let init = cli::command(dir.path())
        .args(["init", "site", "-q"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    ok(&init, "init");
    let article = site.join("content/tokens.md");
    let body = std::fs::read_to_string(&article).unwrap();
    std::fs::write(
        &article,
        format!(
            "{body}\nThe fortieth token is \"{{{{ token robots 40 }}}}\", and \" nope\" is \
             second.{{{{ claim robots pos(\" nope\") == 1 }}}}\n"
        ),
    )
    .unwrap();
    let strict = run(&site, &["build"]);
    assert!(!strict.status.success());
    let errors = text(&strict.stderr);
    assert!(
        errors.contains("error: position 40 is out of range: prompt `robots`")
            && errors.contains(
                "error: this claim is false of the trace of `robots`: no token of prompt \
                 `robots` is \" nope\""
            ),
        "{errors}"
    );
    assert!(!site.join("public").exists(), "nothing written");

    let meanwhile = run(&site, &["build", "--claims", "warn"]);
    ok(&meanwhile, "build --claims warn");
    let warnings = text(&meanwhile.stderr);
    assert!(
        warnings.contains("warning: position 40 is out of range")
            && warnings.contains("the page prints \"?\" meanwhile"),
        "{warnings}"
    );
    let page = std::fs::read_to_string(site.join("public/tokens.html")).unwrap();
    assert!(
        page.contains("data-tb-of=\"token robots 40\">?</span>")
            && page.contains("class=\"tb-claim tb-claim-false\""),
        "{page}"
    );
}
