//! How much the commands say, and whether stderr gets colour: `--quiet`, `--verbose`, a
//! terminal check and NO_COLOR, decided once in `main` and passed to every command.

use std::io::IsTerminal;
use std::time::Duration;

/// How much to print besides errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// Errors only.
    Quiet,
    Normal,
    /// Also per-stage timings and what each step did.
    Verbose,
}

/// The command line's output settings.
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    pub verbosity: Verbosity,
    /// Colour on stderr: only on a terminal, and never when NO_COLOR is set.
    pub colour: bool,
}

impl Ui {
    pub fn new(quiet: bool, verbose: bool) -> Ui {
        let verbosity = match (quiet, verbose) {
            (true, _) => Verbosity::Quiet,
            (false, true) => Verbosity::Verbose,
            (false, false) => Verbosity::Normal,
        };
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ui {
            verbosity,
            colour: !no_colour && std::io::stderr().is_terminal(),
        }
    }

    /// A result line (what a command did), on stdout unless `--quiet`.
    pub fn say(&self, text: impl std::fmt::Display) {
        if self.verbosity >= Verbosity::Normal {
            outln!("{text}");
        }
    }

    /// A build's or check's warnings, on stderr unless `--quiet` (errors only).
    pub fn warnings(&self, warnings: &impl std::fmt::Display) {
        let text = warnings.to_string();
        if self.verbosity >= Verbosity::Normal && !text.is_empty() {
            eprintln!("{text}");
        }
    }

    /// Detail for `--verbose`, on stderr.
    pub fn detail(&self, text: impl std::fmt::Display) {
        if self.verbosity == Verbosity::Verbose {
            eprintln!("{}", self.paint(Style::Dim, &text.to_string()));
        }
    }

    /// Per-stage timings, one line, at `--verbose`.
    pub fn timings(&self, what: &str, stages: &[(&str, Duration)]) {
        if self.verbosity < Verbosity::Verbose || stages.is_empty() {
            return;
        }
        let parts: Vec<String> = stages
            .iter()
            .map(|(name, took)| format!("{name} {:.1} ms", took.as_secs_f64() * 1e3))
            .collect();
        self.detail(format!("{what} timings: {}", parts.join(", ")));
    }

    /// An error and its cause chain on stderr.
    pub fn error(&self, err: &anyhow::Error) {
        eprintln!("{} {err}", self.paint(Style::Error, "error:"));
        for cause in err.chain().skip(1) {
            eprintln!("  caused by: {cause}");
        }
    }

    /// `text` in `style` when colour is on; as is otherwise.
    pub fn paint(&self, style: Style, text: &str) -> String {
        if !self.colour {
            return text.to_string();
        }
        let code = match style {
            Style::Error => "1;31",
            Style::Good => "32",
            Style::Dim => "2",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// What a painted piece of text is.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    Error,
    Good,
    Dim,
}

/// One line of a command's output (the `outln!` macro): a closed pipe is no error, and the
/// command goes on; any other failure to write stdout panics, as `println!` does.
pub fn out_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(e) = writeln!(std::io::stdout().lock(), "{args}") {
        assert!(
            e.kind() == std::io::ErrorKind::BrokenPipe,
            "failed printing to stdout: {e}"
        );
    }
}

/// Prints a command's output (a listing, a tensor) to stdout: a reader that stops early
/// (`... | head`) is neither an error nor a panic.
pub fn print_out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match writeln!(std::io::stdout().lock(), "{text}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
