//! `tracebook mv ARTICLE DEST [--after NAME]`: moves an article into, out of or between parts,
//! renames it, or only reorders it. Every link, reference definition, raw HTML `href`/`src` and
//! `{{ ref PAGE#id }}` that named it is rewritten, and so are the moved article's own relative
//! links (tracebook_site::moves); `--after` renumbers the destination's weights in steps of 10.
//! Everything is worked out before anything is written: a refused move changes nothing.

use super::new::{check_name, PART_BODY, WEIGHT_STEP};
use super::new::{front_matter, last_weight, markdown_files, require_site, title_from_name};
use super::ui::Ui;
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use tracebook_site::moves::{self, Move};
use tracebook_site::PART_INDEX;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The article, as under content/ (`attention`, `02-inside/mlp`; `.md` may be given).
    pub article: String,
    /// Where it goes: a part (`02-inside/`, or an existing part's folder name), `.` for the top
    /// of content/, or a new path (`02-inside/self-attention`, `self-attention`) to rename it as
    /// well. A part that does not exist yet is started, as `tracebook new` starts one.
    pub dest: String,
    /// Place it right after this article (at the top: or this part) of its destination, and
    /// renumber the destination's weights 10, 20, 30... Without it, the article goes last, or,
    /// renamed where it is, keeps its place.
    #[arg(long)]
    pub after: Option<String>,
}

/// One article or part in the order of a destination: its file and what orders it.
struct Member {
    /// Relative to content/ (`01-basics/_index.md` for a part).
    file: String,
    /// How `--after` names it: `tokens` (in a part too), or a part's folder `01-basics`.
    name: String,
    weight: i64,
    title: String,
}

pub fn run(root: &Path, ui: &Ui, args: Args) -> anyhow::Result<()> {
    require_site(root)?;
    let content = root.join("content");
    let files = site_files(&content);
    let from = article(&args.article, &files)?;
    let (part, name) = destination(&args.dest, &from, &content)?;
    let to = match &part {
        Some(part) => format!("{part}/{name}.md"),
        None => format!("{name}.md"),
    };
    if to != from && content.join(&to).exists() {
        bail!("content/{to} already exists; nothing was moved\n  hint: choose another name, or move that article first");
    }
    if to == from && args.after.is_none() {
        bail!("content/{from} is already there; nothing was moved\n  hint: give a new place, a new name, or --after NAME to reorder it");
    }

    // The texts as they are, read once; any file that cannot be read stops the move.
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for file in &files {
        let path = content.join(file);
        let text = fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}; nothing was moved", path.display()))?;
        texts.insert(file.clone(), text);
    }

    let new_part = part
        .as_ref()
        .filter(|p| !content.join(p).join(PART_INDEX).is_file())
        .cloned();
    let weights = place(&from, &to, part.as_deref(), args.after.as_deref(), &texts)?;

    let moved = Move {
        from: from.clone(),
        to: to.clone(),
    };
    let mut writes: Vec<(String, String)> = Vec::new();
    let mut relinked: Vec<String> = Vec::new();
    let mut links = 0;
    for (file, text) in &texts {
        let mut rewritten = moves::rewrite(file, text, &moved).map_err(|e| {
            anyhow::anyhow!("content/{e}; nothing was moved\n  hint: `tracebook check` says where the file goes wrong")
        })?;
        if rewritten.changed > 0 {
            links += rewritten.changed;
            let place = if *file == from { &to } else { file };
            relinked.push(format!("content/{place}"));
        }
        if let Some((_, weight)) = weights.iter().find(|(f, _)| f == file) {
            rewritten.text = moves::set_weight(file, &rewritten.text, *weight)
                .map_err(|e| anyhow::anyhow!("content/{e}; nothing was moved"))?;
        }
        if *file == from || rewritten.text != *text {
            writes.push((file.clone(), rewritten.text));
        }
    }

    // Written: a new part's page, then the article in its place, then the other files.
    let mut said = Vec::new();
    if let Some(part) = &new_part {
        let title = title_from_name(part).expect("checked names have a letter or digit");
        let weight = last_weight(&content, None) + WEIGHT_STEP;
        let index = content.join(part).join(PART_INDEX);
        fs::create_dir_all(content.join(part))
            .with_context(|| format!("cannot create content/{part}"))?;
        fs::write(&index, front_matter(&title, weight, PART_BODY))
            .with_context(|| format!("cannot write {}", index.display()))?;
        said.push(format!(
            "started the part \"{title}\" (content/{part}/{PART_INDEX}, weight {weight})"
        ));
    }
    let original = content.join(&from);
    for (file, text) in &writes {
        let (path, like) = if *file == from {
            (content.join(&to), original.clone())
        } else {
            (content.join(file), content.join(file))
        };
        write_like(&path, text, &like)?;
    }
    if to != from {
        fs::remove_file(&original)
            .with_context(|| format!("cannot remove {}", original.display()))?;
    }

    let weight = writes
        .iter()
        .find(|(f, _)| *f == from)
        .and_then(|(_, text)| moves::front_matter_of(&to, text).ok())
        .map_or(0, |facts| facts.weight);
    said.push(if to == from {
        format!(
            "placed content/{to} after {} (weight {weight})",
            args.after.as_deref().unwrap_or("")
        )
    } else {
        format!("moved content/{from} to content/{to} (weight {weight})")
    });
    if links > 0 {
        said.push(format!(
            "rewrote {links} link{} in {}",
            if links == 1 { "" } else { "s" },
            relinked.join(", ")
        ));
    }
    let renumbered: Vec<String> = weights
        .iter()
        .filter(|(f, _)| *f != from)
        .map(|(f, w)| format!("content/{f} ({w})"))
        .collect();
    if !renumbered.is_empty() {
        said.push(format!("renumbered {}", renumbered.join(", ")));
    }
    ui.say(said.join("\n"));
    Ok(())
}

