//! Renders articles and the home page: markdown, then the page template around it.

use super::context::{
    context, ArticleContext, LiveContext, PageLink, PartContext, PartLink, SeriesContext,
    ShareContext,
};
use super::print;
use super::RenderEnv;
use crate::base::diagnostic::Diagnostic;
use crate::base::paths;
use crate::load::config::LiveOffer;
use crate::load::content::Page;
use crate::render::markdown::{self, BodyRef, LinkRef, MarkdownInput, RenderedMarkdown};
use crate::render::search::SearchEntry;
use crate::resolve::claim_report::ClaimRecord;
use crate::resolve::scope::PromptScopeView;
use std::collections::{BTreeMap, BTreeSet};

/// One rendered page and what the rest of the build needs to know about it.
#[derive(Debug, Default)]
pub struct PageOutput {
    pub path: String,
    pub html: String,
    pub links: Vec<LinkRef>,
    /// Prompts the page named (their traces must exist and be fresh).
    pub used: BTreeSet<String>,
    pub figures: usize,
    pub values: usize,
    pub diagnostics: Vec<Diagnostic>,
    /// An article's entry in the search index.
    pub search: Option<SearchEntry>,
    /// The page's figures as standalone SVG files: (output path, content).
    pub figure_files: Vec<(String, String)>,
    /// The page's claims with their verdicts.
    pub claims: Vec<ClaimRecord>,
    /// Its inline values the trace cannot answer (errors or warnings by the claims policy).
    pub unfit: Vec<Diagnostic>,
    /// What its inline values printed.
    pub printed: Vec<crate::resolve::printed::Printed>,
    /// Binary files the page brings (its link-preview PNG): (output path, bytes).
    pub images: Vec<(String, Vec<u8>)>,
    /// An article's body HTML, for print.html.
    pub body: Option<String>,
    /// The models its credit names.
    pub models: Vec<String>,
}

/// The file beside an article with the figures its reader may redraw (`attention.live.json`).
const LIVE_DATA_SUFFIX: &str = ".live.json";

/// The `n`-th article of the series.
pub fn article(env: &RenderEnv<'_>, n: usize) -> PageOutput {
    let page = env.series[n];
    let (body, mut out) = searchable_body(env, page);
    let link = |i: usize| env.series.get(i).map(|p| link_from(&page.output, p));
    let article = ArticleContext {
        title: page.meta.title.clone(),
        description: page.meta.description.clone(),
        content: body.html,
        toc: body.toc,
        number: n + 1,
        part: env.site_context.words.fill(
            "part",
            &[
                ("n", &(n + 1).to_string()),
                ("total", &env.series.len().to_string()),
            ],
        ),
        previous: n.checked_sub(1).and_then(link),
        next: link(n + 1),
        path: page.output.clone(),
        edit_url: env
            .site
            .config
            .edit_url
            .as_ref()
            .map(|pattern| pattern.replace("{path}", &page.source.name)),
        live: body.live.as_ref().map(|_| LiveContext {
            data: paths::encode(&format!(
                "{}{LIVE_DATA_SUFFIX}",
                page.output
                    .rsplit('/')
                    .next()
                    .and_then(|f| f.strip_suffix(".html"))
                    .unwrap_or(&page.output)
            )),
            per_figure: env.site.config.live.offer == LiveOffer::Figure,
        }),
        in_part: page
            .part
            .as_ref()
            .and_then(|folder| env.parts.get(folder))
            .map(|part| part_link(&page.output, part)),
    };
    let share = share(env, page, &mut out);
    if let Some(json) = &body.live {
        let stem = page.output.strip_suffix(".html").unwrap_or(&page.output);
        out.figure_files
            .push((format!("{stem}{LIVE_DATA_SUFFIX}"), json.clone()));
    }
    out.models = models(env, &out.used, &body.models);
    let mut cx = context(
        &env.site_context,
        &paths::root_prefix(&page.output),
        &out.models,
        &series(env, &page.output, Some(n), env.articles_use_pages),
    );
    cx.insert("page", &article);
    cx.insert("share", &share);
    finish(env, "article.html", &cx, &mut out);
    out
}

/// What link previews show of an article, with `base_url` set: its address, title,
/// description, and its first figure (of `out`) drawn to PNG (written beside the page).
fn share(env: &RenderEnv<'_>, page: &Page, out: &mut PageOutput) -> Option<ShareContext> {
    let base = env.site_context.base_url.as_deref()?;
    let png = out
        .figure_files
        .first()
        .and_then(|(_, svg)| env.previews.png(svg));
    let image = png.map(|png| {
        let stem = page.output.strip_suffix(".html").unwrap_or(&page.output);
        let path = format!("{stem}.preview.png");
        out.images.push((path.clone(), png));
        format!("{base}{}", paths::encode(&path))
    });
    Some(ShareContext {
        url: format!("{base}{}", paths::encode(&page.output)),
        title: page.meta.title.clone(),
        description: page.meta.description.clone(),
        kind: "article",
        image,
    })
}

