//! `tracebook check --external`: ask the server of every http(s) link of the site whether the
//! page is there, a few at a time, and remember the links that answered OK for a while.

mod cache;
mod collect;
mod pool;
mod probe;
mod retry;

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::load::site::Site;
use cache::LinkCache;
use collect::ExternalLink;
use retry::{Next, RetryPolicy, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use cache::CACHE_FILE;

/// How hard to try (`check --external-*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalOptions {
    /// Requests at once.
    pub concurrency: usize,
    /// The longest one request may take (a link that never answers costs this, once).
    pub timeout: Duration,
    /// Tries after the first, for connection errors, 429 and 5xx.
    pub retries: u32,
    /// How long a link that answered OK is trusted without asking again.
    pub max_age: Duration,
}

impl Default for ExternalOptions {
    fn default() -> Self {
        ExternalOptions {
            concurrency: 8,
            timeout: Duration::from_secs(10),
            retries: 2,
            max_age: Duration::from_secs(7 * 24 * 60 * 60),
        }
    }
}

/// What a check of the external links found, when none is broken.
#[derive(Debug, Clone)]
pub struct ExternalReport {
    /// Places that link out.
    pub links: usize,
    /// Distinct addresses among them.
    pub urls: usize,
    /// Addresses that answered OK within the max age, not asked again.
    pub cached: usize,
    pub elapsed: Duration,
    /// Links the servers would not tell about (rate limited), and a cache that was not saved.
    pub warnings: Diagnostics,
}

/// Checks every http(s) link of the site at `root`; each broken one is an error at every place
/// it is written. The addresses that answered OK go into the cache file (`CACHE_FILE`).
pub fn check_external(
    root: &Path,
    options: &ExternalOptions,
) -> Result<ExternalReport, Diagnostics> {
    let started = Instant::now();
    // The site's own problems are the offline check's to report.
    let (site, _) = Site::load_partial(root)?;
    let links = collect::in_site(&site);
    let urls: BTreeSet<&str> = links.iter().map(ExternalLink::url).collect();
    let cache_path = root.join(CACHE_FILE);
    let mut cache = LinkCache::load(&cache_path);
    let before = cache.clone();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let due: Vec<&str> = urls
        .iter()
        .copied()
        .filter(|url| !cache.is_fresh(url, now, options.max_age))
        .collect();
    let mut failed = BTreeMap::new();
    for (url, verdict) in due.iter().zip(ask_all(&due, options)) {
        if verdict == Verdict::Ok {
            cache.record_ok(url, now);
        } else {
            cache.forget(url);
            failed.insert(*url, verdict);
        }
    }
    cache.prune(now, options.max_age);
    let mut errors = Diagnostics::new();
    let mut warnings = Diagnostics::new();
    if cache != before {
        if let Err(err) = cache.save(&cache_path) {
            warnings.push(
                Diagnostic::file(CACHE_FILE, format!("could not save the link cache: {err}"))
                    .with_hint("the next check asks about every link again")
                    .as_warning(),
            );
        }
    }
    for link in &links {
        if let Some(verdict) = failed.get(link.url()) {
            let diagnostic = report(link, verdict, options);
            if diagnostic.warning {
                warnings.push(diagnostic);
            } else {
                errors.push(diagnostic);
            }
        }
    }
    errors.into_result(()).map_err(Diagnostics::finish)?;
    Ok(ExternalReport {
        links: links.len(),
        urls: urls.len(),
        cached: urls.len() - due.len(),
        elapsed: started.elapsed(),
        warnings: warnings.finish(),
    })
}

/// The verdict on each of `urls`, in order, asking `options.concurrency` servers at once.
fn ask_all(urls: &[&str], options: &ExternalOptions) -> Vec<Verdict> {
    let agent = probe::agent(options.timeout);
    let policy = RetryPolicy {
        retries: options.retries,
        ..RetryPolicy::default()
    };
    pool::map(urls, options.concurrency, |url| {
        let mut attempt = 0;
        loop {
            match policy.next(probe::ask(&agent, url), attempt) {
                Next::Done(verdict) => return verdict,
                Next::Wait(wait) => std::thread::sleep(wait),
            }
            attempt += 1;
        }
    })
}

/// A failed link as reported at one place it is written.
fn report(link: &ExternalLink, verdict: &Verdict, options: &ExternalOptions) -> Diagnostic {
    let broken = |why: String| {
        link.location
            .error(format!("link {} is broken: {why}", link.written))
    };
    match verdict {
        Verdict::Ok => unreachable!("only failed links are reported"),
        Verdict::Missing { code } => broken(retry::status_text(*code)).with_hint(
            "the server has no such page (redirects were followed): fix the address, or link \
             to an archived copy",
        ),
        Verdict::ServerError { code, tries } => {
            broken(retry::status_text(*code)).with_hint(format!(
                "the server failed on each of {tries} tries; if it is down for now, check \
                 again later"
            ))
        }
        Verdict::Timeout => broken(format!("no answer within {}", seconds(options.timeout)))
            .with_hint(
                "the server did not answer in time; if it is only slow, raise --external-timeout",
            ),
        Verdict::Unreachable { reason, tries } => broken(reason.clone()).with_hint(format!(
            "tried {tries} time{}; check the address, or leave out --external when offline",
            if *tries == 1 { "" } else { "s" }
        )),
        Verdict::Limited { tries } => link
            .location
            .error(format!(
                "link {} was not checked: {} on each of {tries} tries",
                link.written,
                retry::status_text(429)
            ))
            .with_hint("the server limits how often it is asked; check again later")
            .as_warning(),
    }
}

/// `10 s`, `0.5 s`.
fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

impl fmt::Display for ExternalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "checked {} to {}, {} OK in the cache, in {} ms: {}",
            counted(self.links, "external link", "external links"),
            counted(self.urls, "address", "addresses"),
            self.cached,
            self.elapsed.as_millis(),
            match self.warnings.len() {
                0 => "none broken".to_string(),
                n => format!("none broken, {n} warning(s)"),
            }
        )
    }
}

/// `1 address`, `2 addresses`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
