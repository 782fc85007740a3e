//! `tracebook new NAME`: adds `content/NAME.md` with front matter, placed after the last article.

use super::ui::Ui;
use anyhow::{bail, Context};
use std::fs;
use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The article's file name without `.md`: lowercase letters, digits, `-` and `_`
    /// (e.g. `attention-heads`); its title is made from it.
    pub name: String,
}

/// The weight step between articles, leaving room to insert one between two others.
const WEIGHT_STEP: i64 = 10;

pub fn run(root: &Path, ui: &Ui, args: Args) -> anyhow::Result<()> {
    let name = args.name.strip_suffix(".md").unwrap_or(&args.name);
    check_name(name)?;
    if !root.join(tracebook_site::CONFIG_FILE).is_file() {
        bail!(
            "{} has no {}, so it is not a tracebook site\n  hint: run this in a site folder, pass --root DIR, or create a site with `tracebook init DIR`",
            root.display(),
            tracebook_site::CONFIG_FILE
        );
    }
    let relative = format!("content/{name}.md");
    let target = root.join(&relative);
    if target.exists() {
        bail!(
            "{relative} already exists; nothing was written\n  hint: choose another name, or edit that file"
        );
    }
    let weight = last_weight(&root.join("content")) + WEIGHT_STEP;
    let title = title_from_name(name).expect("checked names have a letter or digit");
    fs::create_dir_all(root.join("content")).context("cannot create the content/ folder")?;
    fs::write(&target, article(&title, weight))
        .with_context(|| format!("cannot write {}", target.display()))?;
    ui.say(format!("created {relative} (\"{title}\", weight {weight})"));
    Ok(())
}

fn article(title: &str, weight: i64) -> String {
    let title = toml::Value::String(title.to_string());
    format!(
        "+++\ntitle = {title}\ndescription = \"\"\nweight = {weight}\n\n\
         # Prompts this article draws from; `tracebook trace` records each into traces/NAME.json.\n\
         # [prompts]\n# example = \"The robots will bring\"\n+++\n\n\
         Write the article here. A figure is a fenced block whose info string is `figure KIND`\n\
         (see docs/authoring.md in tracebook's repository for the kinds and inline values).\n"
    )
}

/// The same rule as prompt names, so that article and trace names look alike.
fn check_name(name: &str) -> anyhow::Result<()> {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if name.is_empty() || name.len() > 64 || !starts_well || !name.chars().all(ok_char) {
        bail!(
            "`{name}` cannot name an article: use lowercase letters, digits, `-` and `_`, starting with a letter or digit, at most 64 characters\n  hint: e.g. `tracebook new attention-heads`"
        );
    }
    if name == "index" {
        bail!("content/index.md is the home page's introduction, not an article\n  hint: choose another name");
    }
    Ok(())
}

/// The largest weight among the articles of `content/` (0 when there are none); files whose
/// front matter cannot be read are skipped here (`check` reports them).
fn last_weight(content: &Path) -> i64 {
    let mut files = Vec::new();
    markdown_files(content, &mut files);
    files
        .iter()
        .filter_map(|path| fs::read_to_string(path).ok())
        .filter_map(|text| front_matter_weight(&text))
        .max()
        .unwrap_or(0)
}

fn markdown_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, found);
        } else if path.extension().is_some_and(|x| x == "md") {
            found.push(path);
        }
    }
}

fn front_matter_weight(text: &str) -> Option<i64> {
    let rest = text.trim_start_matches('\u{feff}').strip_prefix("+++")?;
    let end = rest.find("\n+++")?;
    let table: toml::Table = rest[..end].parse().ok()?;
    table.get("weight")?.as_integer()
}

/// "attention-heads_2" becomes "Attention heads 2"; None when nothing is left.
pub fn title_from_name(name: &str) -> Option<String> {
    let words: Vec<&str> = name
        .split(|c: char| c == '-' || c == '_' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = words.join(" ");
    let mut chars = joined.chars();
    let first = chars.next()?;
    Some(first.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_names() {
        assert_eq!(
            title_from_name("attention-heads_2").as_deref(),
            Some("Attention heads 2")
        );
        assert_eq!(title_from_name("--").as_deref(), None);
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("attention-heads").is_ok());
        for bad in [
            "",
            "Attention",
            "-x",
            "a/b",
            "a b",
            "index",
            &"x".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_weight_is_read_from_front_matter() {
        assert_eq!(
            front_matter_weight("+++\ntitle = \"a\"\nweight = 30\n+++\nbody"),
            Some(30)
        );
        assert_eq!(front_matter_weight("no front matter"), None);
    }
}