/// A part's page (`01-basics/index.html`): its introduction from `_index.md`, then its articles.
pub fn part(env: &RenderEnv<'_>, page: &Page) -> PageOutput {
    let (body, mut out) = searchable_body(env, page);
    let members: Vec<usize> = (0..env.series.len())
        .filter(|&i| env.series[i].part == page.part)
        .collect();
    let part = PartContext {
        title: page.meta.title.clone(),
        description: page.meta.description.clone(),
        content: body.html,
        articles: members
            .iter()
            .map(|&i| link_from(&page.output, env.series[i]))
            .collect(),
        first: members.first().map_or(1, |i| i + 1),
        path: page.output.clone(),
    };
    let share = share(env, page, &mut out);
    out.models = models(env, &out.used, &body.models);
    let mut cx = context(
        &env.site_context,
        &paths::root_prefix(&page.output),
        &out.models,
        &series(env, &page.output, None, env.articles_use_pages),
    );
    cx.insert("page", &part);
    cx.insert("share", &share);
    finish(env, "part.html", &cx, &mut out);
    out
}

/// `index.html`: the series, under the introduction from content/index.md if there is one.
pub fn index(env: &RenderEnv<'_>, intro: Option<&Page>) -> PageOutput {
    let (intro_html, mut out, models_used) = match intro {
        Some(page) => {
            let (body, out) = body(env, page);
            (Some(body.html), out, body.models)
        }
        None => (
            None,
            PageOutput {
                path: "index.html".into(),
                ..PageOutput::default()
            },
            BTreeSet::new(),
        ),
    };
    let mut cx = context(
        &env.site_context,
        "",
        &models(env, &out.used, &models_used),
        &series(env, "index.html", None, true),
    );
    cx.insert("intro", &intro_html);
    let share = env.site_context.base_url.as_ref().map(|base| ShareContext {
        url: base.clone(),
        title: env.site_context.title.clone(),
        description: env.site_context.description.clone(),
        kind: "website",
        image: None,
    });
    cx.insert("share", &share);
    finish(env, "index.html", &cx, &mut out);
    out
}

