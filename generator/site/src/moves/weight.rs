//! An article's `weight` and `title`, read from its front matter, and the `weight` written
//! back: the `weight = ` line of the front matter's top table replaced in place (a comment
//! after it kept), or a line added after the opening `+++` when there is none, with the
//! file's own line end. Nothing else of the file changes.

use crate::base::source::SourceFile;
use crate::load::front_matter;

/// What ordering needs of a front matter: weight 0 when it has none, as the site reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatterFacts {
    pub weight: i64,
    pub title: String,
}

/// The weight and title of the file `name` holding `text`.
pub fn front_matter_of(name: &str, text: &str) -> Result<FrontMatterFacts, String> {
    let table = table(name, text)?.1;
    Ok(FrontMatterFacts {
        weight: table
            .get("weight")
            .and_then(toml::Value::as_integer)
            .unwrap_or(0),
        title: table
            .get("title")
            .and_then(toml::Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

/// `text` with its front matter's `weight` set to `weight`.
pub fn set_weight(name: &str, text: &str, weight: i64) -> Result<String, String> {
    let (range, table) = table(name, text)?;
    let front = &text[range.clone()];
    let mut out = None;
    let mut at = range.start;
    for line in front.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            break;
        }
        if let Some(value) = trimmed
            .strip_prefix("weight")
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix('='))
        {
            let value_start = at + line.len() - value.len();
            let blank = value.len() - value.trim_start().len();
            let start = value_start + blank;
            let end = start
                + text[start..]
                    .find(|c: char| c.is_whitespace() || c == '#')
                    .unwrap_or(text.len() - start);
            let mut edited = text.to_string();
            edited.replace_range(start..end, &weight.to_string());
            out = Some(edited);
            break;
        }
        at += line.len();
    }
    let edited = match out {
        Some(edited) => edited,
        None if table.contains_key("weight") => {
            return Err(format!(
                "{name}: its `weight` is not written as a line `weight = N` before any table, so it cannot be changed here"
            ))
        }
        None => {
            let end = if text[..range.start].ends_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            let mut edited = text.to_string();
            edited.insert_str(range.start, &format!("weight = {weight}{end}"));
            edited
        }
    };
    match front_matter_of(name, &edited) {
        Ok(facts) if facts.weight == weight => Ok(edited),
        _ => Err(format!(
            "{name}: its front matter's `weight` could not be set to {weight} without changing what else it says"
        )),
    }
}

/// The front matter's range in `text` and its top table.
fn table(name: &str, text: &str) -> Result<(std::ops::Range<usize>, toml::Table), String> {
    let file = SourceFile::from_text(name, text);
    let parts = front_matter::split(&file).map_err(|d| format!("{name}: {}", d.message))?;
    let table = text[parts.front_matter.clone()]
        .parse::<toml::Table>()
        .map_err(|e| {
            format!(
                "{name}: its front matter is not valid TOML ({})",
                e.message()
            )
        })?;
    Ok((parts.front_matter, table))
}
