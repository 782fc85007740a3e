//! Stage 3, **render**: markdown to HTML, figures to SVG, pages through tera.
//!
//! Takes the loaded site, its traces and templates; gives every page in memory
//! ([`RenderedSite`]): each article in parallel (its markdown through [`markdown`], its
//! values, claims and citations through **resolve**, its figures drawn by
//! `tracebook_figures`, its live data in [`live_page`], its link-preview image), the print
//! page, the home page and 404.html, with each page's searchable text ([`search`]) and
//! links; then reports missing or stale traces once each. Files of the whole site (the
//! search index, theme, sitemap, live model) are added by **write**.

mod context;
pub mod live_page;
pub mod markdown;
mod pages;
mod preview_image;
mod print;
pub mod search;

pub use context::GENERATOR;

use crate::base::diagnostic::Diagnostics;
use crate::load::content::Page;
use crate::load::lazy_tokenizer::LazyTokenizer;
use crate::load::site::Site;
use crate::load::templates::Templates;
use crate::load::traces::TraceSet;
use crate::resolve::claim_report::ClaimRecord;
use crate::resolve::refs::RefIndex;
use context::SiteContext;
use markdown::{LinkRef, MathRenderer, PageIndex, PageTarget};
use pages::PageOutput;
use rayon::prelude::*;
use search::SearchEntry;
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
    /// Published parts' introductions (`_index.md`), by folder.
    pub parts: BTreeMap<String, &'a Page>,
    /// A template that renders articles names `pages` (the built-in ones do not).
    pub articles_use_pages: bool,
    /// With `[live] enabled`: the models the reader's page may run, the site's first.
    pub live_models: Vec<crate::load::live_models::LiveModel>,
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
    /// Every page's inline values the trace cannot answer (errors or warnings by the claims
    /// policy, as false claims are).
    pub unfit: Vec<crate::base::diagnostic::Diagnostic>,
    /// What every page's inline values printed, page by page.
    pub printed: Vec<crate::resolve::printed::Printed>,
    /// Each article's searchable text, in series order.
    pub search: Vec<SearchEntry>,
    /// Each generated page's source, for messages about files that would replace it.
    pub sources: BTreeMap<String, String>,
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
        site_context: SiteContext::new(&site.config, traces.site_model_shown(site)),
        series: site.articles().collect(),
        parts: site
            .parts()
            .filter_map(|p| Some((p.part.clone()?, p)))
            .collect(),
        articles_use_pages: templates.mention("pages", &pages::WHOLE_SERIES),
        live_models: site.live_models(),
    };
    let intro = site.pages.iter().find(|p| p.is_index() && !p.meta.draft);
    let mut outputs: Vec<PageOutput> = (0..env.series.len())
        .into_par_iter()
        .map(|n| pages::article(&env, n))
        .collect();
    let parts: Vec<PageOutput> = site
        .parts()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|page| pages::part(&env, page))
        .collect();
    // Only the articles are in `outputs` yet, in series order.
    outputs.push(pages::print(&env, &outputs, &parts));
    outputs.extend(parts);
    outputs.push(pages::index(&env, intro));
    outputs.push(pages::not_found(&env));
    let mut out = Diagnostics::new();
    for problem in ref_problems {
        out.push(problem);
    }
    report_unusable_traces(site, traces, &outputs, &mut out);
    let mut rendered = RenderedSite::default();
    for mut page in outputs {
        rendered.search.extend(page.search.take());
        rendered.incomplete |= page.html.is_empty();
        out.extend(page.diagnostics);
        rendered.figures += page.figures;
        rendered.values += page.values;
        rendered.links.extend(page.links);
        rendered.claims.extend(page.claims);
        rendered.unfit.extend(page.unfit);
        rendered.printed.extend(page.printed);
        rendered
            .sources
            .insert(page.path.clone(), source_of(site, &page.path));
        rendered.files.insert(page.path, page.html.into_bytes());
        for (path, svg) in page.figure_files {
            rendered.files.insert(path, svg.into_bytes());
        }
        for (path, png) in page.images {
            rendered.files.insert(path, png);
        }
    }
    rendered.pages = env.series.len() + env.parts.len() + 1;
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
