//! `tracebook init` and `tracebook new` as an author runs them: a new site checks and builds
//! with no model, its GitHub Pages workflow has the steps it needs, and neither command
//! writes over an existing site or article.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/files_server.rs"]
mod files_server;
#[path = "authoring/yaml.rs"]
mod yaml;

use cli::text;
use std::path::Path;
use std::process::{Command, Output};

fn tracebook(root: &Path, args: &[&str]) -> Output {
    cli::run(root, args)
}

fn init(dir: &Path) -> Output {
    tracebook(dir, &["init", dir.to_str().unwrap()])
}

#[test]
fn a_new_site_checks_and_builds_without_a_model() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("my-book");
    let out = init(&site);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for file in [
        "tracebook.toml",
        "content/index.md",
        "content/tokens.md",
        "traces/robots.json",
        ".gitignore",
        ".github/workflows/pages.yml",
    ] {
        assert!(site.join(file).is_file(), "{file} is missing");
    }
    let ignored = std::fs::read_to_string(site.join(".gitignore")).unwrap();
    assert!(ignored.contains("public/") && ignored.contains("/models/"));
    let out = tracebook(&site, &["check"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A 120 MB file the site would commit: `check` warns that a push would be refused, and
    // names the folder to ignore; one in models/ (which init ignores) goes unremarked.
    std::fs::create_dir_all(site.join("data")).unwrap();
    std::fs::create_dir_all(site.join("models/mine")).unwrap();
    for path in ["data/weights.bin", "models/mine/model.safetensors"] {
        let file = std::fs::File::create(site.join(path)).unwrap();
        file.set_len(120_000_000).unwrap();
    }
    let out = tracebook(&site, &["check"]);
    let said = text(&out.stderr);
    assert!(out.status.success(), "a warning, not an error: {said}");
    assert!(
        said.contains("data/weights.bin is 120 MB and git would commit it")
            && said.contains("add `data/` to .gitignore"),
        "{said}"
    );
    assert!(!said.contains("models/mine"), "{said}");
    std::fs::remove_dir_all(site.join("data")).unwrap();
    std::fs::remove_dir_all(site.join("models")).unwrap();
    let out = tracebook(&site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(site.join("public/tokens.html")).unwrap();
    assert!(page.contains("<svg"), "the sample figure is drawn");
    assert!(
        page.contains("My book"),
        "the title comes from the folder's name"
    );
}

#[test]
fn the_pages_workflow_builds_from_traces_and_deploys() {
    let temp = tempfile::tempdir().unwrap();
    assert!(init(temp.path()).status.success());
    let text = std::fs::read_to_string(temp.path().join(".github/workflows/pages.yml")).unwrap();
    let doc = yaml::parse(&text);
    let permissions = doc.get("permissions");
    assert_eq!(permissions.get("pages").str(), "write");
    assert_eq!(permissions.get("id-token").str(), "write");
    assert_eq!(permissions.get("contents").str(), "read");
    assert_eq!(doc.get("concurrency").get("group").str(), "pages");
    assert!(doc.get("on").has("push"));

    let jobs = doc.get("jobs");
    let steps = jobs.get("build").get("steps").seq();
    let uses = |prefix: &str| {
        steps
            .iter()
            .position(|s| s.has("uses") && s.get("uses").str().starts_with(prefix))
            .unwrap_or_else(|| panic!("no step uses {prefix}"))
    };
    let runs = |needle: &str| {
        steps
            .iter()
            .position(|s| s.has("run") && s.get("run").str().contains(needle))
            .unwrap_or_else(|| panic!("no step runs {needle}"))
    };
    let checkout = uses("actions/checkout@");
    let rust = runs("rustup toolchain install");
    let cache = uses("actions/cache@");
    let install = runs("cargo install");
    let build = runs("tracebook build");
    let upload = uses("actions/upload-pages-artifact@");
    let configure = uses("actions/configure-pages@");
    assert!(
        checkout < rust
            && rust < cache
            && cache < install
            && install < configure
            && configure < build
            && build < upload
    );
    // The build-only install (no model code), and the Pages address passed to the build.
    let install_line = steps[install].get("run").str();
    assert!(
        install_line.contains("--no-default-features"),
        "{install_line}"
    );
    let id = steps[configure].get("id").str();
    assert!(
        steps[build].get("run").str().contains(&format!(
            "--base-url \"${{{{ steps.{id}.outputs.base_url }}}}/\""
        )),
        "{}",
        steps[build].get("run").str()
    );
    assert!(!text.contains("@TRACEBOOK"), "placeholders filled in");
    assert!(!text.contains("YOUR-ORG"), "nothing to fill in");
    // This very version, installed by name; cached by version, so a second run compiles nothing.
    let env = doc.get("env");
    assert_eq!(
        env.get("TRACEBOOK_VERSION").str(),
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        install_line.contains(
            "cargo install tracebook --version \"$TRACEBOOK_VERSION\" --locked --no-default-features"
        ),
        "{install_line}"
    );
    let key = steps[cache].get("with").get("key").str();
    assert!(key.contains("${{ env.TRACEBOOK_VERSION }}"), "{key}");
    assert!(
        !key.contains("run_id"),
        "a key per run is never reused: {key}"
    );
    assert_eq!(steps[upload].get("with").get("path").str(), "public");
    assert!(
        !text.contains("tracebook trace"),
        "CI builds from the committed traces, without a model"
    );

    let deploy = jobs.get("deploy");
    assert_eq!(deploy.get("needs").str(), "build");
    assert_eq!(deploy.get("environment").get("name").str(), "github-pages");
    let deploy_steps = deploy.get("steps").seq();
    assert!(deploy_steps
        .iter()
        .any(|s| s.get("uses").str().starts_with("actions/deploy-pages@")));
}

#[test]
fn init_refuses_a_folder_that_holds_a_site() {
    for existing in ["tracebook.toml", "content"] {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join(existing);
        if existing == "content" {
            std::fs::create_dir(&path).unwrap();
        } else {
            std::fs::write(&path, "title = \"mine\"\n").unwrap();
        }
        let out = init(temp.path());
        assert!(!out.status.success(), "init wrote over {existing}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(existing) && stderr.contains("nothing was written"),
            "{stderr}"
        );
        let names: Vec<_> = std::fs::read_dir(temp.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "nothing else was written");
    }
}

#[test]
fn new_adds_an_article_after_the_last_and_refuses_to_overwrite() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path();
    assert!(init(site).status.success());
    let out = tracebook(site, &["new", "attention-heads"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let article = std::fs::read_to_string(site.join("content/attention-heads.md")).unwrap();
    assert!(
        article.starts_with("+++\ntitle = \"Attention heads\""),
        "{article}"
    );
    assert!(
        article.contains("weight = 20"),
        "after the sample's weight 10: {article}"
    );
    let out = tracebook(site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(site.join("public/attention-heads.html").is_file());

    let again = tracebook(site, &["new", "attention-heads"]);
    assert!(!again.status.success());
    assert!(text(&again.stderr).contains("already exists"));
    assert_eq!(
        std::fs::read_to_string(site.join("content/attention-heads.md")).unwrap(),
        article
    );
    for bad in ["Attention", "../escape", "a b", "part/a/b"] {
        let out = tracebook(site, &["new", bad]);
        assert!(!out.status.success(), "{bad} was accepted");
        assert!(text(&out.stderr).contains("cannot name"), "{bad}");
    }
}

#[test]
fn new_starts_a_part_and_adds_its_articles_in_order() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path();
    assert!(init(site).status.success());
    let out = tracebook(site, &["new", "02-inside/attention"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(
        said.contains("content/02-inside/_index.md (the part \"Inside\", weight 20)"),
        "{said}"
    );
    let out = tracebook(site, &["new", "02-inside/mlp"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mlp = std::fs::read_to_string(site.join("content/02-inside/mlp.md")).unwrap();
    assert!(mlp.contains("weight = 20"), "after attention's 10: {mlp}");
    // A top-level article goes after the part, not after the part's articles.
    let out = tracebook(site, &["new", "coda"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let coda = std::fs::read_to_string(site.join("content/coda.md")).unwrap();
    assert!(coda.contains("weight = 30"), "{coda}");
    let out = tracebook(site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let part = std::fs::read_to_string(site.join("public/02-inside/index.html")).unwrap();
    assert!(part.contains("<h1>Inside</h1>"), "{part}");
    let sidebar = std::fs::read_to_string(site.join("public/coda.html")).unwrap();
    let order: Vec<usize> = ["Inside</a>", "Attention</a>", "Mlp</a>", "Coda</a>"]
        .iter()
        .map(|t| {
            sidebar
                .find(t)
                .unwrap_or_else(|| panic!("{t} not in\n{sidebar}"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
}

#[test]
fn quiet_prints_nothing_and_verbose_prints_stage_timings() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path();
    assert!(init(site).status.success());
    let quiet = tracebook(site, &["--quiet", "build"]);
    assert!(quiet.status.success());
    assert_eq!(text(&quiet.stdout), "");
    assert_eq!(text(&quiet.stderr), "");
    let verbose = tracebook(site, &["--verbose", "build"]);
    assert!(verbose.status.success());
    let stderr = text(&verbose.stderr);
    for stage in ["load", "traces", "render", "links", "write"] {
        assert!(
            stderr.contains(&format!("{stage} ")),
            "{stage} missing: {stderr}"
        );
    }
    assert!(
        !stderr.contains('\x1b'),
        "no colour when stderr is not a terminal"
    );
    // A warning (the new article's empty description) is shown, except under --quiet.
    assert!(tracebook(site, &["new", "more"]).status.success());
    for command in ["build", "check"] {
        let plain = tracebook(site, &[command]);
        assert!(text(&plain.stderr).contains("warning: this article's description is empty"));
        let quiet = tracebook(site, &["--quiet", command]);
        assert!(quiet.status.success());
        assert_eq!(
            text(&quiet.stderr),
            "",
            "{command} --quiet prints errors only"
        );
    }
}

/// A newcomer's first hour, from an empty folder outside any checkout, with no network (the
/// hub endpoint points at a closed port on 127.0.0.1): init, a new article with a figure of a new
/// prompt, trace with the model built into tracebook, check and build.
#[test]
fn the_first_hour_works_offline_from_an_empty_folder() {
    let temp = tempfile::tempdir().unwrap();
    let run = |dir: &Path, args: &[&str]| {
        let out = cli::command(temp.path())
            .current_dir(dir)
            .args(args)
            .env("HOME", temp.path().join("home"))
            .env("HF_ENDPOINT", "http://127.0.0.1:9")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tracebook {}: {}{}",
            args.join(" "),
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout) + &text(&out.stderr)
    };
    run(temp.path(), &["init", "x"]);
    let site = temp.path().join("x");
    // The sample trace was made by the built-in weights: nothing to trace, nothing stale.
    run(&site, &["check"]);
    run(&site, &["new", "a"]);
    let article = site.join("content/a.md");
    let written = std::fs::read_to_string(&article).unwrap();
    let example = "# [prompts]\n# example = \"The robots will bring\"\n";
    assert!(written.contains(example), "{written}");
    let body = written.replace(example, "[prompts]\ncat = \"The cat sat on the\"\n")
        + "\nThe last token is \"{{ token cat -1 }}\".\n\n```figure next-token\nprompt = \"cat\"\ncaption = \"What comes next.\"\n```\n";
    std::fs::write(&article, body).unwrap();
    let traced = run(&site, &["trace"]);
    assert!(traced.contains("wrote 1 trace"), "{traced}");
    assert!(site.join("traces/cat.json").is_file());
    run(&site, &["check"]);
    run(&site, &["build"]);
    let page = std::fs::read_to_string(site.join("public/a.html")).unwrap();
    assert!(
        page.contains("<svg") && page.contains("tracebook-mini-en"),
        "{page}"
    );
}

/// `tracebook figures` lists every kind, and each kind's example block, pasted into a new
/// site's article, builds (the compare example's second prompt set to the site's one).
#[test]
fn every_figure_reference_example_builds_in_a_new_site() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("book");
    assert!(init(&site).status.success());
    let list = tracebook(&site, &["figures"]);
    let list = text(&list.stdout);
    let kinds: Vec<&str> = list
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(kinds, tracebook_figures::kinds(), "{list}");
    let mut article = String::from("+++\ntitle = \"All kinds\"\ndescription = \"x\"\n+++\n\n");
    for kind in &kinds {
        let out = tracebook(&site, &["figures", kind]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let page = text(&out.stdout);
        if *kind == "generation" {
            // It needs a prompt that generates; the sample prompt does not, and the
            // reference says what it needs.
            assert!(page.contains("generate = N"), "{page}");
            continue;
        }
        if ["rope", "rmsnorm", "gated-mlp"].contains(kind) {
            // They draw what only the Llama family has; the sample model is a GPT-2, and the
            // reference says they refuse it.
            assert!(page.contains("GPT-2 is refused"), "{page}");
            continue;
        }
        if *kind == "cross-attention" {
            // It needs an encoder-decoder's trace; the sample model is a GPT-2, and the
            // reference says a decoder-only trace is an error.
            assert!(page.contains("a decoder-only trace is an error"), "{page}");
            continue;
        }
        if *kind == "beam" {
            // It needs a prompt traced with `beams = N`, which the reference names.
            assert!(page.contains("beams = N"), "{page}");
            continue;
        }
        if [
            "ablation",
            "patching",
            "logit-attribution",
            "saliency",
            "flow",
        ]
        .contains(kind)
        {
            // They need a prompt traced with `ablate = {...}`, `patch = {...}` or
            // `attribute = {...}`, which the reference names.
            assert!(
                ["ablate = {", "patch = {", "attribute = {"]
                    .iter()
                    .any(|option| page.contains(option)),
                "{page}"
            );
            continue;
        }
        let example = page.split("example:\n\n").nth(1).unwrap();
        article.push_str(&example.replace("another-prompt", "robots"));
        article.push('\n');
    }
    std::fs::write(site.join("content/kinds.md"), article).unwrap();
    let out = tracebook(&site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(site.join("public/kinds.html")).unwrap();
    assert_eq!(page.matches("<figure class=\"tb-figure").count(), 27);
    let wrong = tracebook(&site, &["figures", "atention"]);
    assert!(!wrong.status.success());
    assert!(
        text(&wrong.stderr).contains("attention, attention-steps"),
        "{}",
        text(&wrong.stderr)
    );
}

/// What the workflow's build step runs works: a build-only tracebook (the binary that step
/// installs, built in CI with `--no-default-features`, named by TRACEBOOK_BUILD_ONLY) checks and
/// builds a new site with the Pages address, and refuses to trace with a clear message.
#[test]
fn a_build_only_tracebook_builds_the_new_site_as_the_workflow_does() {
    let Some(binary) = std::env::var_os("TRACEBOOK_BUILD_ONLY") else {
        eprintln!("TRACEBOOK_BUILD_ONLY is not set: .ci/run builds that binary and runs this test");
        return;
    };
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("site");
    let run = |args: &[&str]| {
        Command::new(&binary)
            .args(args)
            .env("XDG_CACHE_HOME", temp.path().join("cache"))
            .output()
            .unwrap()
    };
    let root = site.to_str().unwrap();
    assert!(run(&["init", root]).status.success());
    let out = run(&["--root", root, "check"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&[
        "--root",
        root,
        "build",
        "--base-url",
        "https://me.github.io/book/",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(site.join("public/sitemap.xml").is_file());
    let out = run(&["--root", root, "trace"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("installed to build sites only"),
        "{}",
        text(&out.stderr)
    );
}

/// The workflow's install step, run as GitHub runs it (`bash -e`) in a home of its own, with a
/// `cargo` that logs its arguments and installs this tracebook; returns its stdout.
fn run_install_step(step: &str, home: &Path, releases: &str) -> String {
    let stubs = home.join("stubs");
    std::fs::create_dir_all(&stubs).unwrap();
    std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
    let cargo = format!(
        "#!/bin/sh\necho \"$*\" >> \"$HOME/cargo.log\"\ncp {} \"$HOME/.cargo/bin/tracebook\"\n",
        env!("CARGO_BIN_EXE_tracebook")
    );
    std::fs::write(stubs.join("cargo"), cargo).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(stubs.join("cargo"))
        .status()
        .unwrap();
    let path = format!(
        "{}:{}:/usr/bin:/bin",
        stubs.display(),
        home.join(".cargo/bin").display()
    );
    let out = Command::new("bash")
        .args(["-e", "-c", step])
        .env_clear()
        .env("HOME", home)
        .env("PATH", path)
        .env("TRACEBOOK_VERSION", env!("CARGO_PKG_VERSION"))
        .env("TRACEBOOK_RELEASES", releases)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn the_install_step_compiles_once_then_takes_the_cache_or_the_release_binary() {
    let temp = tempfile::tempdir().unwrap();
    assert!(init(temp.path()).status.success());
    let text = std::fs::read_to_string(temp.path().join(".github/workflows/pages.yml")).unwrap();
    let doc = yaml::parse(&text);
    let steps = doc.get("jobs").get("build").get("steps").seq();
    let step = steps
        .iter()
        .find(|s| s.has("run") && s.get("run").str().contains("cargo install"))
        .unwrap()
        .get("run")
        .str()
        .to_string();
    let version = format!("tracebook {}", env!("CARGO_PKG_VERSION"));

    // Cold: no binary, no release: cargo installs this version by name, build-only.
    let home = temp.path().join("home");
    let cold = run_install_step(&step, &home, "");
    let log = std::fs::read_to_string(home.join("cargo.log")).unwrap();
    assert_eq!(
        log.trim(),
        format!(
            "install tracebook --version {} --locked --no-default-features",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert!(cold.trim_end().ends_with(&version), "{cold}");

    // Warm: the cache restored the binary; nothing is compiled.
    let warm = run_install_step(&step, &home, "");
    assert!(warm.contains("from the cache"), "{warm}");
    let log = std::fs::read_to_string(home.join("cargo.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "cargo ran again: {log}");

    // A release: its binary is downloaded, cargo never runs.
    let archive = temp.path().join("tracebook.tar.gz");
    let bin = Path::new(env!("CARGO_BIN_EXE_tracebook"));
    let packed = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(bin.parent().unwrap())
        .arg("tracebook")
        .status()
        .unwrap();
    assert!(packed.success());
    let releases = files_server::serve(std::collections::HashMap::from([(
        format!(
            "download/v{}/tracebook-x86_64-unknown-linux-gnu.tar.gz",
            env!("CARGO_PKG_VERSION")
        ),
        std::fs::read(&archive).unwrap(),
    )]));
    let fresh = temp.path().join("fresh");
    let released = run_install_step(&step, &fresh, &releases);
    assert!(released.contains("the release binary"), "{released}");
    assert!(released.trim_end().ends_with(&version), "{released}");
    assert!(!fresh.join("cargo.log").exists(), "cargo ran");
}

#[test]
fn help_lists_every_command_an_author_may_need_dev_included() {
    let temp = tempfile::tempdir().unwrap();
    let out = cli::command(temp.path()).arg("--help").output().unwrap();
    let help = text(&out.stdout);
    for command in [
        "init", "new", "trace", "build", "check", "serve", "inspect", "dev",
    ] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{command} "))),
            "`{command}` is not in --help:\n{help}"
        );
    }
}

/// After a re-trace, `build` lists every inline value whose printed text changed, at its
/// file:line:col with the old and the new text (from `.tracebook/printed-values.json`, which
/// git ignores), once: the next build is quiet again.
#[test]
fn after_a_re_trace_the_build_lists_the_values_whose_printed_text_changed() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path();
    assert!(init(site).status.success());
    let out = tracebook(site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(site.join(".tracebook/printed-values.json").is_file());
    assert!(site.join(".tracebook/.gitignore").is_file());
    let config = site.join("tracebook.toml");
    let toml = std::fs::read_to_string(&config).unwrap();
    assert!(toml.contains("\"The robots will bring\""), "{toml}");
    std::fs::write(
        &config,
        toml.replace(
            "\"The robots will bring\"",
            "\"The two old robots will not bring\"",
        ),
    )
    .unwrap();
    let out = tracebook(site, &["trace", "--offline"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = tracebook(site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(
        said.contains("content/tokens.md:")
            && said.contains("`{{ count robots }}` now prints 8 (it printed 5 before)"),
        "{said}"
    );
    assert!(said.contains("reread the sentence"), "{said}");
    let out = tracebook(site, &["build"]);
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(!said.contains("now prints"), "{said}");
}
