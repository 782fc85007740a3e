//! The `tracebook` command line: parses arguments and hands each command to its module.

mod cmd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cmd::Cli::parse();
    let ui = cmd::ui::Ui::new(cli.quiet, cli.verbose);
    match cmd::run(cli, &ui) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            ui.error(&err);
            ExitCode::FAILURE
        }
    }
}
