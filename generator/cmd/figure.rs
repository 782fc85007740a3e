//! `tracebook figure`: one figure block drawn from the site's traces, outside any page: a
//! standalone SVG, and an HTML fragment that works pasted into any page or iframe.

use super::ui::Ui;
use anyhow::Context;
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The block: a file holding a ```figure KIND block (a markdown file, or just the block),
    /// `-` for standard input, or the text itself: KIND on the first line, the TOML body
    /// below (tracebook figure $'attention\nprompt = "animal"\nlayer = 1').
    pub block: String,
    /// Write the standalone SVG here (caption and credit drawn under the figure).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write the HTML fragment here: the figure with its controls, to paste into any page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// The figure's number on the page it goes into: its label ("Figure N.") and its anchor
    /// (`figure-N`, unless the block sets `id`), so that several fragments on one page differ.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub number: u32,
}

pub fn run(root: &Path, ui: &Ui, args: Args) -> anyhow::Result<()> {
    let (name, text) = read_block(&args.block)?;
    let figure = match tracebook_site::figure(root, &name, &text, args.number as usize) {
        Ok(figure) => figure,
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            anyhow::bail!("the figure was not drawn");
        }
    };
    let outputs = [(&args.svg, &figure.svg), (&args.html, &figure.html)];
    if outputs.iter().all(|(path, _)| path.is_none()) {
        return super::ui::print_out(&figure.svg);
    }
    for (path, text) in outputs {
        if let Some(path) = path {
            tracebook_trace::write_atomic(path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            ui.say(format!("wrote {} ({} bytes)", path.display(), text.len()));
        }
    }
    Ok(())
}

/// What messages call the block, and its text.
fn read_block(block: &str) -> anyhow::Result<(String, String)> {
    if block == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        return Ok(("<stdin>".to_string(), text));
    }
    let path = Path::new(block);
    if !block.contains('\n') && path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        return Ok((block.to_string(), text));
    }
    Ok(("<command line>".to_string(), block.to_string()))
}
