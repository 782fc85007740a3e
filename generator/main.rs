//! The `tracebook` command line: parses arguments and hands each command to its module.

mod cmd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a `println!` into a closed pipe (`tracebook figures | head`)
    // would panic; a command-line tool ends quietly instead, as `ls | head` does.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
