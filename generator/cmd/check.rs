//! `tracebook check`: validate content, traces, links and claims without writing anything.

use super::ui::Ui;
use std::path::Path;
use tracebook_site::{ClaimPolicy, ClaimsListFormat, Overrides};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What false claims do: error (stop), warn (report, pass), or list (print every claim
    /// with its values and verdict, grouped by page; fails if any is false). Overrides
    /// `[check] claims`.
    #[arg(long, value_name = "MODE")]
    pub claims: Option<ClaimsMode>,
    /// How `--claims list` prints: text (for a terminal), json (for tools) or markdown (a
    /// table per page, for a pull request's review comment).
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = "text",
        requires = "claims"
    )]
    pub format: ListFormat,
    #[command(flatten)]
    pub external: super::external::ExternalArgs,
}

/// `--format` of `check --claims list`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFormat {
    Text,
    Json,
    Markdown,
}

/// `--claims` of `check`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimsMode {
    Error,
    Warn,
    List,
}

pub fn run(root: &Path, ui: &Ui, args: Args) -> anyhow::Result<()> {
    let list = args.claims == Some(ClaimsMode::List);
    let overrides = Overrides {
        base_url: None,
        claims: args.claims.map(|mode| match mode {
            ClaimsMode::Error => ClaimPolicy::Error,
            // The list shows false claims itself, after the rest of the check passed.
            ClaimsMode::Warn | ClaimsMode::List => ClaimPolicy::Warn,
        }),
    };
    let checked = tracebook_site::check_with(root, &overrides);
    match super::external::with_external(checked, root, ui, &args.external) {
        Ok(report) if list => {
            let format = match args.format {
                ListFormat::Text => ClaimsListFormat::Text,
                ListFormat::Json => ClaimsListFormat::Json,
                ListFormat::Markdown => ClaimsListFormat::Markdown,
            };
            super::ui::print_out(&tracebook_site::claims_list_as(&report.claims, format))?;
            let false_claims = report.claims.iter().filter(|c| c.fails()).count();
            if false_claims > 0 {
                anyhow::bail!(
                    "{false_claims} claim{} false of the traces",
                    if false_claims == 1 { " is" } else { "s are" }
                );
            }
            Ok(())
        }
        Ok(report) => {
            ui.warnings(&report.warnings);
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
