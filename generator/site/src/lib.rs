//! tracebook's site builder: reads a site folder (tracebook.toml, content/, traces/,
//! templates/, static/) and renders it into a static site, never running a model.
//!
//! [`build`] renders into `public/` atomically; [`check`] validates everything, links and
//! anchors included, and writes nothing; [`collect_prompts`] lists the prompts to trace.

mod body;
mod citations;
mod claim_report;
mod claims;
mod commands;
mod config;
mod content;
mod diagnostic;
mod escape;
mod external;
mod front_matter;
#[doc(hidden)]
pub mod fuzzing;
mod html_scan;
mod inline;
mod lazy_tokenizer;
mod linkcheck;
pub mod live;
mod markdown;
mod output;
mod paths;
mod problem;
mod prompt_name;
mod prompts;
mod refs;
mod render;
mod scope;
mod search;
mod site;
mod source;
use tracebook_trace::suggest;
mod templates;
mod toml_doc;
mod traces;
mod words;

pub use claim_report::{list as claims_list, ClaimRecord};
pub use commands::{build, build_at, check, check_with, BuildReport, CheckReport, Overrides};
pub use config::{
    CheckSettings, ClaimPolicy, LiveOffer, LivePrecision, LiveSettings, ModelSettings, SiteConfig,
    CONFIG_FILE,
};
pub use diagnostic::Position;
pub use diagnostic::{Diagnostic, Diagnostics, Snippet};
pub use external::{
    check_external, ExternalOptions, ExternalReport, CACHE_FILE as EXTERNAL_LINKS_CACHE,
};
pub use inline::Outcome as ClaimOutcome;
pub use prompt_name::{InvalidPromptName, PromptName};
pub use prompts::{NamedPrompt, PromptScope};
pub use render::GENERATOR;
pub use site::SitePrompts;
pub use source::Location;
pub use templates::DEFAULTS as DEFAULT_TEMPLATES;

use std::path::Path;

/// The config and every named prompt of the site at `root` (shared ones from tracebook.toml,
/// article-local ones from front matter), sorted by name, with where each was declared.
/// A name declared twice, or one that is not a safe file name, is an error.
pub fn collect_prompts(root: &Path) -> Result<SitePrompts, Diagnostics> {
    site::Site::load(root).map(site::Site::into_prompts)
}
