//! `build` and `check`: the stages in order (load, then render with resolve, then write), timed;
//! `build` writes the output folder, `check` stops before it.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::load::config::ClaimPolicy;
use crate::load::site::Site;
use crate::load::templates::Templates;
use crate::load::traces::TraceSet;
use crate::render::{self, RenderedSite};
use crate::resolve::claim_report::{self, ClaimRecord};
use crate::resolve::printed;
use crate::write::assemble;
use crate::write::linkcheck::{self, OutputIndex};
use crate::write::output;
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
    /// Claims checked (all true, or reported as warnings under `--claims warn`).
    pub claims: usize,
    pub files: usize,
    pub bytes: u64,
    pub elapsed: Duration,
    /// How long each stage took, in order (load, traces, render, links, write).
    pub timings: Vec<(&'static str, Duration)>,
    /// Problems that did not stop the build.
    pub warnings: Diagnostics,
}

/// What a successful check looked at.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub pages: usize,
    pub figures: usize,
    pub values: usize,
    pub links: usize,
    /// Every claim with its verdict, in series order.
    pub claims: Vec<ClaimRecord>,
    pub elapsed: Duration,
    /// How long each stage took, in order (load, traces, render, links).
    pub timings: Vec<(&'static str, Duration)>,
    /// Problems that do not stop a build.
    pub warnings: Diagnostics,
}

/// What the command line says over tracebook.toml.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Where the site is published (`build --base-url`, as CI passes the address GitHub
    /// Pages reports).
    pub base_url: Option<String>,
    /// What a false claim does (`--claims warn|error`), over `[check] claims`.
    pub claims: Option<ClaimPolicy>,
}

/// Renders the site at `root` into `out` (default `root/public`), replacing it only if
/// everything succeeded. Never loads a model.
pub fn build(root: &Path, out: Option<&Path>) -> Result<BuildReport, Diagnostics> {
    build_at(root, out, &Overrides::default())
}

/// As `build`, with the command line's `overrides`.
pub fn build_at(
    root: &Path,
    out: Option<&Path>,
    overrides: &Overrides,
) -> Result<BuildReport, Diagnostics> {
    let started = Instant::now();
    let mut timings = Timings::default();
    let (rendered, mut warnings) = render_timed(root, overrides, &mut timings)?;
    let out_dir = out.map_or_else(|| root.join("public"), Path::to_path_buf);
    let bytes = output::write_atomic(&out_dir, &rendered.files)?;
    // After a re-trace: the values whose printed text changed since the last build. A record
    // that cannot be written costs only the next build's comparison.
    if let Some(before) = printed::load(root) {
        warnings.extend(printed::changed(&before, &rendered.printed));
    }
    let _ = printed::save(root, &rendered.printed);
    timings.lap("write");
    Ok(BuildReport {
        out_dir,
        pages: rendered.pages,
        figures: rendered.figures,
        values: rendered.values,
        claims: rendered.claims.len(),
        files: rendered.files.len(),
        bytes,
        elapsed: started.elapsed(),
        timings: timings.stages,
        warnings,
    })
}

/// Articles whose description was left empty (as `tracebook new` writes it): it is the page's
/// `<meta name="description">` (what search engines and link previews show) and its line in the
/// home page's list. An article that has no description key chose not to have one.
fn description_warnings(site: &Site, out: &mut Diagnostics) {
    for page in site
        .pages
        .iter()
        .filter(|p| !p.is_index() && !p.meta.draft && p.meta.description.trim().is_empty())
    {
        let text = &page.source.text;
        let front = &text[..page.body.start.min(text.len())];
        let mut offset = 0;
        let at = front.split_inclusive('\n').find_map(|line| {
            let start = offset;
            offset += line.len();
            let key = line.trim_start().split(['=', ' ']).next() == Some("description");
            key.then(|| start..start + line.trim_end().len())
        });
        let Some(span) = at else {
            continue;
        };
        out.push(
            page.source
                .error(
                    span,
                    if page.is_article() {
                        "this article's description is empty"
                    } else {
                        "this part's description is empty"
                    },
                )
                .with_hint(
                    "write one sentence in `description = \"...\"`: it is the page's summary \
                     for search engines and link previews, and its line on the home page",
                )
                .as_warning(),
        );
    }
}

