//! `tracebook build`: render the site into public/ (never runs a model).

use super::ui::Ui;
use indicatif::HumanBytes;
use std::path::{Path, PathBuf};
use tracebook_site::{BuildReport, ClaimPolicy, Overrides};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output folder (default: public/ in the site folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where the site is published (overrides base_url in tracebook.toml), e.g. the URL
    /// GitHub Pages' configure-pages step reports; enables sitemap.xml and an absolute 404 page.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// What a false claim does: stop the build (error) or be reported while the site is
    /// built (warn, while the prose is being revised). Overrides `[check] claims`.
    #[arg(long, value_name = "POLICY")]
    pub claims: Option<ClaimsArg>,
}

/// `--claims` of `build`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ClaimsArg {
    Error,
    Warn,
}

impl From<ClaimsArg> for ClaimPolicy {
    fn from(arg: ClaimsArg) -> ClaimPolicy {
        match arg {
            ClaimsArg::Error => ClaimPolicy::Error,
            ClaimsArg::Warn => ClaimPolicy::Warn,
        }
    }
}

pub fn run(root: &Path, ui: &Ui, args: Args) -> anyhow::Result<()> {
    let overrides = Overrides {
        base_url: args.base_url,
        claims: args.claims.map(ClaimPolicy::from),
    };
    match tracebook_site::build_at(root, args.out.as_deref(), &overrides) {
        Ok(report) => {
            ui.warnings(&report.warnings);
            ui.timings("build", &report.timings);
            ui.say(summary(&report));
            Ok(())
        }
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            anyhow::bail!(
                "could not build the site: {} error{}; the previous output, if any, is unchanged",
                diagnostics.len(),
                if diagnostics.len() == 1 { "" } else { "s" }
            )
        }
    }
}

/// "built 4 pages (3 figures, 12 inline values) into public: 9 files, 1.20 MiB in 80 ms".
/// Written here, not by the site crate, because sizes are worded by indicatif's `HumanBytes`
/// and indicatif is a dependency of the binary only.
fn summary(report: &BuildReport) -> String {
    format!(
        "built {} pages ({} figures, {} inline values, {} claims) into {}: {} files, {} in {} ms",
        report.pages,
        report.figures,
        report.values,
        report.claims,
        report.out_dir.display(),
        report.files,
        HumanBytes(report.bytes),
        report.elapsed.as_millis()
    )
}
