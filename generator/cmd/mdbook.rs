//! `tracebook mdbook`: the mdBook preprocessor (`[preprocessor.tracebook]` in book.toml).
//! mdBook runs `tracebook mdbook supports RENDERER` to ask, then `tracebook mdbook` with the
//! book as JSON on standard input; the book comes back on standard output, errors on
//! standard error (mdBook shows them and stops).

use super::ui::Ui;
use std::io::{Read, Write};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub ask: Option<Ask>,
}

#[derive(clap::Subcommand, Debug)]
pub enum Ask {
    /// Exit 0 if the renderer (html) takes tracebook's chapters, else 1 (mdBook asks this).
    Supports { renderer: String },
}

pub fn run(ui: &Ui, args: Args) -> anyhow::Result<()> {
    if let Some(Ask::Supports { renderer }) = args.ask {
        if tracebook_site::MDBOOK_RENDERERS.contains(&renderer.as_str()) {
            return Ok(());
        }
        std::process::exit(1);
    }
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let output = match tracebook_site::mdbook(&input) {
        Ok(output) => output,
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            anyhow::bail!("tracebook could not preprocess the book");
        }
    };
    ui.warnings(&output.warnings);
    ui.detail(format!(
        "tracebook: {} chapters, {} figures, {} inline values, {} claims",
        output.chapters,
        output.figures,
        output.values,
        output.claims.len()
    ));
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(output.json.as_bytes())?;
    stdout.flush()?;
    Ok(())
}
