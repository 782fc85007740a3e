//! `tracebook build`: render the site into public/.

use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output folder (default: public/ in the site folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(_root: &Path, _args: Args) -> anyhow::Result<()> {
    println!("nothing to build yet: the site builder has not landed");
    Ok(())
}
