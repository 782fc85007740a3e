//! The prompts one article may use (shared ones and its own) and their traces; remembers
//! which prompts the article used so missing traces are reported once, where declared.

use crate::base::problem::Problem;
use crate::load::prompts::{NamedPrompt, PromptScope};
use crate::load::traces::TraceSet;
use crate::suggest;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::ops::Range;
use tracebook_trace::Trace;

/// Prompt lookup for one article.
pub struct PromptScopeView<'a> {
    pub prompts: &'a [NamedPrompt],
    pub traces: &'a TraceSet,
    /// The article's path relative to the site root (`content/a.md`).
    pub article: &'a str,
    used: RefCell<BTreeSet<String>>,
}

/// A prompt the article may use: its trace, or None when the trace is missing or stale
/// (that is reported once at the prompt's declaration, not at every use).
pub type Resolved<'a> = Option<&'a Trace>;

impl<'a> PromptScopeView<'a> {
    pub fn new(prompts: &'a [NamedPrompt], traces: &'a TraceSet, article: &'a str) -> Self {
        PromptScopeView {
            prompts,
            traces,
            article,
            used: RefCell::new(BTreeSet::new()),
        }
    }

    /// Looks `name` up; an unknown or out-of-scope name is a problem at `span`.
    pub fn resolve(&self, name: &str, span: Range<usize>) -> Result<Resolved<'a>, Problem> {
        let prompt = self.prompts.iter().find(|p| p.name.as_str() == name);
        match prompt {
            Some(p) if p.visible_from(self.article) => {
                self.used.borrow_mut().insert(name.to_string());
                Ok(self.traces.ready(name))
            }
            Some(p) => Err(Problem::new(span, format!("prompt `{name}` belongs to another article")).with_hint(
                format!(
                    "it is declared in the front matter of {} ({}); move it to [prompts] in tracebook.toml to share it",
                    scope_file(&p.scope),
                    p.declared
                ),
            )),
            None => {
                let visible = self.visible_names();
                let hint = suggest::hint(name, &visible, "prompts this article can use")
                    .or_else(|| Some("declare it under [prompts] in the front matter or in tracebook.toml".into()));
                Err(Problem::new(span, format!("unknown prompt `{name}`")).with_optional_hint(hint))
            }
        }
    }

    /// Names of the prompts this article may use, sorted.
    pub fn visible_names(&self) -> Vec<&'a str> {
        self.prompts
            .iter()
            .filter(|p| p.visible_from(self.article))
            .map(|p| p.name.as_str())
            .collect()
    }

    /// The site's own figure kind called `name` (`figures/NAME.svg`), if it has one.
    pub fn own_kind(&self, name: &str) -> Option<&'a tracebook_figures::own::OwnKind> {
        self.traces.own_kinds.iter().find(|k| k.name == name)
    }

    /// The names of the site's own figure kinds.
    pub fn own_kind_names(&self) -> Vec<String> {
        self.traces
            .own_kinds
            .iter()
            .map(|k| k.name.clone())
            .collect()
    }

    /// The prompts the article has named so far.
    pub fn into_used(self) -> BTreeSet<String> {
        self.used.into_inner()
    }
}

fn scope_file(scope: &PromptScope) -> &str {
    match scope {
        PromptScope::Shared => "tracebook.toml",
        PromptScope::Article(path) => path,
    }
}

/// Figures see only the prompts this article may use, with a ready trace.
impl tracebook_figures::Traces for PromptScopeView<'_> {
    fn get(&self, prompt: &str) -> Option<&Trace> {
        let visible = self
            .prompts
            .iter()
            .any(|p| p.name.as_str() == prompt && p.visible_from(self.article));
        visible.then(|| self.traces.ready(prompt)).flatten()
    }

    fn names(&self) -> Vec<String> {
        self.visible_names()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    fn live_cache(&self) -> Option<&tracebook_figures::LiveCache> {
        Some(self.traces.live_cache())
    }
}
