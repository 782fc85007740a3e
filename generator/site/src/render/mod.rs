//! Renders a loaded site into memory: every page in parallel, the home page, 404.html, the
//! sitemap, the theme and static files; then reports missing or stale traces once each.

mod context;
mod feed;
mod files;
mod pages;
mod preview_image;
mod print;

pub use context::GENERATOR;

use crate::claim_report::ClaimRecord;
use crate::content::Page;
use crate::diagnostic::Diagnostics;
use crate::lazy_tokenizer::LazyTokenizer;
use crate::markdown::{LinkRef, MathRenderer, PageIndex, PageTarget};
use crate::refs::RefIndex;
use crate::search;
use crate::site::Site;
use crate::templates::Templates;
use crate::traces::TraceSet;
use context::SiteContext;
use pages::PageOutput;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// What rendering needs, shared read-only by every page.
pub struct RenderEnv<'a> {
    pub site: &'a Site,
    pub traces: &'a TraceSet,
    pub templates: &'a Templates,
    pub tokenizer: LazyTokenizer,
    pub math: MathRenderer,
    pub page_index: PageIndex,
    /// Every figure and heading `{{ ref ID }}` may name.
    pub refs: RefIndex,
    /// Draws link-preview images (with `base_url`).
    pub previews: preview_image::Painter,
    pub site_context: SiteContext,
    /// Published articles in series order.
    pub series: Vec<&'a Page>,
    /// A template that renders articles names `pages` (the built-in ones do not).
    pub articles_use_pages: bool,
}

/// The whole output, in memory: file path (relative, `/`-separated) to bytes.
#[derive(Debug, Default)]
pub struct RenderedSite {
    pub files: BTreeMap<String, Vec<u8>>,
    pub links: Vec<LinkRef>,
    pub pages: usize,
    pub figures: usize,
    pub values: usize,
    /// Some page's template failed, so its HTML (and its anchors) are missing.
    pub incomplete: bool,
    /// Every claim of every page, in series order.
    pub claims: Vec<ClaimRecord>,
}

/// Renders `site`, with every problem of every page (the output is unusable if there are any).
pub fn render(
    site: &Site,
    traces: &TraceSet,
    templates: &Templates,
) -> (RenderedSite, Diagnostics) {
    let (refs, ref_problems) = RefIndex::collect(site.pages.iter().filter(|p| !p.meta.draft));
    let env = RenderEnv {
        refs,
        previews: preview_image::Painter::default(),
        site,
        traces,
        templates,
        tokenizer: LazyTokenizer::new(site.root.join(&site.config.model.id)),
        math: MathRenderer::new(),
        page_index: page_index(site),
        site_context: SiteContext::new(&site.config),
        series: site.articles().collect(),
        articles_use_pages: templates.mention("pages", &pages::WHOLE_SERIES),
    };
    let intro = site.pages.iter().find(|p| p.is_index() && !p.meta.draft);
    // The browser model is converted beside the pages (it needs none of them).
    let (mut outputs, live): (Vec<PageOutput>, _) = rayon::join(
        || {
            (0..env.series.len())
                .into_par_iter()
                .map(|n| pages::article(&env, n))
                .collect()
        },
        || {
            site.config
                .live
                .enabled
                .then(|| crate::live::files(site, traces))
        },
    );
    // Only the articles are in `outputs` yet, in series order.
    outputs.push(pages::print(&env, &outputs[..env.series.len()]));
    outputs.push(pages::index(&env, intro));
    outputs.push(pages::not_found(&env));
    let mut out = Diagnostics::new();
    for problem in ref_problems {
        out.push(problem);
    }
    report_unusable_traces(site, traces, &outputs, &mut out);
    let mut rendered = RenderedSite::default();
    let mut generated = BTreeMap::new();
    let mut search_entries = Vec::new();
    for mut page in outputs {
        search_entries.extend(page.search.take());
        rendered.incomplete |= page.html.is_empty();
        out.extend(page.diagnostics);
        rendered.figures += page.figures;
        rendered.values += page.values;
        rendered.links.extend(page.links);
        rendered.claims.extend(page.claims);
        generated.insert(page.path.clone(), source_of(site, &page.path));
        rendered.files.insert(page.path, page.html.into_bytes());
        for (path, svg) in page.figure_files {
            rendered.files.insert(path, svg.into_bytes());
        }
        for (path, png) in page.images {
            rendered.files.insert(path, png);
        }
    }
    rendered.pages = env.series.len() + 1;
    rendered.files.insert(
        search::INDEX_FILE.to_string(),
        search::index_script(&search_entries).into_bytes(),
    );
    rendered.files.insert(
        search::SCRIPT.0.to_string(),
        search::SCRIPT.1.as_bytes().to_vec(),
    );
    add_other_files(&env, &generated, &mut rendered, &mut out);
    match live {
        Some(Ok(files)) => rendered.files.extend(files),
        Some(Err(diagnostic)) => out.push(diagnostic),
        None => {}
    }
    if site.config.offline {
        let worker = files::offline_worker(&rendered.files);
        rendered
            .files
            .insert(files::OFFLINE_WORKER.into(), worker.into_bytes());
    }
    (rendered, out)
}

