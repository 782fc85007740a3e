//! The files of the whole site, added to the rendered pages: the search index and its
//! script, the theme, files beside articles and static/, the sitemap and feed (with a
//! `base_url`), live mode's files, and last the offline worker (it lists every file).

use super::{feed, files, live};
use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::load::content::CONTENT_DIR;
use crate::load::site::Site;
use crate::render::{search, RenderedSite};

/// Live mode's files, or why they could not be made (`None`: live mode is off).
pub type LiveFiles = Option<Result<Vec<(String, Vec<u8>)>, Diagnostic>>;

/// Adds every file that is not a page to `rendered`; problems (a static file that would
/// replace a page, a model that would not convert) go to `out`.
pub fn assemble(site: &Site, rendered: &mut RenderedSite, live: LiveFiles, out: &mut Diagnostics) {
    rendered.files.insert(
        search::INDEX_FILE.to_string(),
        search::index_script(&rendered.search).into_bytes(),
    );
    rendered.files.insert(
        search::SCRIPT.0.to_string(),
        search::SCRIPT.1.as_bytes().to_vec(),
    );
    let theme = files::THEME;
    (rendered.files).insert(theme.0.to_string(), theme.1.as_bytes().to_vec());
    (rendered.files).insert(files::SCRIPT.0.to_string(), files::script().into_bytes());
    for (dir, beside_articles) in [(CONTENT_DIR, true), (files::STATIC_DIR, false)] {
        let generated = &rendered.sources;
        files::copy_tree(
            &site.root,
            dir,
            beside_articles,
            &mut rendered.files,
            generated,
            out,
        );
    }
    if let Some(base_url) = &site.config.base_url {
        let series: Vec<_> = site.articles().collect();
        let parts: Vec<_> = site.parts().collect();
        // Articles and parts' pages, in series order.
        let pages: Vec<&str> = site
            .pages
            .iter()
            .filter(|p| !p.meta.draft && !p.is_index())
            .map(|p| p.output.as_str())
            .collect();
        rendered.files.insert(
            "sitemap.xml".into(),
            files::sitemap(base_url, &pages).into_bytes(),
        );
        let config = &site.config;
        let feed = feed::atom(
            base_url,
            &config.title,
            &config.description,
            &series,
            &parts,
        );
        rendered.files.insert("atom.xml".into(), feed.into_bytes());
    }
    match live {
        Some(Ok(made)) => rendered.files.extend(made),
        Some(Err(diagnostic)) => out.push(diagnostic),
        None => {}
    }
    if site.config.offline {
        let worker = files::offline_worker(&rendered.files);
        rendered
            .files
            .insert(files::OFFLINE_WORKER.into(), worker.into_bytes());
    }
}

/// Live mode's files for `site` when `[live]` is on: run beside rendering (the browser
/// model needs no page).
pub fn live_files(site: &Site, traces: &crate::load::traces::TraceSet) -> LiveFiles {
    site.config.live.enabled.then(|| live::files(site, traces))
}