/// `print.html`: every article of the series on one page, in order, each part's introduction
/// before its first article (`articles_out` by article, `parts_out` by output path).
pub fn print(
    env: &RenderEnv<'_>,
    articles_out: &[PageOutput],
    parts_out: &[PageOutput],
) -> PageOutput {
    let anchors: BTreeMap<String, String> = env
        .series
        .iter()
        .chain(env.parts.values())
        .map(|p| (p.output.clone(), print::anchor(&p.output)))
        .collect();
    let entry = |page: &Page, out: Option<&PageOutput>| print::PrintArticle {
        title: page.meta.title.clone(),
        description: page.meta.description.clone(),
        anchor: anchors[&page.output].clone(),
        content: print::rebase(
            out.and_then(|o| o.body.as_deref()).unwrap_or_default(),
            &page.output,
            &anchors,
        ),
        starts_part: None,
    };
    let articles: Vec<print::PrintArticle> = (0..env.series.len())
        .map(|i| print::PrintArticle {
            starts_part: part_start(env, i).map(|part| {
                let out = parts_out.iter().find(|o| o.path == part.output);
                Box::new(entry(part, out))
            }),
            ..entry(env.series[i], articles_out.get(i))
        })
        .collect();
    let models: Vec<String> = articles_out
        .iter()
        .flat_map(|o| o.models.iter().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut cx = context(
        &env.site_context,
        "",
        &models,
        &series(env, PRINT_PAGE, None, true),
    );
    cx.insert("articles", &articles);
    let mut out = PageOutput {
        path: PRINT_PAGE.into(),
        ..PageOutput::default()
    };
    finish(env, "print.html", &cx, &mut out);
    out
}

/// The series on one page.
pub const PRINT_PAGE: &str = "print.html";

/// The templates that always get `pages`, the whole series (each renders one page); article
/// pages get it only when a template names it (see [`super::RenderEnv::articles_use_pages`]).
pub const WHOLE_SERIES: [&str; 3] = ["index.html", "404.html", PRINT_PAGE];

/// `404.html`: served by hosts at any depth, so its links start at base_url when there is one.
pub fn not_found(env: &RenderEnv<'_>) -> PageOutput {
    let root = env.site_context.base_url.clone().unwrap_or_default();
    let series = SeriesContext::new(env.series.len(), None, true, |i| {
        let absolute = |output: &str| format!("{root}{}", paths::encode(output));
        PageLink {
            url: absolute(&env.series[i].output),
            starts_part: part_start(env, i).map(|part| PartLink {
                url: absolute(&part.output),
                ..part_link("", part)
            }),
            ..link_from("", env.series[i])
        }
    });
    let mut cx = context(
        &env.site_context,
        &root,
        std::slice::from_ref(&env.site_context.model_name),
        &series,
    );
    let words = &env.site_context.words;
    let home = format!(
        "<a href=\"{}index.html\">{}</a>",
        crate::base::escape::html(&root),
        crate::base::escape::html(words.get("home_page"))
    );
    cx.insert(
        "not_found",
        &words.fill_html("not_found", &[("home", &home)]),
    );
    let mut out = PageOutput {
        path: "404.html".into(),
        ..PageOutput::default()
    };
    finish(env, "404.html", &cx, &mut out);
    out
}

/// [`body`] of a page of the series (an article or a part's page): with its search entry, and
/// its body HTML kept for print.html.
fn searchable_body(env: &RenderEnv<'_>, page: &Page) -> (RenderedMarkdown, PageOutput) {
    let (body, mut out) = body(env, page);
    out.search = Some(SearchEntry::new(
        &page.meta.title,
        &page.output,
        &body.toc,
        &body.html,
    ));
    out.body = Some(body.html.clone());
    (body, out)
}

fn body(env: &RenderEnv<'_>, page: &Page) -> (RenderedMarkdown, PageOutput) {
    let scope = PromptScopeView::new(&env.site.prompts, env.traces, &page.source.name);
    let input = MarkdownInput {
        body: BodyRef::new(&page.source, page.body.clone()),
        output: &page.output,
        scope: &scope,
        tokenizer: &env.tokenizer,
        math: &env.math,
        pages: &env.page_index,
        claim_markers: env.site.config.check.claim_markers,
        words: &env.site.config.words,
        refs: &env.refs,
        citations: &env.site.citations,
        templates: env.templates,
        live: env.site.config.live.enabled.then_some((
            env.live_models.as_slice(),
            env.site.config.live.offer == LiveOffer::Figure,
        )),
        theme: &env.site.config.theme,
    };
    let (mut rendered, diagnostics) = markdown::render(&input);
    let out = PageOutput {
        path: page.output.clone(),
        links: std::mem::take(&mut rendered.links),
        figure_files: std::mem::take(&mut rendered.figure_files),
        claims: std::mem::take(&mut rendered.claims),
        unfit: std::mem::take(&mut rendered.unfit),
        printed: std::mem::take(&mut rendered.printed),
        used: scope.into_used(),
        figures: rendered.figures,
        values: rendered.values,
        diagnostics,
        html: String::new(),
        search: None,
        images: Vec::new(),
        body: None,
        models: Vec::new(),
    };
    (rendered, out)
}

fn finish(env: &RenderEnv<'_>, template: &str, cx: &tera::Context, out: &mut PageOutput) {
    match env.templates.render(template, cx) {
        Ok(html) => out.html = html,
        Err(diagnostic) => out.diagnostics.push(diagnostic),
    }
}

/// The models whose traces made this page's numbers and figures (the configured model when
/// the page uses none).
fn models(
    env: &RenderEnv<'_>,
    used: &BTreeSet<String>,
    from_figures: &BTreeSet<String>,
) -> Vec<String> {
    let mut models: BTreeSet<String> = from_figures.clone();
    models.extend(
        used.iter()
            .filter_map(|name| env.traces.ready(name))
            .map(|t| t.meta.model.shown()),
    );
    if models.is_empty() {
        models.insert(env.site_context.model_name.clone());
    }
    models.into_iter().collect()
}

/// The series seen from page `from`, the `current` article if it is one; `pages` too when `all`.
/// Each part's heading comes with its first article.
fn series(env: &RenderEnv<'_>, from: &str, current: Option<usize>, all: bool) -> SeriesContext {
    SeriesContext::new(env.series.len(), current, all, |i| PageLink {
        starts_part: part_start(env, i).map(|part| part_link(from, part)),
        ..link_from(from, env.series[i])
    })
}

/// The part whose first article is article `i` of the series, if it opens one.
fn part_start<'a>(env: &RenderEnv<'a>, i: usize) -> Option<&'a Page> {
    let folder = env.series[i].part.as_ref()?;
    let continues = i > 0 && env.series[i - 1].part.as_ref() == Some(folder);
    (!continues)
        .then(|| env.parts.get(folder).copied())
        .flatten()
}

fn link_from(from: &str, page: &Page) -> PageLink {
    PageLink {
        title: page.meta.title.clone(),
        description: page.meta.description.clone(),
        url: paths::relative(paths::parent(from), &page.output),
        current: page.output == from,
        starts_part: None,
    }
}

fn part_link(from: &str, part: &Page) -> PartLink {
    PartLink {
        title: part.meta.title.clone(),
        description: part.meta.description.clone(),
        url: paths::relative(paths::parent(from), &part.output),
        current: part.output == from,
    }
}
