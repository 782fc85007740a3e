//! Loads `content/`: every article's front matter and body (other files are copied as they are).

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::base::source::{display_name, SourceFile};
use crate::load::front_matter;
use crate::load::prompts::{parse_prompt_table, NamedPrompt, PromptScope};
use crate::load::toml_doc::{entry, TomlDoc};
use serde::Deserialize;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The folder articles live in, at the site root.
pub const CONTENT_DIR: &str = "content";

/// An mdBook book's config: a site folder that holds it needs no content/.
pub const BOOK_FILE: &str = "book.toml";

/// The file that makes its folder a part (see `load::parts`).
pub const PART_INDEX: &str = "_index.md";

/// An article's front matter, without its prompts (those go to the site's prompt list).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FrontMatter {
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// Order in the series (lower first); ties are broken by title, then path.
    #[serde(default)]
    pub weight: i64,
    /// Drafts are left out of the output (their front matter and prompts are still read).
    #[serde(default)]
    pub draft: bool,
    /// When the article was published or last revised (`date = 2026-11-25`): the Atom feed's
    /// date for it.
    #[serde(default)]
    pub date: Option<toml::value::Datetime>,
}

const FRONT_MATTER_KEYS: &[&str] = &["title", "description", "weight", "draft", "date", "prompts"];

/// A markdown file of `content/`.
#[derive(Debug, Clone)]
pub struct Page {
    pub source: SourceFile,
    pub meta: FrontMatter,
    /// The markdown after the front matter, as a byte range of `source.text`.
    pub body: Range<usize>,
    /// Output path relative to the output root, with `/` separators (`attention.html`).
    pub output: String,
    /// What the file is to the site: an article, the home page's introduction, or a part's.
    pub kind: PageKind,
    /// The part the page belongs to: the folder under content/ that holds it and a
    /// `_index.md` (`01-basics`), if it is in one. Set by `load::parts::assign`.
    pub part: Option<String>,
}

/// What a markdown file of content/ is to the site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// A page of the series.
    Article,
    /// `content/index.md`: the home page's introduction.
    Home,
    /// `content/PART/_index.md`: a part's title, weight and introduction.
    Part,
}

impl Page {
    /// `content/index.md` is the home page's introduction, not an article.
    pub fn is_index(&self) -> bool {
        self.kind == PageKind::Home
    }

    pub fn is_article(&self) -> bool {
        self.kind == PageKind::Article
    }
}

/// Everything read from `content/`.
#[derive(Debug, Default)]
pub struct Content {
    pub pages: Vec<Page>,
    pub prompts: Vec<NamedPrompt>,
    /// Markdown files that could not be read as articles (already reported), by source name.
    pub unreadable: Vec<String>,
}

/// Reads every file under `root/content`, reporting every problem found.
pub fn load(root: &Path, out: &mut Diagnostics) -> Content {
    let mut content = Content::default();
    let dir = root.join(CONTENT_DIR);
    // An mdBook book with tracebook.toml beside its book.toml keeps its chapters in its own
    // src/ (read by `tracebook mdbook`); only its prompts and traces are tracebook's.
    if !dir.is_dir() && root.join(BOOK_FILE).is_file() {
        return content;
    }
    if !dir.is_dir() {
        out.push(
            Diagnostic::file(CONTENT_DIR, "there is no content/ folder").with_hint(
                "create content/ and put articles (markdown with +++ front matter) in it",
            ),
        );
        return content;
    }
    for relative in files_under(&dir, out) {
        if relative.extension().is_some_and(|e| e == "md") {
            let path = Path::new(CONTENT_DIR).join(&relative);
            let loaded = content.pages.len();
            match SourceFile::read(root, &path) {
                Ok(source) => load_page(source, &relative, &mut content, out),
                Err(diagnostic) => out.push(diagnostic),
            }
            if content.pages.len() == loaded {
                content.unreadable.push(display_name(&path));
            }
        }
    }
    content
}

/// Files under `dir`, relative to it, sorted, skipping hidden ones.
fn files_under(dir: &Path, out: &mut Diagnostics) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        match entry {
            Ok(entry) if entry.file_type().is_file() => {
                let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
                files.push(relative.to_path_buf());
            }
            Ok(_) => {}
            Err(err) => out.push(Diagnostic::file(
                CONTENT_DIR,
                format!("cannot read the folder: {err}"),
            )),
        }
    }
    files
}

