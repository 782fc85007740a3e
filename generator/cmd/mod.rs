//! One module per subcommand; each parses nothing itself and calls into a library crate.

mod build;
#[cfg(feature = "trace")]
mod builtin_model;
mod check;
#[cfg(feature = "trace")]
mod dev;
mod eject;
mod external;
mod figure;
mod figures;
mod init;
mod inspect;
mod inspect_table;
mod mdbook;
#[cfg(not(feature = "trace"))]
mod model_free;
mod mv;
mod new;
mod new_kind;
mod serve;
#[cfg(feature = "trace")]
mod trace;
#[cfg(feature = "trace")]
mod trace_args;
#[cfg(feature = "trace")]
mod trace_site;
#[cfg(feature = "trace")]
mod trace_write;
#[cfg(feature = "trace")]
mod train;
pub mod ui;

/// Where the commands that run a model come from: the full build, or a build-only install
/// (`--no-default-features`) whose `trace` and `train` say how to get them.
#[cfg(not(feature = "trace"))]
use model_free::{trace, train};

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Build static explainer sites about transformers from real model runs.
#[derive(Parser, Debug)]
#[command(name = "tracebook", version, about)]
pub struct Cli {
    /// The site folder (holding tracebook.toml).
    #[arg(long, global = true, default_value = ".")]
    pub root: PathBuf,
    /// Print errors only (init, new, serve, build, check).
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also print how long each stage of a build took.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create a new site in DIR that builds at once (a sample article, its trace, a Pages workflow).
    Init(init::Args),
    /// Add an article, content/NAME.md, after the last one (PART/NAME: in a part, started if new).
    New(new::Args),
    /// Build, serve public/ on 127.0.0.1, rebuild on every edit and reload the browser.
    Serve(serve::Args),
    /// Render the site into public/ (never runs a model).
    Build(build::Args),
    /// Validate content, traces and links; write nothing.
    Check(check::Args),
    /// Run the model on the site's prompts (or one --prompt) and write traces.
    Trace(trace::Args),
    /// Copy the built-in templates into templates/ to edit them (never overwrites).
    EjectTemplates(eject::Args),
    /// List the figure kinds, or print one kind's options, defaults and an example block.
    Figures(figures::Args),
    /// Move an article into, out of or between parts, rename or reorder it; the links to it
    /// and its own are rewritten, weights renumbered with --after.
    Mv(mv::Args),
    /// Start a figure kind of your own: figures/NAME.svg (a template) and figures/NAME.toml.
    NewKind(new_kind::Args),
    /// Draw one figure block from the site's traces as an SVG file or an HTML fragment for any page.
    Figure(figure::Args),
    /// The mdBook preprocessor: `command = "tracebook mdbook"` under [preprocessor.tracebook]
    /// in book.toml draws the book's figures from its traces (mdBook runs it).
    Mdbook(mdbook::Args),
    /// List a trace's tokens and tensors, or print one as a table of tokens and heads.
    Inspect(inspect::Args),
    /// Train a small GPT-2-architecture model on a text file.
    Train(Box<train::Args>),
    /// Make GPT-2-architecture model folders with random weights, to try a site or tracebook
    /// itself on any model size without downloading one (`dev test-model DIR --shape small`).
    #[cfg(feature = "trace")]
    Dev(dev::Args),
}

pub fn run(cli: Cli, ui: &ui::Ui) -> anyhow::Result<()> {
    match cli.command {
        Command::Init(args) => init::run(ui, args),
        Command::New(args) => new::run(&cli.root, ui, args),
        Command::Serve(args) => serve::run(&cli.root, ui, args),
        Command::Build(args) => build::run(&cli.root, ui, args),
        Command::Check(args) => check::run(&cli.root, ui, args),
        Command::EjectTemplates(args) => eject::run(&cli.root, ui, args),
        Command::Trace(args) => trace::run(&cli.root, args),
        Command::Figures(args) => figures::run(&cli.root, args),
        Command::NewKind(args) => new_kind::run(&cli.root, args),
        Command::Mv(args) => mv::run(&cli.root, ui, args),
        Command::Figure(args) => figure::run(&cli.root, ui, args),
        Command::Inspect(args) => inspect::run(args),
        Command::Mdbook(args) => mdbook::run(ui, args),
        Command::Train(args) => train::run(*args),
        #[cfg(feature = "trace")]
        Command::Dev(args) => dev::run(args),
    }
}
