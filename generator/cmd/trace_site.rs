//! `tracebook trace` over a site: every prompt of tracebook.toml and content/, missing or stale only.

use super::trace::Args;
use std::path::Path;

pub fn run(_root: &Path, _args: &Args) -> anyhow::Result<()> {
    anyhow::bail!("tracing a site's prompts needs the site loader; use --prompt TEXT --out FILE")
}
