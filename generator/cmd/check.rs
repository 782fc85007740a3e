//! `tracebook check`: validate content, traces and links without writing anything.

use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(root: &Path, _args: Args) -> anyhow::Result<()> {
    match tracebook_site::check(root) {
        Ok(report) => {
            println!("{report}");
            Ok(())
        }
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            anyhow::bail!(
                "the check found {} error{}",
                diagnostics.len(),
                if diagnostics.len() == 1 { "" } else { "s" }
            )
        }
    }
}
