//! The `tracebook` command line: parses arguments and hands each command to its module.

mod cmd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cmd::Cli::parse();
    match cmd::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            cmd::report(&err);
            ExitCode::FAILURE
        }
    }
}
