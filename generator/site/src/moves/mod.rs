//! What moving an article changes in the site's markdown (`tracebook mv`). An article's place
//! is its path under content/ (`tokens.md`, `01-basics/tokens.md`), and three things name it:
//! relative markdown links and reference definitions (`../01-basics/tokens.md#ids`), the
//! `href` and `src` of raw HTML (`tokens.html`), and `{{ ref PAGE#id }}` (the page's output
//! name). [`rewrite`] gives a file's text after a move: what pointed at the article points at
//! its new place, and the moved article's own relative links still reach what they reached.
//! Only the destinations are replaced, so the rest of a file (a byte-order mark, CRLF line
//! ends, link texts and titles) stays byte for byte. The command (generator/cmd/mv.rs) picks
//! the place and the weights; [`weight`] edits a front matter's `weight`.

mod scan;
mod weight;

pub use weight::{front_matter_of, set_weight, FrontMatterFacts};

use crate::base::paths;
use crate::render::markdown::is_external;
use scan::Destination;

/// An article's move, as paths relative to content/ (`tokens.md` → `01-basics/tokens.md`).
#[derive(Debug, Clone)]
pub struct Move {
    pub from: String,
    pub to: String,
}

/// A file's text after a move, and how many of its destinations changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewritten {
    pub text: String,
    pub changed: usize,
}

/// The text of the file at `file` (relative to content/, its place before the move) after
/// `moved`. Err (a message) when its front matter cannot be found: its links cannot be read.
pub fn rewrite(file: &str, text: &str, moved: &Move) -> Result<Rewritten, String> {
    let old_dir = paths::parent(file);
    let new_dir = if file == moved.from {
        paths::parent(&moved.to)
    } else {
        old_dir
    };
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for found in scan::destinations(file, text)? {
        let written = &text[found.span.clone()];
        let replacement = match found.what {
            Destination::Link => relink(written, old_dir, new_dir, moved),
            Destination::Reference => rereference(written, moved),
        };
        if let Some(new) = replacement.filter(|new| new != written) {
            edits.push((found.span, new));
        }
    }
    let mut out = text.to_string();
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    for (span, new) in &edits {
        out.replace_range(span.clone(), new);
    }
    Ok(Rewritten {
        text: out,
        changed: edits.len(),
    })
}

/// A relative link written in a file of `old_dir`, as it must read from `new_dir` once the
/// article has moved; None to leave it (external, absolute, a fragment alone, outside the site).
fn relink(written: &str, old_dir: &str, new_dir: &str, moved: &Move) -> Option<String> {
    if is_external(written) || written.starts_with('/') || written.starts_with(['#', '?']) {
        return None;
    }
    let cut = written.find(['#', '?']).unwrap_or(written.len());
    let (path, rest) = written.split_at(cut);
    if path.is_empty() {
        return None;
    }
    let target = paths::join(old_dir, &paths::decode(path))?;
    let html = |md: &str| format!("{}.html", md.strip_suffix(".md").unwrap_or(md));
    let mapped = if target == moved.from {
        moved.to.clone()
    } else if target == html(&moved.from) {
        html(&moved.to)
    } else if old_dir != new_dir {
        target.clone()
    } else {
        return None;
    };
    let mut new = paths::relative(new_dir, &mapped);
    if path.ends_with('/') && !new.ends_with('/') {
        new.push('/');
    }
    Some(new + rest)
}

/// The id of a `{{ ref PAGE#id }}` after the move: PAGE is an output name, with or without
/// `.html`.
fn rereference(written: &str, moved: &Move) -> Option<String> {
    let (page, anchor) = written.split_once('#')?;
    let (name, suffix) = match page.strip_suffix(".html") {
        Some(name) => (name, ".html"),
        None => (page, ""),
    };
    let output = |md: &str| md.strip_suffix(".md").unwrap_or(md).to_string();
    (name == output(&moved.from)).then(|| format!("{}{suffix}#{anchor}", output(&moved.to)))
}

#[cfg(test)]
mod tests;
