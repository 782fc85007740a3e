//! `tracebook init DIR`: a new site that checks and builds at once, without a model: its one
//! trace ships inside the binary, and its config names the model that recorded it.

use super::ui::Ui;
use anyhow::{bail, Context};
use std::fs;
use std::path::{Path, PathBuf};
use tracebook_trace::Trace;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The folder to create the site in (created if missing; may be an empty folder).
    pub dir: PathBuf,
}

/// A trace of "The robots will bring", recorded by the model built into tracebook.
const SAMPLE_TRACE: &str = include_str!("init/robots.json");
const CONFIG: &str = include_str!("init/tracebook.toml");
const INDEX: &str = include_str!("init/index.md");
const ARTICLE: &str = include_str!("init/tokens.md");
const GITIGNORE: &str = include_str!("init/gitignore");
const WORKFLOW: &str = include_str!("init/pages.yml");

/// Where the workflow goes, relative to the site folder.
pub const WORKFLOW_PATH: &str = ".github/workflows/pages.yml";

/// The workflow, installing this very version of tracebook (and its release binary, where
/// this tracebook knows its releases).
fn workflow() -> String {
    WORKFLOW
        .replace("@TRACEBOOK_VERSION@", env!("CARGO_PKG_VERSION"))
        .replace(
            "@TRACEBOOK_RELEASES@",
            &releases_of(env!("CARGO_PKG_REPOSITORY")),
        )
}

/// Where the release binaries of a tracebook published from `repository` (Cargo.toml's
/// field, which the release workflow checks is the repository it uploads them to) are:
/// `https://github.com/OWNER/NAME/releases`; empty where it names no GitHub repository.
fn releases_of(repository: &str) -> String {
    let repository = repository.trim().trim_end_matches('/');
    let repository = repository.strip_suffix(".git").unwrap_or(repository);
    match repository.strip_prefix("https://github.com/") {
        Some(path) if path.split('/').filter(|p| !p.is_empty()).count() == 2 => {
            format!("{repository}/releases")
        }
        _ => String::new(),
    }
}

pub fn run(ui: &Ui, args: Args) -> anyhow::Result<()> {
    let dir = &args.dir;
    refuse_existing_site(dir)?;
    let files = site_files(&title_from(dir))?;
    let taken: Vec<&str> = files
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| *path != ".gitignore" && dir.join(path).exists())
        .collect();
    if !taken.is_empty() {
        bail!(
            "{} already holds {}; nothing was written\n  hint: move {} away, or pass another folder",
            dir.display(),
            taken.join(", "),
            if taken.len() == 1 { "it" } else { "them" }
        );
    }
    for (path, text) in &files {
        write(dir, path, text)?;
    }
    ui.say(format!(
        "created a tracebook site in {}: tracebook.toml, content/, traces/robots.json, .gitignore, {WORKFLOW_PATH}",
        dir.display()
    ));
    let publishing = format!(
        "{WORKFLOW_PATH} publishes it with GitHub Pages on every push (tracebook {})",
        env!("CARGO_PKG_VERSION")
    );
    ui.say(format!(
        "next: `cd {}` then `tracebook serve`; {publishing}",
        dir.display()
    ));
    Ok(())
}

/// A folder that already has a config or content is someone's site: never write into it.
fn refuse_existing_site(dir: &Path) -> anyhow::Result<()> {
    if dir.is_file() {
        bail!(
            "{} is a file, not a folder\n  hint: pass a new or empty folder",
            dir.display()
        );
    }
    for existing in [tracebook_site::CONFIG_FILE, "content"] {
        if dir.join(existing).exists() {
            bail!(
                "{} already holds {existing}, so it looks like a site already; nothing was written\n  hint: pass a new or empty folder, or edit that site (`tracebook new NAME` adds an article)",
                dir.display()
            );
        }
    }
    Ok(())
}

/// Every file of the new site, with the config filled in from the sample trace's own record
/// (model, options, prompt), so that the trace is up to date by construction.
fn site_files(title: &str) -> anyhow::Result<Vec<(&'static str, String)>> {
    let trace = Trace::from_json(SAMPLE_TRACE)
        .context("the sample trace built into tracebook is damaged")?;
    let meta = &trace.meta;
    let config = CONFIG
        .replace("@TITLE@", &toml_string(title))
        .replace("@MODEL_ID@", &toml_string(&meta.model.id))
        .replace("@PRECISION@", &toml_string(meta.options.precision.as_str()))
        .replace("@TOP_K@", &meta.options.top_k.to_string())
        .replace("@PROMPT@", &toml_string(&meta.prompt.text));
    Ok(vec![
        (tracebook_site::CONFIG_FILE, config),
        (
            "content/index.md",
            INDEX.replace("@TITLE@", &toml_string(title)),
        ),
        ("content/tokens.md", ARTICLE.to_string()),
        ("traces/robots.json", SAMPLE_TRACE.to_string()),
        (".gitignore", GITIGNORE.to_string()),
        (WORKFLOW_PATH, workflow()),
    ])
}

fn write(dir: &Path, path: &str, text: &str) -> anyhow::Result<()> {
    let target = dir.join(path);
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create the folder {}", parent.display()))?;
    }
    if path == ".gitignore" && target.exists() {
        return add_ignore_lines(&target, text);
    }
    fs::write(&target, text).with_context(|| format!("cannot write {}", target.display()))
}

/// An existing .gitignore keeps its lines and gains ours that it lacks.
fn add_ignore_lines(target: &Path, text: &str) -> anyhow::Result<()> {
    let mut current =
        fs::read_to_string(target).with_context(|| format!("cannot read {}", target.display()))?;
    let missing: Vec<&str> = text
        .lines()
        .filter(|line| !current.lines().any(|l| l.trim() == line.trim()))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !current.is_empty() && !current.ends_with('\n') {
        current.push('\n');
    }
    for line in missing {
        current.push_str(line);
        current.push('\n');
    }
    fs::write(target, current).with_context(|| format!("cannot write {}", target.display()))
}

/// "my-first_book" becomes "My first book"; a folder without a usable name gives a default.
fn title_from(dir: &Path) -> String {
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    super::new::title_from_name(&name).unwrap_or_else(|| "A tracebook".to_string())
}

fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_is_filled_from_the_sample_trace() {
        let files = site_files("Book").unwrap();
        let config = &files[0].1;
        assert!(!config.contains('@'), "{config}");
        let parsed: toml::Table = config.parse().unwrap();
        assert_eq!(
            parsed["prompts"]["robots"].as_str(),
            Some("The robots will bring")
        );
    }

    #[test]
    fn the_releases_are_those_of_the_github_repository_the_package_names() {
        let releases = "https://github.com/owner/tracebook/releases";
        for repository in [
            "https://github.com/owner/tracebook",
            "https://github.com/owner/tracebook/",
            "https://github.com/owner/tracebook.git",
        ] {
            assert_eq!(releases_of(repository), releases, "{repository}");
        }
        for elsewhere in [
            "",
            "https://gitlab.com/owner/tracebook",
            "https://github.com/owner",
        ] {
            assert_eq!(releases_of(elsewhere), "", "{elsewhere}");
        }
    }
}
