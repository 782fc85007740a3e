//! `trace` and `train` in a build-only install (`cargo install ... --no-default-features`):
//! such a tracebook has no model code (no candle), builds sites from committed traces in a
//! fraction of the compile time, and says how to get the full one when asked to run a model.

/// Arguments are accepted as they come, so the answer is about the install, not a flag.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// (this install cannot run a model; see the message)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

fn refuse(command: &str) -> anyhow::Result<()> {
    anyhow::bail!(
        "this tracebook was installed to build sites only (without the `trace` feature), so \
         `tracebook {command}` cannot run a model\n  hint: install the full tracebook to trace \
         or train: `cargo install --locked --git <tracebook's repository> tracebook` (default \
         features); `build`, `check`, `serve`, `init` and `new` work here as they are"
    )
}

pub mod trace {
    pub use super::Args;

    pub fn run(_root: &std::path::Path, _args: Args) -> anyhow::Result<()> {
        super::refuse("trace")
    }
}

pub mod train {
    pub use super::Args;

    pub fn run(_args: Args) -> anyhow::Result<()> {
        super::refuse("train")
    }
}
