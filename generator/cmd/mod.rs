//! One module per subcommand; each parses nothing itself and calls into a library crate.

mod build;
mod check;
mod dev;
mod inspect;
mod trace;
mod trace_site;
mod train;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Build static explainer sites about transformers from real model runs.
#[derive(Parser, Debug)]
#[command(name = "tracebook", version, about)]
pub struct Cli {
    /// The site folder (holding tracebook.toml).
    #[arg(long, global = true, default_value = ".")]
    pub root: PathBuf,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Render the site into public/ (never loads a model).
    Build(build::Args),
    /// Validate content, traces and links; write nothing.
    Check(check::Args),
    /// Run the model on the site's prompts (or one --prompt) and write traces.
    Trace(trace::Args),
    /// List a trace's tensors, or print one as JSON numbers.
    Inspect(inspect::Args),
    /// Train a small GPT-2-architecture model on a text file.
    Train(Box<train::Args>),
    /// Developer helpers (test models).
    #[command(hide = true)]
    Dev(dev::Args),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Build(args) => build::run(&cli.root, args),
        Command::Check(args) => check::run(&cli.root, args),
        Command::Trace(args) => trace::run(&cli.root, args),
        Command::Inspect(args) => inspect::run(args),
        Command::Train(args) => train::run(*args),
        Command::Dev(args) => dev::run(args),
    }
}

/// Print an error and its whole cause chain once, on stderr.
pub fn report(err: &anyhow::Error) {
    eprintln!("error: {err}");
    for cause in err.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
}