/// Pages of a replaced theme that no longer say which model their figures come from.
fn theme_warnings(rendered: &RenderedSite, out: &mut Diagnostics) {
    let silent: Vec<&str> = rendered
        .files
        .iter()
        .filter(|(path, _)| path.ends_with(".html") && path.as_str() != "404.html")
        .filter(|(_, bytes)| !String::from_utf8_lossy(bytes).contains("tb-model-credit"))
        .map(|(path, _)| path.as_str())
        .collect();
    if let Some(first) = silent.first() {
        out.push(
            Diagnostic::file(
                "templates/base.html",
                format!(
                    "{} page(s), such as {first}, do not name the model their figures and numbers \
                     come from",
                    silent.len()
                ),
            )
            .with_hint(
                "keep {% include \"partials/model-credit.html\" %} in your base.html (readers \
                 must be able to tell GPT-2 from another model); to change its words, override \
                 templates/partials/model-credit.html instead",
            )
            .as_warning(),
        );
    }
}

/// Everything `build` checks (content, traces, templates, every link and anchor); writes nothing.
pub fn check(root: &Path) -> Result<CheckReport, Diagnostics> {
    check_with(root, &Overrides::default())
}

/// As `check`, with the command line's `overrides` (`--claims warn` reports false claims
/// as warnings, so the report lists every claim).
pub fn check_with(root: &Path, overrides: &Overrides) -> Result<CheckReport, Diagnostics> {
    let started = Instant::now();
    let mut timings = Timings::default();
    let (rendered, mut warnings) = render_timed(root, overrides, &mut timings)?;
    // What a push would be refused for: `check` is what an author runs before committing.
    warnings.extend(crate::load::large_files::warnings(
        root,
        crate::load::large_files::GITHUB_LIMIT,
    ));
    Ok(CheckReport {
        pages: rendered.pages,
        figures: rendered.figures,
        values: rendered.values,
        links: rendered.links.len(),
        claims: rendered.claims,
        elapsed: started.elapsed(),
        timings: timings.stages,
        warnings,
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
fn render_timed(
    root: &Path,
    overrides: &Overrides,
    timings: &mut Timings,
) -> Result<(RenderedSite, Diagnostics), Diagnostics> {
    let mut site = Site::load_partial(root);
    if let (Some(url), Ok((site, _))) = (&overrides.base_url, site.as_mut()) {
        site.config.base_url = Some(crate::load::config::base_url_from_flag(url)?);
    }
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
    // The browser model is converted beside the pages (it needs none of them).
    let ((mut rendered, problems), live) = rayon::join(
        || render::render(&site, &traces, &templates),
        || assemble::live_files(&site, &traces),
    );
    out.extend(problems);
    let mut warnings = Diagnostics::new();
    let policy = overrides.claims.unwrap_or(site.config.check.claims);
    claim_report::report_unfit(&rendered.unfit, policy, &mut out, &mut warnings);
    assemble::assemble(&site, &mut rendered, live, &mut out);
    timings.lap("render");
    if rendered.incomplete {
        return Err(out.finish());
    }
    let index = OutputIndex::new(&rendered);
    linkcheck::check_article_links(&index, &rendered.links, &mut out);
    linkcheck::check_template_links(&index, &rendered, &mut out);
    timings.lap("links");
    claim_report::report(&rendered.claims, policy, &mut out, &mut warnings);
    out.into_result(()).map_err(Diagnostics::finish)?;
    description_warnings(&site, &mut warnings);
    theme_warnings(&rendered, &mut warnings);
    Ok((rendered, warnings.finish()))
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "checked {} pages, {} figures, {} inline values, {} claims and {} links in {} ms: {}",
            self.pages,
            self.figures,
            self.values,
            self.claims.len(),
            self.links,
            self.elapsed.as_millis(),
            match self.warnings.len() {
                0 => "no problems".to_string(),
                n => format!("no errors, {n} warning(s)"),
            }
        )
    }
}
