//! `tracebook build` and `tracebook check` as a user runs them: the real binary on fixture
//! sites (tests/sites) and on the example site at the repository root.

#[path = "../generator/site/tests/support/mod.rs"]
mod support;

#[path = "support/cli.rs"]
mod cli;

use cli::text;
use std::path::Path;
use std::process::Output;
use support::{read_tree, sites_dir, TempSite};

fn tracebook(root: &Path, args: &[&str]) -> Output {
    cli::run(root, args)
}

#[test]
fn build_writes_the_site_and_says_what_it_did() {
    let site = TempSite::new(&sites_dir().join("valid/full"));
    let out = tracebook(site.root(), &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("built 4 pages (3 figures, "), "{stdout}");
    let public = site.root().join("public");
    for file in [
        "index.html",
        "tokens.html",
        "next-token.html",
        "more/deep.html",
        "404.html",
        "sitemap.xml",
        "tracebook.css",
        "images/dot.svg",
    ] {
        assert!(public.join(file).is_file(), "{file} is missing");
    }
    assert!(
        !public.join("drafty.html").exists(),
        "drafts are not published"
    );
}

#[test]
fn build_with_out_writes_elsewhere_and_check_writes_nothing() {
    let site = TempSite::new(&sites_dir().join("valid/minimal"));
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("site");
    let out = tracebook(site.root(), &["build", "--out", target.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(target.join("only.html").is_file());
    let before = read_tree(site.root());
    let out = tracebook(site.root(), &["check"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("no problems"));
    assert_eq!(read_tree(site.root()), before);
}

#[test]
fn a_broken_site_fails_with_its_errors_and_keeps_the_previous_output() {
    let site = TempSite::new(&sites_dir().join("broken/many-errors"));
    let public = site.root().join("public");
    std::fs::create_dir_all(&public).unwrap();
    std::fs::write(public.join("index.html"), "previous").unwrap();
    let out = tracebook(site.root(), &["build"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    let expected =
        std::fs::read_to_string(sites_dir().join("broken/many-errors/expected.txt")).unwrap();
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert!(
        stderr.contains("error: could not build the site: 5 errors"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(public.join("index.html")).unwrap(),
        "previous"
    );
    let out = tracebook(site.root(), &["check"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("error: the check found 5 errors"));
}

#[test]
fn a_missing_trace_names_the_command_that_fixes_it() {
    let site = TempSite::new(&sites_dir().join("broken/missing-trace"));
    let out = tracebook(site.root(), &["build"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("run `tracebook trace --only robots` to write it"));
}

/// The example site builds from the committed content and traces, without any model; until
/// its traces are committed, the build must say which command makes them.
#[test]
fn the_example_site_builds_from_committed_traces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out_dir = tempfile::tempdir().unwrap();
    let target = out_dir.path().join("public");
    let out = cli::command(out_dir.path())
        .arg("--root")
        .arg(root)
        .args(["build", "--out", target.to_str().unwrap()])
        .output()
        .unwrap();
    let has_traces = std::fs::read_dir(root.join("traces")).is_ok_and(|d| {
        d.flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "json"))
    });
    if has_traces {
        assert!(out.status.success(), "{}", text(&out.stderr));
        let index = std::fs::read_to_string(target.join("index.html")).unwrap();
        let config: toml::Table =
            toml::from_str(&std::fs::read_to_string(root.join("tracebook.toml")).unwrap()).unwrap();
        let model = config["model"]["id"].as_str().unwrap();
        assert!(
            index.contains(model),
            "every page names the model behind it ({model})"
        );
        translation_values_read_the_trace(root, &target);
    } else {
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains("run `tracebook trace --only"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// The encoder-decoder article's `{{ translation fichier }}` and `{{ written fichier 6 }}` show
/// what its trace says the model wrote, as prose and as a token.
fn translation_values_read_the_trace(root: &Path, target: &Path) {
    let json = std::fs::read_to_string(root.join("traces/fichier.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&json).unwrap();
    let text = trace["meta"]["translation"]["text"].as_str().unwrap();
    let sixth = trace["meta"]["generation"][6]["text"].as_str().unwrap();
    let page = std::fs::read_to_string(target.join("encoder-decoder.html")).unwrap();
    let translation = format!(
        "<span class=\"tb-value tb-text\" data-tb-of=\"translation fichier\">{text}</span>"
    );
    assert!(page.contains(&translation), "{translation}");
    let written = format!("data-tb-of=\"written fichier 6\">{sixth}</span>");
    assert!(page.contains(&written), "{written}");
}

/// With `[live]`, the first build converts the model into the user's cache and later builds
/// read it from there; an entry that does not match its digest line is converted again, and
/// every build writes the same browser model.
#[test]
fn the_browser_model_is_converted_once_and_then_read_from_the_cache() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("site");
    let out = cli::command(home.path())
        .args(["init", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let config = root.join("tracebook.toml");
    let toml = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{toml}\n[live]\nenabled = true\n")).unwrap();
    let build = || {
        let out = cli::command(home.path())
            .arg("--root")
            .arg(&root)
            .arg("build")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read(root.join("public/live/model.safetensors")).unwrap()
    };
    let cache = home.path().join(".cache/tracebook/browser-models");
    let entries = || {
        let mut names: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let first = build();
    let names = entries();
    assert_eq!(names.len(), 2, "{names:?}");
    let cached = cache.join(&names[0]);
    assert!(names[0].ends_with(".safetensors") && names[1].ends_with(".sha256"));
    assert_eq!(std::fs::read(&cached).unwrap(), first);
    // Served from the cache: a changed entry of the same length is what the next build writes.
    let mut marked = first.clone();
    *marked.last_mut().unwrap() ^= 1;
    std::fs::write(&cached, &marked).unwrap();
    assert_eq!(build(), marked);
    // An entry of another length than its digest line says is converted again.
    std::fs::write(&cached, &first[..first.len() / 2]).unwrap();
    assert_eq!(build(), first);
    assert_eq!(std::fs::read(&cached).unwrap(), first);
    assert_eq!(entries(), names);
}