/// A missing or stale trace is reported once, at the prompt's declaration, if any page uses it.
fn report_unusable_traces(
    site: &Site,
    traces: &TraceSet,
    outputs: &[PageOutput],
    out: &mut Diagnostics,
) {
    let used: BTreeSet<&String> = outputs.iter().flat_map(|p| &p.used).collect();
    for name in used {
        if let Some(problem) = site.prompt(name).and_then(|p| traces.problem(p)) {
            out.push(problem);
        }
    }
}

fn add_other_files(
    env: &RenderEnv<'_>,
    generated: &BTreeMap<String, String>,
    rendered: &mut RenderedSite,
    out: &mut Diagnostics,
) {
    let root = &env.site.root;
    rendered.files.insert(
        files::THEME.0.to_string(),
        files::THEME.1.as_bytes().to_vec(),
    );
    rendered.files.insert(
        files::SCRIPT.0.to_string(),
        files::SCRIPT.1.as_bytes().to_vec(),
    );
    files::copy_tree(
        root,
        crate::content::CONTENT_DIR,
        true,
        &mut rendered.files,
        generated,
        out,
    );
    files::copy_tree(
        root,
        files::STATIC_DIR,
        false,
        &mut rendered.files,
        generated,
        out,
    );
    if let Some(base_url) = &env.site.config.base_url {
        let pages: Vec<&str> = env.series.iter().map(|p| p.output.as_str()).collect();
        rendered.files.insert(
            "sitemap.xml".into(),
            files::sitemap(base_url, &pages).into_bytes(),
        );
        let config = &env.site.config;
        rendered.files.insert(
            "atom.xml".into(),
            feed::atom(base_url, &config.title, &config.description, &env.series).into_bytes(),
        );
    }
}

/// Which source produced a generated file, for messages about files that would replace it.
fn source_of(site: &Site, output: &str) -> String {
    site.pages.iter().find(|p| p.output == output).map_or_else(
        || format!("the {output} template"),
        |p| p.source.name.clone(),
    )
}

fn page_index(site: &Site) -> PageIndex {
    let pages = site.pages.iter().map(|p| {
        let target = PageTarget {
            output: p.output.clone(),
            draft: p.meta.draft,
            readable: true,
        };
        (p.source.name.clone(), target)
    });
    let unreadable = site.unreadable.iter().map(|name| {
        let output = name
            .trim_start_matches("content/")
            .trim_end_matches(".md")
            .to_string()
            + ".html";
        (
            name.clone(),
            PageTarget {
                output,
                draft: false,
                readable: false,
            },
        )
    });
    pages.chain(unreadable).collect()
}
