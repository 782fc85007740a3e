//! `check --external`: the flags, and the external links' errors merged with the offline check's.

use super::ui::Ui;
use std::path::Path;
use std::time::Duration;
use tracebook_site::{CheckReport, Diagnostics, ExternalOptions};

#[derive(clap::Args, Debug)]
pub struct ExternalArgs {
    /// Also ask the server of every http(s) link whether its page is there (off by default:
    /// `check` stays offline). Links that answered OK lately are kept in
    /// .tracebook/external-links.json and not asked again.
    #[arg(long)]
    pub external: bool,
    /// Requests at once.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "external",
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub external_concurrency: u16,
    /// The longest one request may take, in seconds (a link that never answers costs this).
    #[arg(long, value_name = "SECONDS", default_value = "10", requires = "external",
          value_parser = seconds)]
    pub external_timeout: Duration,
    /// How long a link that answered OK is not asked again, in days (0: ask about every link).
    #[arg(long, value_name = "DAYS", default_value = "7", requires = "external",
          value_parser = days)]
    pub external_max_age: Duration,
}

impl ExternalArgs {
    fn options(&self) -> ExternalOptions {
        ExternalOptions {
            concurrency: usize::from(self.external_concurrency),
            timeout: self.external_timeout,
            max_age: self.external_max_age,
            ..ExternalOptions::default()
        }
    }
}

/// The offline check's result, with the external links' problems added when `--external`.
pub fn with_external(
    offline: Result<CheckReport, Diagnostics>,
    root: &Path,
    ui: &Ui,
    args: &ExternalArgs,
) -> Result<CheckReport, Diagnostics> {
    if !args.external {
        return offline;
    }
    match (
        offline,
        tracebook_site::check_external(root, &args.options()),
    ) {
        (Ok(report), Ok(external)) => {
            if !external.warnings.is_empty() {
                eprintln!("{}", external.warnings);
            }
            ui.say(&external);
            Ok(report)
        }
        (Ok(_), Err(broken)) => Err(broken),
        (Err(offline), Ok(_)) => Err(offline),
        (Err(mut offline), Err(broken)) => {
            offline.extend(broken);
            Err(offline.finish())
        }
    }
}

fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs <= 3600.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err("expected a number of seconds above 0, at most 3600 (such as 10 or 2.5)".into()),
    }
}

fn days(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(days) if (0.0..=3650.0).contains(&days) => Ok(Duration::from_secs_f64(days * 86_400.0)),
        _ => Err("expected a number of days from 0 to 3650 (such as 7 or 0.5)".into()),
    }
}
