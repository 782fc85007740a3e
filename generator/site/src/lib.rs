//! tracebook's site builder: reads a site folder (tracebook.toml, content/, traces/,
//! templates/, static/) and renders it into a static site, never loading a model.

mod config;
mod content;
mod diagnostic;
mod front_matter;
mod markdown;
mod prompt_name;
mod prompts;
mod site;
mod source;
mod suggest;
mod toml_doc;

pub use config::{ModelSettings, SiteConfig, CONFIG_FILE};
pub use diagnostic::{Diagnostic, Diagnostics, Snippet};
pub use prompt_name::{InvalidPromptName, PromptName};
pub use prompts::{NamedPrompt, PromptScope, SitePrompts};
pub use source::{Location, Position};

use std::path::Path;

/// The config and every named prompt of the site at `root` (shared ones from tracebook.toml,
/// article-local ones from front matter), sorted by name, with where each was declared.
/// A name declared twice, or one that is not a safe file name, is an error.
pub fn collect_prompts(root: &Path) -> Result<SitePrompts, Diagnostics> {
    site::Site::load(root).map(site::Site::into_prompts)
}
