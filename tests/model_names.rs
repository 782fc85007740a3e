//! Models are named, not located: a site whose model is a folder outside it, written as an
//! absolute path, publishes no path of the author's machine (captions and credits show the
//! folder's name); the same folder written another way, or moved, leaves every trace fresh;
//! `[model] name` and a prompt's `name` beside its `model` are what readers see, with no new
//! traces. Live mode's manifest names the model as the pages do.

#[path = "support/cli.rs"]
mod cli;

use cli::{ok, run, text};
use std::fs;
use std::path::Path;

const ARTICLE: &str = "+++\ntitle = \"Names\"\ndescription = \"Which model.\"\n\n[prompts]\n\
    own = \"The robots will bring\"\nother = { text = \"The robots will bring\", model = \"OTHER\" }\n+++\n\n\
    It has {{ count own }} tokens.\n\n```figure tokens\nprompt = \"own\"\n```\n\n\
    ```figure compare\nprompt = \"own\"\nother = \"other\"\n```\n";

/// Every file of `dir`, as text (binary files lossily).
fn published(dir: &Path) -> Vec<(String, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let bytes = fs::read(e.path()).unwrap();
            (
                e.path().display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            )
        })
        .collect()
}

fn write_site(site: &Path, model: &str, other: &str, name: Option<&str>) {
    let name = name.map_or(String::new(), |n| format!("name = \"{n}\"\n"));
    fs::write(
        site.join("tracebook.toml"),
        format!("title = \"T\"\n\n[model]\nid = \"{model}\"\n{name}\n[live]\nenabled = true\n"),
    )
    .unwrap();
    fs::create_dir_all(site.join("content")).unwrap();
    fs::write(
        site.join("content/names.md"),
        ARTICLE.replace("OTHER", other),
    )
    .unwrap();
}

#[test]
fn a_folder_model_is_shown_by_its_name_and_matched_by_its_weights() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let elsewhere = dir.path().join("author/models/gpt2-small-random");
    let other = dir.path().join("author/models/second-model");
    fs::create_dir_all(&site).unwrap();
    for (folder, seed) in [(&elsewhere, "1"), (&other, "2")] {
        let args = [
            "dev",
            "test-model",
            "--seed",
            seed,
            folder.to_str().unwrap(),
        ];
        ok(&run(&site, &args), "dev test-model");
    }
    let absolute = elsewhere.to_str().unwrap();
    write_site(&site, absolute, other.to_str().unwrap(), None);
    ok(&run(&site, &["trace", "--offline"]), "trace");
    ok(&run(&site, &["build"]), "build");

    let author = dir.path().join("author").display().to_string();
    for (file, content) in published(&site.join("public")) {
        assert!(
            !content.contains(&author),
            "{file} publishes a path of the author's machine ({author})"
        );
    }
    let page = fs::read_to_string(site.join("public/names.html")).unwrap();
    assert!(
        page.contains("<code>gpt2-small-random</code>"),
        "the caption names the folder"
    );
    assert!(
        page.contains("second-model"),
        "the compare figure names both"
    );
    let manifest = fs::read_to_string(site.join("public/live/manifest.json")).unwrap();
    assert!(
        manifest.contains("\"model_id\":\"gpt2-small-random\""),
        "live mode's traces and caption name the folder"
    );

    // The same folder, written as a relative path with a detour and a trailing slash.
    let relative = "../author/models/../models/gpt2-small-random/";
    write_site(&site, relative, other.to_str().unwrap(), None);
    ok(&run(&site, &["check"]), "check after respelling the path");

    // The folder moved, and the site says where.
    let moved = dir.path().join("moved/gpt2-small-random");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(&elsewhere, &moved).unwrap();
    write_site(
        &site,
        moved.to_str().unwrap(),
        other.to_str().unwrap(),
        None,
    );
    ok(&run(&site, &["check"]), "check after moving the folder");

    // Named: captions and credit say the name, and no trace is made again.
    let traces_before = fs::read(site.join("traces/own.json")).unwrap();
    write_site(
        &site,
        moved.to_str().unwrap(),
        other.to_str().unwrap(),
        Some("GPT-2 small (random weights)"),
    );
    let article = ARTICLE.replace(
        "model = \"OTHER\" }",
        "model = \"OTHER\", name = \"Second\" }",
    );
    fs::write(
        site.join("content/names.md"),
        article.replace("OTHER", other.to_str().unwrap()),
    )
    .unwrap();
    ok(&run(&site, &["build"]), "build with names");
    assert_eq!(
        fs::read(site.join("traces/own.json")).unwrap(),
        traces_before
    );
    let page = fs::read_to_string(site.join("public/names.html")).unwrap();
    assert!(
        page.contains("<code>GPT-2 small (random weights)</code>"),
        "{page}"
    );
    assert!(
        page.contains("<code>Second</code>"),
        "the prompt's own name"
    );
    assert!(!page.contains("gpt2-small-random"));

    // Other weights under the same folder name are another model.
    let args = ["dev", "test-model", "--seed", "3", moved.to_str().unwrap()];
    ok(&run(&site, &args), "dev test-model (new weights)");
    let check = run(&site, &["check"]);
    assert!(!check.status.success());
    let errors = text(&check.stderr);
    assert!(
        errors.contains("the weights of model gpt2-small-random changed"),
        "{errors}"
    );
}

#[test]
fn a_name_without_its_own_model_is_an_error_that_says_where_a_name_goes() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    fs::write(
        site.join("tracebook.toml"),
        "title = \"T\"\n\n[model]\nid = \"tracebook-mini-en\"\n\n[prompts]\n\
         solo = { text = \"Hi\", name = \"Mine\" }\n",
    )
    .unwrap();
    fs::create_dir_all(site.join("content")).unwrap();
    let check = run(site, &["check"]);
    assert!(!check.status.success());
    let errors = text(&check.stderr);
    assert!(errors.contains("tracebook.toml:7:"), "{errors}");
    assert!(errors.contains("add `model"), "{errors}");
}
