//! Renders articles and the home page: markdown, then the page template around it.

use super::context::{context, ArticleContext, PageLink};
use super::RenderEnv;
use crate::claim_report::ClaimRecord;
use crate::content::Page;
use crate::diagnostic::Diagnostic;
use crate::markdown::{self, BodyRef, LinkRef, MarkdownInput, RenderedMarkdown};
use crate::paths;
use crate::scope::PromptScopeView;
use crate::search::SearchEntry;
use std::collections::BTreeSet;

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
}

/// The `n`-th article of the series.
pub fn article(env: &RenderEnv<'_>, n: usize) -> PageOutput {
    let page = env.series[n];
    let (body, mut out) = body(env, page);
    out.search = Some(SearchEntry::new(
        &page.meta.title,
        &page.output,
        &body.toc,
        &body.html,
    ));
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
    };
    let mut cx = context(
        &env.site_context,
        &paths::root_prefix(&page.output),
        &models(env, &out.used, &body.models),
        &series(env, &page.output),
    );
    cx.insert("page", &article);
    finish(env, "article.html", &cx, &mut out);
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
        &series(env, "index.html"),
    );
    cx.insert("intro", &intro_html);
    finish(env, "index.html", &cx, &mut out);
    out
}

/// `404.html`: served by hosts at any depth, so its links start at base_url when there is one.
pub fn not_found(env: &RenderEnv<'_>) -> PageOutput {
    let root = env.site_context.base_url.clone().unwrap_or_default();
    let pages: Vec<PageLink> = env
        .series
        .iter()
        .map(|p| PageLink {
            url: format!("{root}{}", paths::encode(&p.output)),
            ..link_from("", p)
        })
        .collect();
    let mut cx = context(
        &env.site_context,
        &root,
        std::slice::from_ref(&env.site_context.model_id),
        &pages,
    );
    let words = &env.site_context.words;
    let home = format!(
        "<a href=\"{}index.html\">{}</a>",
        crate::escape::html(&root),
        crate::escape::html(words.get("home_page"))
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
    };
    let (mut rendered, diagnostics) = markdown::render(&input);
    let out = PageOutput {
        path: page.output.clone(),
        links: std::mem::take(&mut rendered.links),
        figure_files: std::mem::take(&mut rendered.figure_files),
        claims: std::mem::take(&mut rendered.claims),
        used: scope.into_used(),
        figures: rendered.figures,
        values: rendered.values,
        diagnostics,
        html: String::new(),
        search: None,
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
            .map(|t| t.meta.model.id.clone()),
    );
    if models.is_empty() {
        models.insert(env.site_context.model_id.clone());
    }
    models.into_iter().collect()
}

fn series(env: &RenderEnv<'_>, from: &str) -> Vec<PageLink> {
    env.series.iter().map(|p| link_from(from, p)).collect()
}

fn link_from(from: &str, page: &Page) -> PageLink {
    PageLink {
        title: page.meta.title.clone(),
        description: page.meta.description.clone(),
        url: paths::relative(paths::parent(from), &page.output),
        current: page.output == from,
    }
}
