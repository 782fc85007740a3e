//! `tracebook check`: validate content, traces and links without writing anything.

use super::ui::Ui;
use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(root: &Path, ui: &Ui, _args: Args) -> anyhow::Result<()> {
    match tracebook_site::check(root) {
        Ok(report) => {
            if !report.warnings.is_empty() {
                eprintln!("{}", report.warnings);
            }
            ui.timings("check", &report.timings);
            ui.say(&report);
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
