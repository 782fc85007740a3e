//! A whole site loaded from disk: config, pages in publishing order, and every named prompt.

use crate::base::diagnostic::Diagnostics;
use crate::load::citations::{self, Citations};
use crate::load::config::{self, SiteConfig};
use crate::load::content::{self, Page, PageKind};
use crate::load::parts;
use crate::load::prompts::{self, NamedPrompt};
use std::path::{Path, PathBuf};

/// The site as read from its folder, before anything is rendered.
#[derive(Debug)]
pub struct Site {
    pub root: PathBuf,
    pub config: SiteConfig,
    /// Every markdown file, drafts included, in publishing order.
    pub pages: Vec<Page>,
    /// Every prompt, sorted by name, each name once.
    pub prompts: Vec<NamedPrompt>,
    /// Markdown files that could not be read as articles (their problems already reported).
    pub unreadable: Vec<String>,
    /// The bibliography `{{ cite KEY }}` cites from, read once for the whole build.
    pub citations: Citations,
    /// The site's own figure kinds (`figures/NAME.svg`).
    pub own_kinds: Vec<tracebook_figures::own::OwnKind>,
}

impl Site {
    /// Reads tracebook.toml and content/; `Err` holds every problem found in either.
    pub fn load(root: &Path) -> Result<Site, Diagnostics> {
        let (site, problems) = Site::load_partial(root)?;
        problems.into_result(site)
    }

    /// Reads what can be read, so that a build can report the problems of the rest of the
    /// site too; `Err` only when tracebook.toml itself cannot be used.
    pub fn load_partial(root: &Path) -> Result<(Site, Diagnostics), Diagnostics> {
        let (config, shared) = config::load(root)?;
        let mut out = Diagnostics::new();
        let mut content = content::load(root, &mut out);
        parts::assign(&mut content.pages, &mut out);
        parts::sort(&mut content.pages);
        let prompts = prompts::merge(shared.into_iter().chain(content.prompts), &mut out);
        let citations = citations::load(root, &config.citations, &config.words.language, &mut out);
        let own_kinds = super::own_kinds::load(root, &mut out);
        let site = Site {
            root: root.to_path_buf(),
            config,
            pages: content.pages,
            prompts,
            unreadable: content.unreadable,
            citations,
            own_kinds,
        };
        Ok((site, out))
    }

    /// The pages that are published (drafts left out), in order; the index page and the parts'
    /// introductions are not among them.
    pub fn articles(&self) -> impl Iterator<Item = &Page> {
        self.pages
            .iter()
            .filter(|p| !p.meta.draft && p.is_article())
    }

    /// The parts' introductions (`_index.md`) that are published, in series order.
    pub fn parts(&self) -> impl Iterator<Item = &Page> {
        self.pages
            .iter()
            .filter(|p| !p.meta.draft && p.kind == PageKind::Part)
    }

    pub fn prompt(&self, name: &str) -> Option<&NamedPrompt> {
        self.prompts.iter().find(|p| p.name.as_str() == name)
    }

    pub fn into_prompts(self) -> SitePrompts {
        SitePrompts {
            config: self.config,
            prompts: self.prompts,
        }
    }
}

/// The config plus every prompt the site names, sorted by name: what `tracebook trace` needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SitePrompts {
    pub config: SiteConfig,
    pub prompts: Vec<NamedPrompt>,
}

impl SitePrompts {
    pub fn get(&self, name: &str) -> Option<&NamedPrompt> {
        self.prompts.iter().find(|p| p.name.as_str() == name)
    }

    /// Where the trace of `prompt` lives on disk.
    pub fn trace_path(&self, root: &Path, prompt: &NamedPrompt) -> PathBuf {
        root.join(prompt.trace_file())
    }
}

/// The config and every named prompt of the site at `root` (shared ones from tracebook.toml,
/// article-local ones from front matter), sorted by name, with where each was declared.
/// A name declared twice, or one that is not a safe file name, is an error.
pub fn collect_prompts(root: &Path) -> Result<SitePrompts, Diagnostics> {
    Site::load(root).map(Site::into_prompts)
}
