//! tracebook's site builder: reads a site folder (tracebook.toml, content/, traces/,
//! templates/, static/) and renders it into a static site, never running a model.
//!
//! [`build`] renders into `public/` atomically; [`check`] validates everything, links and
//! anchors included, and writes nothing; [`collect_prompts`] lists the prompts to trace.
//!
//! A build goes through four stages, each a folder, declared below in the order a build goes
//! through them. A module imports only from its own stage and the ones declared before it
//! (tests/layering.rs keeps it so); each stage's `//!` says what it takes and gives, and
//! docs/architecture.md where a new directive, figure kind or output file goes.

/// What every stage says: diagnostics, source positions, escaping, output paths.
mod base;

/// 1. Files in (config, articles, front matter, prompts, bibliography, traces, templates),
///    typed values out, with source positions.
mod load;

/// 2. What reads the traces or the whole site to give values: prompt scopes,
///    cross-reference ids, inline values, citations, claims and their verdicts.
mod resolve;

/// 3. Markdown to HTML, figures to SVG, pages through tera, all in memory.
mod render;

/// 4. The whole site's other files (search index, theme, sitemap, feed, live mode), link
///    checking of the output, the output folder written atomically.
mod write;

/// `build` and `check`: the stages in order.
mod commands;

/// `tracebook figure`: one figure outside any page, as an SVG and an HTML fragment.
mod lone;

/// `tracebook mdbook`: an mdBook preprocessor drawing a book's figures from its traces.
mod book;

/// `tracebook mv`: the links, references and weights a moved article changes.
pub mod moves;

#[doc(hidden)]
pub mod fuzzing;

use tracebook_trace::suggest;

pub use base::diagnostic::{Diagnostic, Diagnostics, Position, Snippet};
pub use base::source::Location;
pub use book::{mdbook, BookOutput, RENDERERS as MDBOOK_RENDERERS};
pub use commands::{build, build_at, check, check_with, BuildReport, CheckReport, Overrides};
pub use load::config::{
    CheckSettings, ClaimPolicy, LiveOffer, LivePrecision, LiveSettings, ModelSettings, SiteConfig,
    CONFIG_FILE,
};
pub use load::content::PART_INDEX;
pub use load::own_kinds::{of_site as own_kinds, FIGURES_DIR};
pub use load::prompt_name::{InvalidPromptName, PromptName};
pub use load::prompts::{NamedPrompt, PromptScope};
pub use load::site::{collect_prompts, SitePrompts};
pub use load::templates::DEFAULTS as DEFAULT_TEMPLATES;
pub use lone::{figure, figure_of_traces, LoneFigure};
pub use render::GENERATOR;
pub use resolve::claim_report::{
    list as claims_list, list_as as claims_list_as, ClaimRecord, ListFormat as ClaimsListFormat,
};
/// A number with so many significant digits, as the site's prose prints numbers.
pub use resolve::inline::significant;
pub use resolve::inline::Outcome as ClaimOutcome;
pub use write::external::{
    check_external, ExternalOptions, ExternalReport, CACHE_FILE as EXTERNAL_LINKS_CACHE,
};
pub use write::live;
