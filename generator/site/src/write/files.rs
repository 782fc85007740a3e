//! The files that are not pages: the theme, static/, files beside articles, the sitemap.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::base::escape;
use crate::base::paths;
use crate::base::source::display_name;
use std::collections::BTreeMap;
use std::path::Path;

/// The default theme, written as `tracebook.css` unless static/ has its own.
pub const THEME: (&str, &str) = (
    "tracebook.css",
    include_str!("../../defaults/static/tracebook.css"),
);

/// The figures' script (controls, token highlighting, pickers), written as `tracebook.js`
/// unless static/ has its own. Pages are complete without it.
pub const SCRIPT: (&str, &str) = (
    "tracebook.js",
    include_str!("../../defaults/static/tracebook.js"),
);

/// The figures' script as readers get it: `SCRIPT` without its whole-line `//` comments (the
/// source documents itself; a reader on a slow link needs only the code). The script has no
/// template literals, so no string holds a line that starts with `//`.
pub fn script() -> String {
    SCRIPT
        .1
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The folder copied as is into the output.
pub const STATIC_DIR: &str = "static";

/// Adds every file under `root/dir` (markdown excepted if asked: articles are rendered) to
/// `files` at its path relative to `dir`; a file that would replace a generated page is an error.
pub fn copy_tree(
    root: &Path,
    dir: &str,
    skip_markdown: bool,
    files: &mut BTreeMap<String, Vec<u8>>,
    pages: &BTreeMap<String, String>,
    out: &mut Diagnostics,
) {
    let base = root.join(dir);
    if !base.is_dir() {
        return;
    }
    let walker = walkdir::WalkDir::new(&base)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = match entry {
            Ok(entry)
                if entry.file_type().is_file()
                    && !(skip_markdown && entry.path().extension().is_some_and(|e| e == "md")) =>
            {
                entry
            }
            Ok(_) => continue,
            Err(err) => {
                out.push(Diagnostic::file(
                    dir,
                    format!("cannot read the folder: {err}"),
                ));
                continue;
            }
        };
        let relative = display_name(entry.path().strip_prefix(&base).unwrap_or(entry.path()));
        let shown = format!("{dir}/{relative}");
        if let Some(page) = pages.get(&relative) {
            out.push(
                Diagnostic::file(
                    &shown,
                    format!("this file would replace {relative}, which is generated from {page}"),
                )
                .with_hint("rename or remove one of them"),
            );
            continue;
        }
        match std::fs::read(entry.path()) {
            Ok(bytes) => {
                files.insert(relative, bytes);
            }
            Err(err) => out.push(Diagnostic::file(
                &shown,
                format!("cannot read the file: {err}"),
            )),
        }
    }
}

/// The offline reader's file name, at the output root (its scope is the whole site).
pub const OFFLINE_WORKER: &str = "sw.js";

/// `sw.js` for `files` (the whole output but itself): the list of files to keep, and a
/// version that is the digest of their contents, so any rebuild that changes a byte is a new
/// version and replaces the reader's copy.
pub fn offline_worker(files: &BTreeMap<String, Vec<u8>>) -> String {
    use sha2::{Digest, Sha256};
    let mut digest = Sha256::new();
    let mut list = Vec::new();
    // The live files (megabytes of model and module) are fetched only when a reader asks,
    // and kept by tracebook-live.js in a cache of their own.
    let kept = files
        .iter()
        .filter(|(path, _)| !path.starts_with(crate::write::live::DIR));
    for (path, bytes) in kept {
        digest.update(path.as_bytes());
        digest.update([0]);
        digest.update(bytes);
        list.push(paths::encode(path));
    }
    let version: String = digest.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    include_str!("../../defaults/static/offline-sw.js")
        .replace("__VERSION__", &version)
        .replace(
            "__FILES__",
            &serde_json::to_string(&list).expect("strings serialize"),
        )
}

/// `sitemap.xml` listing the home page and every article under `base_url`.
pub fn sitemap(base_url: &str, pages: &[&str]) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    xml.push_str(&format!(
        "  <url><loc>{}</loc></url>\n",
        escape::html(base_url)
    ));
    for page in pages {
        let url = format!("{base_url}{}", paths::encode(page));
        xml.push_str(&format!("  <url><loc>{}</loc></url>\n", escape::html(&url)));
    }
    xml.push_str("</urlset>\n");
    xml
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_lists_absolute_urls() {
        let xml = sitemap("https://x.org/b/", &["a.html", "my page.html"]);
        assert!(xml.contains("<loc>https://x.org/b/</loc>"));
        assert!(xml.contains("<loc>https://x.org/b/my%20page.html</loc>"));
    }

    #[test]
    fn the_shipped_script_is_the_source_without_its_comment_lines() {
        let code: Vec<&str> = (SCRIPT.1.lines())
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        let shipped = script();
        assert_eq!(shipped.lines().collect::<Vec<_>>(), code);
        assert!(shipped.len() + 2_000 < SCRIPT.1.len(), "{}", shipped.len());
        // What makes dropping whole lines safe: no template literal, whose lines could start
        // with `//`, outside the comments.
        assert!(code.iter().all(|l| !l.contains('`')));
    }
}
