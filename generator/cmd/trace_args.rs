//! The options of `tracebook trace`, shared by its two ways of tracing: the site's
//! prompts (`trace_site`) and one text given on the command line (`trace`).

use std::path::PathBuf;
use tracebook_trace::Precision;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A model folder, or a Hugging Face hub id (default: [model] id in tracebook.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// Trace only this prompt of the site.
    #[arg(long, conflicts_with = "prompt")]
    pub only: Option<String>,
    /// Rewrite traces even when they are up to date.
    #[arg(long)]
    pub force: bool,
    /// Never download a model; use only local folders and the Hugging Face cache.
    #[arg(long)]
    pub offline: bool,
    /// Trace this text instead of the site's prompts (needs --out).
    #[arg(long, requires = "out")]
    pub prompt: Option<String>,
    /// Where to write the ad-hoc trace.
    #[arg(long, requires = "prompt")]
    pub out: Option<PathBuf>,
    /// compact | f16 | f32 (default: the site's [trace] precision, else compact).
    #[arg(long)]
    pub precision: Option<Precision>,
    /// Next-token candidates kept per position (default: the site's [trace] top_k, else 20).
    #[arg(long)]
    pub top_k: Option<usize>,
    /// Tokens to generate after an ad-hoc prompt.
    #[arg(long, default_value_t = 0)]
    pub generate: usize,
}
