//! `build` and `check`: load, render in memory, check links; then write (build) or not (check).

use crate::diagnostic::Diagnostics;
use crate::linkcheck::{self, OutputIndex};
use crate::output;
use crate::render::{self, RenderedSite};
use crate::site::Site;
use crate::templates::Templates;
use crate::traces::TraceSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a successful build did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub out_dir: PathBuf,
    /// Articles plus the home page.
    pub pages: usize,
    pub figures: usize,
    pub values: usize,
    pub files: usize,
    pub bytes: u64,
    pub elapsed: Duration,
    /// How long each stage took, in order (load, traces, render, links, write).
    pub timings: Vec<(&'static str, Duration)>,
}

/// What a successful check looked at.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub pages: usize,
    pub figures: usize,
    pub values: usize,
    pub links: usize,
    pub elapsed: Duration,
    /// How long each stage took, in order (load, traces, render, links).
    pub timings: Vec<(&'static str, Duration)>,
}

/// Renders the site at `root` into `out` (default `root/public`), replacing it only if
/// everything succeeded. Never loads a model.
pub fn build(root: &Path, out: Option<&Path>) -> Result<BuildReport, Diagnostics> {
    let started = Instant::now();
    let mut timings = Timings::default();
    let rendered = render_timed(root, &mut timings)?;
    let out_dir = out.map_or_else(|| root.join("public"), Path::to_path_buf);
    let bytes = output::write_atomic(&out_dir, &rendered.files)?;
    timings.lap("write");
    Ok(BuildReport {
        out_dir,
        pages: rendered.pages,
        figures: rendered.figures,
        values: rendered.values,
        files: rendered.files.len(),
        bytes,
        elapsed: started.elapsed(),
        timings: timings.stages,
    })
}

/// Everything `build` checks (content, traces, templates, every link and anchor); writes nothing.
pub fn check(root: &Path) -> Result<CheckReport, Diagnostics> {
    let started = Instant::now();
    let mut timings = Timings::default();
    let rendered = render_timed(root, &mut timings)?;
    Ok(CheckReport {
        pages: rendered.pages,
        figures: rendered.figures,
        values: rendered.values,
        links: rendered.links.len(),
        elapsed: started.elapsed(),
        timings: timings.stages,
    })
}

/// Time spent per stage, measured as laps.
struct Timings {
    last: Instant,
    stages: Vec<(&'static str, Duration)>,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            last: Instant::now(),
            stages: Vec::new(),
        }
    }
}

impl Timings {
    /// Ends the stage `name` now.
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.stages.push((name, now - self.last));
        self.last = now;
    }
}

/// The whole site rendered in memory, every link of every page checked.
fn render_timed(root: &Path, timings: &mut Timings) -> Result<RenderedSite, Diagnostics> {
    let site = Site::load_partial(root);
    let templates = Templates::load(root);
    timings.lap("load");
    let (site, mut out, templates) = match (site, templates) {
        (Ok((site, problems)), Ok(templates)) => (site, problems, templates),
        (site, templates) => {
            let mut out = Diagnostics::new();
            out.extend(site.map(|(_, problems)| problems).unwrap_or_else(|e| e));
            out.extend(templates.err().into_iter().flatten());
            return Err(out.finish());
        }
    };
    let traces = TraceSet::load(&site);
    timings.lap("traces");
    let (rendered, problems) = render::render(&site, &traces, &templates);
    timings.lap("render");
    out.extend(problems);
    if rendered.incomplete {
        return Err(out.finish());
    }
    let index = OutputIndex::new(&rendered);
    linkcheck::check_article_links(&index, &rendered.links, &mut out);
    linkcheck::check_template_links(&index, &rendered, &mut out);
    timings.lap("links");
    out.into_result(()).map_err(Diagnostics::finish)?;
    Ok(rendered)
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "checked {} pages, {} figures, {} inline values and {} links in {} ms: no problems",
            self.pages,
            self.figures,
            self.values,
            self.links,
            self.elapsed.as_millis()
        )
    }
}
