//! `tracebook check`: validate content, traces and links without writing anything.

use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_root: &Path, _args: Args) -> anyhow::Result<()> {
    println!("nothing to check yet: the site builder has not landed");
    Ok(())
}