/// The folder of a file of content/ (`` at the top).
fn folder(file: &str) -> &str {
    file.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Every markdown file of content/, relative to it, with `/` between folders.
fn site_files(content: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    markdown_files(content, &mut paths);
    let mut files: Vec<String> = paths
        .iter()
        .filter_map(|p| p.strip_prefix(content).ok())
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    files.sort();
    files
}

/// The article named on the command line, as a file of content/.
fn article(written: &str, files: &[String]) -> anyhow::Result<String> {
    let name = written.trim_start_matches("./");
    let name = name.strip_prefix("content/").unwrap_or(name);
    let name = name.strip_suffix(".md").unwrap_or(name);
    let file = format!("{name}.md");
    let leaf = file.rsplit('/').next().unwrap_or_default();
    if leaf == "index.md" && !file.contains('/') {
        bail!(
            "content/index.md is the home page's introduction, not an article; nothing was moved"
        );
    }
    if leaf == PART_INDEX {
        bail!("content/{file} is a part's page, not an article; nothing was moved\n  hint: move the part's folder itself, or its articles one by one");
    }
    if files.contains(&file) {
        return Ok(file);
    }
    let articles: Vec<String> = files
        .iter()
        .filter(|f| f.as_str() != "index.md" && !f.ends_with(PART_INDEX))
        .map(|f| f.trim_end_matches(".md").to_string())
        .collect();
    let names: Vec<&str> = articles.iter().map(String::as_str).collect();
    let hint = tracebook_trace::suggest::hint(name, &names, "the articles are")
        .map_or(String::new(), |h| format!("\n  hint: {h}"));
    bail!("there is no article content/{file}; nothing was moved{hint}")
}

/// Where `dest` puts the article now at `from`: its part (None: the top of content/) and name.
fn destination(dest: &str, from: &str, content: &Path) -> anyhow::Result<(Option<String>, String)> {
    let leaf = from
        .rsplit('/')
        .next()
        .unwrap_or(from)
        .trim_end_matches(".md");
    let dest = dest
        .strip_prefix("content/")
        .unwrap_or(dest)
        .trim_end_matches(".md");
    let (part, name) = match dest {
        "." | "./" | "/" | "" => (None, leaf.to_string()),
        d if d.ends_with('/') => (Some(d.trim_end_matches('/').to_string()), leaf.to_string()),
        d if !d.contains('/') && content.join(d).join(PART_INDEX).is_file() => {
            (Some(d.to_string()), leaf.to_string())
        }
        d => match d.split_once('/') {
            Some((part, name)) => (Some(part.to_string()), name.to_string()),
            None => (None, d.to_string()),
        },
    };
    if let Some(part) = &part {
        check_name(part, "a part")?;
    }
    check_name(&name, "an article")?;
    Ok((part, name))
}

/// The weights to write (file before the move → weight): with `after`, the whole
/// destination renumbered with the article right after that member; without, the article's
/// alone when it changes group (last there), nothing when it stays in its group.
fn place(
    from: &str,
    to: &str,
    part: Option<&str>,
    after: Option<&str>,
    texts: &BTreeMap<String, String>,
) -> anyhow::Result<Vec<(String, i64)>> {
    let mut members = group(part, texts)?;
    members.retain(|m| m.file != from);
    let Some(after) = after else {
        if folder(from) == folder(to) {
            return Ok(Vec::new());
        }
        let last = members.iter().map(|m| m.weight).max().unwrap_or(0);
        return Ok(vec![(from.to_string(), last + WEIGHT_STEP)]);
    };
    let after = after.trim_end_matches('/').trim_end_matches(".md");
    let after = after.rsplit('/').next().unwrap_or(after);
    let Some(at) = members.iter().position(|m| m.name == after) else {
        let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
        let hint = tracebook_trace::suggest::hint(after, &names, "there")
            .map_or(String::new(), |h| format!("\n  hint: {h}"));
        let place = part.map_or("at the top of content/".to_string(), |p| {
            format!("in the part content/{p}/")
        });
        bail!("--after {after}: no such article {place}; nothing was moved{hint}");
    };
    let mut order: Vec<String> = members.iter().map(|m| m.file.clone()).collect();
    order.insert(at + 1, from.to_string());
    let current: BTreeMap<&str, i64> = members
        .iter()
        .map(|m| (m.file.as_str(), m.weight))
        .collect();
    Ok(order
        .into_iter()
        .zip(1..)
        .map(|(file, i)| (file, i * WEIGHT_STEP))
        .filter(|(file, weight)| current.get(file.as_str()) != Some(weight))
        .collect())
}

/// The articles (and, at the top, the parts) a destination orders, in the site's order.
fn group(part: Option<&str>, texts: &BTreeMap<String, String>) -> anyhow::Result<Vec<Member>> {
    let parts: Vec<&str> = texts
        .keys()
        .filter_map(|f| f.strip_suffix(&format!("/{PART_INDEX}")))
        .filter(|p| !p.contains('/'))
        .collect();
    let mut members = Vec::new();
    for (file, text) in texts {
        let folder = file.rsplit_once('/').map(|(d, _)| d);
        let top_folder = file.split('/').next().filter(|_| folder.is_some());
        let in_part = top_folder.filter(|t| parts.contains(t));
        let index = file.ends_with(PART_INDEX);
        let belongs = match part {
            Some(part) => in_part == Some(part) && !index,
            None => match in_part {
                Some(_) => index && folder.is_some_and(|f| !f.contains('/')),
                None => file != "index.md",
            },
        };
        if !belongs {
            continue;
        }
        let facts = moves::front_matter_of(file, text)
            .map_err(|e| anyhow::anyhow!("content/{e}; nothing was moved"))?;
        let name = match (index, folder) {
            (true, Some(folder)) => folder.to_string(),
            _ => file
                .rsplit('/')
                .next()
                .unwrap_or(file)
                .trim_end_matches(".md")
                .to_string(),
        };
        members.push(Member {
            file: file.clone(),
            name,
            weight: facts.weight,
            title: facts.title,
        });
    }
    members.sort_by(|a, b| (a.weight, &a.title, &a.file).cmp(&(b.weight, &b.title, &b.file)));
    Ok(members)
}

/// Writes `text` to `path` through a file beside it renamed into place, with the permissions of
/// `like` (the file it replaces or moves).
fn write_like(path: &Path, text: &str, like: &Path) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = dir.join(format!(".{file_name}.tracebook-mv"));
    fs::write(&temporary, text).with_context(|| format!("cannot write {}", temporary.display()))?;
    if let Ok(meta) = fs::metadata(like) {
        fs::set_permissions(&temporary, meta.permissions())
            .with_context(|| format!("cannot set the permissions of {}", temporary.display()))?;
    }
    fs::rename(&temporary, path).with_context(|| format!("cannot write {}", path.display()))
}
