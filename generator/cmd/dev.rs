//! `tracebook dev` (hidden): developer helpers, such as writing a random-weights test model.

use std::path::PathBuf;
use tracebook_model::testmodel::{write_test_model, KeyLayout, TestModelSpec};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: DevCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum DevCommand {
    /// Write a GPT-2-architecture model folder with deterministic pseudo-random weights.
    TestModel {
        /// Where to write config.json, model.safetensors and tokenizer.json.
        dir: PathBuf,
        /// tiny (2 layers, 4 heads, 64 wide) or small (GPT-2 small's shape).
        #[arg(long, default_value = "tiny")]
        shape: String,
        /// Write keys as `h.0...` (bare) or `transformer.h.0...` (save_pretrained).
        #[arg(long, default_value = "transformer")]
        layout: String,
        #[arg(long)]
        seed: Option<u64>,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        DevCommand::TestModel {
            dir,
            shape,
            layout,
            seed,
        } => {
            let mut spec = match shape.as_str() {
                "tiny" => TestModelSpec::tiny(),
                "small" => TestModelSpec::small(),
                other => anyhow::bail!("unknown shape {other:?}: use tiny or small"),
            };
            spec.layout = match layout.as_str() {
                "bare" => KeyLayout::Bare,
                "transformer" => KeyLayout::Transformer,
                other => anyhow::bail!("unknown layout {other:?}: use bare or transformer"),
            };
            if let Some(seed) = seed {
                spec.seed = seed;
            }
            write_test_model(&dir, &spec)?;
            println!("wrote a {shape} test model to {}", dir.display());
            Ok(())
        }
    }
}