/// Reads one article: its front matter (and the prompts it declares) and where its body is.
pub fn load_page(
    source: SourceFile,
    relative: &Path,
    content: &mut Content,
    out: &mut Diagnostics,
) {
    let parts = match front_matter::split(&source) {
        Ok(parts) => parts,
        Err(diagnostic) => return out.push(diagnostic),
    };
    let doc = match TomlDoc::parse(&source, parts.front_matter.clone()) {
        Ok(doc) => doc,
        Err(diagnostic) => return out.push(diagnostic),
    };
    doc.check_keys(doc.table(), FRONT_MATTER_KEYS, "front matter", out);
    let meta = doc
        .deserialize::<FrontMatter>(&doc.root)
        .map_err(|d| missing_key_hint(d, &source));
    if let Some((_, value)) = entry(doc.table(), "prompts") {
        let scope = PromptScope::Article(source.name.clone());
        content
            .prompts
            .extend(parse_prompt_table(&doc, value, scope, out));
    }
    let meta = match meta {
        Ok(meta) => meta,
        Err(diagnostic) => return out.push(diagnostic),
    };
    if meta.date.is_some_and(|d| d.date.is_none()) {
        let span = entry(doc.table(), "date").map_or(0..0, |(_, v)| v.span());
        out.push(
            doc.error(span, "`date` must be a day, with or without a time")
                .with_hint("write it unquoted, e.g. date = 2026-11-25"),
        );
    }
    let kind = if relative.file_name().is_some_and(|f| f == PART_INDEX) {
        PageKind::Part
    } else if relative == Path::new("index.md") {
        PageKind::Home
    } else {
        PageKind::Article
    };
    let output = match kind {
        PageKind::Part => display_name(&relative.with_file_name("index.html")),
        _ => output_path(relative),
    };
    content.pages.push(Page {
        source,
        meta,
        body: parts.body,
        output,
        kind,
        part: None,
    });
}

/// Serde names a missing key without a place: point at the opening `+++` instead.
fn missing_key_hint(diagnostic: Diagnostic, source: &SourceFile) -> Diagnostic {
    if !diagnostic.message.starts_with("missing field") {
        return diagnostic;
    }
    let start = usize::from(source.text.starts_with('\u{feff}')) * 3;
    let key = diagnostic
        .message
        .split('`')
        .nth(1)
        .unwrap_or("title")
        .to_string();
    source
        .error(start..start + 3, format!("the front matter has no `{key}`"))
        .with_hint(format!(
            "add a line `{key} = \"...\"` between the +++ lines"
        ))
}

/// `attention.md` → `attention.html`; `part-2/intro.md` → `part-2/intro.html`.
fn output_path(relative: &Path) -> String {
    display_name(&relative.with_extension("html"))
}

/// A site folder holding `files` (path under the root, text), for the load stage's tests.
#[cfg(test)]
pub(crate) fn test_site(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(files: &[(&str, &str)]) -> (tempfile::TempDir, Content, String) {
        let dir = test_site(files);
        let mut out = Diagnostics::new();
        let content = load(dir.path(), &mut out);
        (dir, content, out.to_string())
    }

    #[test]
    fn loads_pages_and_prompts() {
        let (_dir, content, errors) = site(&[
            (
                "content/b.md",
                "+++\ntitle = \"B\"\nweight = 2\n[prompts]\ncats = \"I like cats and\"\n+++\nHi\n",
            ),
            (
                "content/part/a.md",
                "+++\ntitle = \"A\"\ndraft = true\n+++\n",
            ),
            ("content/img.png", "png"),
            ("content/.hidden.md", "not an article"),
        ]);
        assert_eq!(errors, "");
        let outputs: Vec<_> = content.pages.iter().map(|p| p.output.as_str()).collect();
        assert_eq!(outputs, ["b.html", "part/a.html"]);
        assert_eq!(content.pages[0].meta.weight, 2);
        assert!(content.pages[1].meta.draft);
        assert_eq!(
            content.prompts[0].scope,
            PromptScope::Article("content/b.md".into())
        );
    }

    #[test]
    fn reports_problems_of_every_page() {
        let (_dir, content, errors) = site(&[
            ("content/a.md", "+++\ndescription = \"no title\"\n+++\n"),
            ("content/b.md", "+++\ntitle = \"B\"\nwieght = 3\n+++\n"),
            ("content/c.md", "no front matter\n"),
        ]);
        // b.md has a bad key but readable metadata: it stays, so its body is checked too.
        assert_eq!(content.pages.len(), 1);
        assert!(
            errors.contains("content/a.md:1:1: error: the front matter has no `title`"),
            "{errors}"
        );
        assert!(
            errors.contains("content/b.md:3:1: error: unknown key `wieght` in front matter"),
            "{errors}"
        );
        assert!(errors.contains("did you mean `weight`?"), "{errors}");
        assert!(
            errors.contains("content/c.md:1:1: error: an article must start with front matter"),
            "{errors}"
        );
    }
}
