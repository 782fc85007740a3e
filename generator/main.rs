//! The `tracebook` command line: parses arguments and hands each command to its module.

/// `println!` for a command's output: a reader that went away (`tracebook figures | head`) is
/// no error, the command goes on without printing (`println!` would panic on the closed pipe).
macro_rules! outln {
    () => {
        $crate::cmd::ui::out_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cmd::ui::out_line(format_args!($($arg)*))
    };
}

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
