//! `tracebook new NAME`: adds `content/NAME.md` with front matter, placed after the last article;
//! `tracebook new PART/NAME` adds it to the part in `content/PART/` (after its last article),
//! and starts that part (its `_index.md`, after the last part) if there is none yet.

use super::ui::Ui;
use anyhow::{bail, Context};
use std::fs;
use std::path::Path;
use tracebook_site::PART_INDEX;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The article's file name without `.md`: lowercase letters, digits, `-` and `_`
    /// (e.g. `attention-heads`); its title is made from it. `PART/NAME` puts it in a part
    /// (`01-basics/tokens`), starting the part if needed.
    pub name: String,
}

/// The weight step between articles, leaving room to insert one between two others.
pub const WEIGHT_STEP: i64 = 10;

pub fn run(root: &Path, ui: &Ui, args: Args) -> anyhow::Result<()> {
    let name = args.name.strip_suffix(".md").unwrap_or(&args.name);
    let (part, name) = match name.split_once('/') {
        Some((part, name)) => (Some(part), name),
        None => (None, name),
    };
    if let Some(part) = part {
        check_name(part, "a part")?;
    }
    check_name(name, "an article")?;
    require_site(root)?;
    let content = root.join("content");
    let relative = match part {
        Some(part) => format!("content/{part}/{name}.md"),
        None => format!("content/{name}.md"),
    };
    let target = root.join(&relative);
    if target.exists() {
        bail!(
            "{relative} already exists; nothing was written\n  hint: choose another name, or edit that file"
        );
    }
    let weight = last_weight(&content, part) + WEIGHT_STEP;
    let title = title_from_name(name).expect("checked names have a letter or digit");
    let mut written = Vec::new();
    if let Some(part) = part.filter(|p| !content.join(p).join(PART_INDEX).exists()) {
        let part_weight = last_weight(&content, None) + WEIGHT_STEP;
        let part_title = title_from_name(part).expect("checked names have a letter or digit");
        let index = content.join(part).join(PART_INDEX);
        write_new(&index, &front_matter(&part_title, part_weight, PART_BODY))?;
        written.push(format!(
            "content/{part}/{PART_INDEX} (the part \"{part_title}\", weight {part_weight})"
        ));
    }
    write_new(&target, &front_matter(&title, weight, ARTICLE_BODY))?;
    written.push(format!("{relative} (\"{title}\", weight {weight})"));
    ui.say(format!("created {}", written.join(" and ")));
    Ok(())
}

/// Stops a command that edits a site when `root` holds none.
pub fn require_site(root: &Path) -> anyhow::Result<()> {
    if !root.join(tracebook_site::CONFIG_FILE).is_file() {
        bail!(
            "{} has no {}, so it is not a tracebook site\n  hint: run this in a site folder, pass --root DIR, or create a site with `tracebook init DIR`",
            root.display(),
            tracebook_site::CONFIG_FILE
        );
    }
    Ok(())
}

fn write_new(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

const ARTICLE_BODY: &str =
    "# Prompts this article draws from; `tracebook trace` records each into traces/NAME.json.\n\
     # [prompts]\n# example = \"The robots will bring\"\n+++\n\n\
     Write the article here. A figure is a fenced block whose info string is `figure KIND`\n\
     (see docs/authoring.md in tracebook's repository for the kinds and inline values).\n";

pub const PART_BODY: &str = "+++\n\n\
     The part's introduction, shown on its page above the list of its articles. Its `weight`\n\
     places the part among the articles and parts at the top of content/.\n";

pub fn front_matter(title: &str, weight: i64, rest: &str) -> String {
    let title = toml::Value::String(title.to_string());
    format!("+++\ntitle = {title}\ndescription = \"\"\nweight = {weight}\n\n{rest}")
}

/// The same rule as prompt names, so that article and trace names look alike.
pub fn check_name(name: &str, what: &str) -> anyhow::Result<()> {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if name.is_empty() || name.len() > 64 || !starts_well || !name.chars().all(ok_char) {
        bail!(
            "`{name}` cannot name {what}: use lowercase letters, digits, `-` and `_`, starting with a letter or digit, at most 64 characters\n  hint: e.g. `tracebook new attention-heads`, or `tracebook new 01-basics/tokens` for an article in a part"
        );
    }
    if name == "index" {
        bail!("content/index.md is the home page's introduction, not an article\n  hint: choose another name");
    }
    Ok(())
}

/// The largest weight (0 when there are none) among what a new article of `part` goes after:
/// the part's articles; or, at the top, the articles outside parts and the parts' `_index.md`.
/// Files whose front matter cannot be read are skipped here (`check` reports them).
pub fn last_weight(content: &Path, part: Option<&str>) -> i64 {
    let mut files = Vec::new();
    markdown_files(content, &mut files);
    let is_part = |folder: &Path| folder.join(PART_INDEX).is_file();
    files
        .iter()
        .filter(|path| {
            let relative = path.strip_prefix(content).unwrap_or(path);
            let top = relative.components().next().map(|c| content.join(c));
            let index = path.file_name().is_some_and(|f| f == PART_INDEX);
            match (part, top) {
                (Some(part), Some(top)) => top == content.join(part) && !index,
                (None, Some(top)) if top.is_dir() && is_part(&top) => {
                    index && relative.components().count() == 2
                }
                _ => true,
            }
        })
        .filter_map(|path| fs::read_to_string(path).ok())
        .filter_map(|text| front_matter_weight(&text))
        .max()
        .unwrap_or(0)
}

pub fn markdown_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
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

/// "attention-heads_2" becomes "Attention heads 2", and "01-basics" "Basics" (a leading
/// number orders files, it is no word of the title); None when nothing is left.
pub fn title_from_name(name: &str) -> Option<String> {
    let mut words: Vec<&str> = name
        .split(|c: char| c == '-' || c == '_' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > 1 && words[0].chars().all(|c| c.is_ascii_digit()) {
        words.remove(0);
    }
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
        assert_eq!(title_from_name("01-basics").as_deref(), Some("Basics"));
        assert_eq!(title_from_name("2024").as_deref(), Some("2024"));
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("attention-heads", "an article").is_ok());
        for bad in [
            "",
            "Attention",
            "-x",
            "a/b",
            "a b",
            "index",
            &"x".repeat(65),
        ] {
            assert!(check_name(bad, "an article").is_err(), "{bad}");
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
