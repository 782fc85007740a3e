//! What templates see: `site`, `page`, `pages`, `sidebar`, `root`, `models`, `generator`.

use crate::load::config::SiteConfig;
use crate::load::words::Words;
use crate::render::markdown::TocEntry;
use serde::Serialize;

/// The name and version written into every page's generator meta tag and colophon.
pub const GENERATOR: &str = concat!("tracebook ", env!("CARGO_PKG_VERSION"));

/// `site` in templates.
#[derive(Debug, Clone, Serialize)]
pub struct SiteContext {
    pub title: String,
    pub description: String,
    pub base_url: Option<String>,
    /// The model named in tracebook.toml (`[model] id`, as written).
    pub model_id: String,
    /// The site's model as readers are shown it (`[model] name`, else its folder's name or
    /// hub id): what the model credit says.
    pub model_name: String,
    /// Extra style sheets, relative to the output root (`extra_css` in tracebook.toml).
    pub extra_css: Vec<String>,
    /// Raw HTML for every page's head (`extra_head`).
    pub extra_head: String,
    /// The theme's words (`words` in templates; `words.language` is the pages' language).
    #[serde(skip)]
    pub words: Words,
    /// Whether pages register the offline reader (`offline = true`).
    pub offline: bool,
    /// `[theme]` as the page's custom properties (a style sheet; empty without a theme).
    pub theme_css: String,
}

impl SiteContext {
    pub fn new(config: &SiteConfig, model_name: String) -> SiteContext {
        SiteContext {
            title: config.title.clone(),
            description: config.description.clone(),
            base_url: config.base_url.clone(),
            model_id: config.model.id.clone(),
            model_name,
            extra_css: config.extra_css.clone(),
            extra_head: config.extra_head.clone(),
            words: config.words.clone(),
            offline: config.offline,
            theme_css: config.theme.page_css(),
        }
    }
}

/// `share` in templates, with `base_url` set: what link previews and feeds show of a page.
#[derive(Debug, Clone, Serialize)]
pub struct ShareContext {
    /// The page's canonical address.
    pub url: String,
    pub title: String,
    pub description: String,
    /// `article` or `website` (OpenGraph's type).
    pub kind: &'static str,
    /// The absolute address of its preview image (its first figure as PNG), if it has one.
    pub image: Option<String>,
}

/// A link to an article, relative to the page it appears on.
#[derive(Debug, Clone, Serialize)]
pub struct PageLink {
    pub title: String,
    pub description: String,
    pub url: String,
    /// Whether this is the page the link appears on.
    pub current: bool,
    /// The part this article opens, when it is the first of one in the series: lists put the
    /// part's heading before it.
    pub starts_part: Option<PartLink>,
}

/// A link to a part's page (`01-basics/index.html`), relative to the page it appears on.
#[derive(Debug, Clone, Serialize)]
pub struct PartLink {
    pub title: String,
    pub description: String,
    pub url: String,
    /// Whether this is the page the link appears on.
    pub current: bool,
}

/// Series longer than this show a window of the sidebar (see [`sidebar`]).
const SIDEBAR_ALL: usize = 60;

/// `sidebar`: the articles the sidebar lists, with `gap` entries where it leaves some out.
#[derive(Debug, Clone, Serialize)]
pub struct SidebarEntry {
    #[serde(flatten)]
    pub link: Option<PageLink>,
    /// Articles left out here (the home page lists them all).
    pub gap: bool,
    /// After a gap: this article's number in the series, to number on from.
    pub number: Option<usize>,
}

/// The series as one page's templates see it: `pages` (when they use it) and `sidebar`.
pub struct SeriesContext {
    /// Every article; None when no template that renders the page names `pages` (a long
    /// series' pages would otherwise each carry the whole list: quadratic).
    pub pages: Option<Vec<PageLink>>,
    pub sidebar: Vec<SidebarEntry>,
}

impl SeriesContext {
    /// The `n` articles, the `current` one (if the page is one), and the link to article
    /// `i`; `pages` only when `all`.
    pub fn new(
        n: usize,
        current: Option<usize>,
        all: bool,
        link: impl Fn(usize) -> PageLink,
    ) -> SeriesContext {
        SeriesContext {
            pages: all.then(|| (0..n).map(&link).collect()),
            sidebar: sidebar(n, current.unwrap_or(0), link),
        }
    }
}

/// Every article, or for a long series (more than [`SIDEBAR_ALL`]) the first and last five
/// and the ten on either side of the current page: every page listing every article would
/// make a series' output grow with the square of its length. Only the links shown are made.
fn sidebar(n: usize, current: usize, link: impl Fn(usize) -> PageLink) -> Vec<SidebarEntry> {
    let entry = |i: usize| SidebarEntry {
        link: Some(link(i)),
        gap: false,
        number: None,
    };
    if n <= SIDEBAR_ALL {
        return (0..n).map(entry).collect();
    }
    let shown = |i: usize| i < 5 || i + 5 >= n || i.abs_diff(current) <= 10;
    let mut out = Vec::new();
    for i in 0..n {
        if shown(i) {
            let after_gap = out.last().is_some_and(|e: &SidebarEntry| e.gap);
            out.push(SidebarEntry {
                number: after_gap.then_some(i + 1),
                ..entry(i)
            });
        } else if i == 0 || shown(i - 1) {
            out.push(SidebarEntry {
                link: None,
                gap: true,
                number: None,
            });
        }
    }
    out
}

/// `page` in article.html.
#[derive(Debug, Clone, Serialize)]
pub struct ArticleContext {
    pub title: String,
    pub description: String,
    /// The rendered body (HTML; write it with `| safe`).
    pub content: String,
    pub toc: Vec<TocEntry>,
    /// 1-based position in the series.
    pub number: usize,
    /// "Chapter 3 of 15", in the site's language.
    pub part: String,
    pub previous: Option<PageLink>,
    pub next: Option<PageLink>,
    /// This page's path relative to the output root.
    pub path: String,
    /// Where to edit its source (`edit_url` with the page's file), if the site says.
    pub edit_url: Option<String>,
    /// With `[live]`, when the page has figures a reader may redraw for their own prompt.
    pub live: Option<LiveContext>,
    /// The part the article is in, if any.
    pub in_part: Option<PartLink>,
}

/// `page` in part.html: a part's introduction (its `_index.md`) and its articles.
#[derive(Debug, Clone, Serialize)]
pub struct PartContext {
    pub title: String,
    pub description: String,
    /// The rendered introduction (HTML; write it with `| safe`).
    pub content: String,
    /// The part's articles, in series order.
    pub articles: Vec<PageLink>,
    /// The series number of its first article (lists number on from it).
    pub first: usize,
    /// This page's path relative to the output root.
    pub path: String,
}

/// `page.live`: what article.html hands `tracebook.js` and `tracebook-live.js`.
#[derive(Debug, Clone, Serialize)]
pub struct LiveContext {
    /// The page's live data file, relative to the page (`attention.live.json`).
    pub data: String,
    /// Each figure offers the reader's prompt (`[live] offer = "figure"`); else the page
    /// does, once, under its title.
    pub per_figure: bool,
}

/// `extra_head` as a page `root` away from the output root sees it: the relative `href`s and
/// `src`s (written, as `extra_css`, relative to the output root) prefixed with `root`, so
/// `<link rel="icon" href="favicon.svg">` finds the icon from a part's pages too. External,
/// absolute, `data:` and fragment links stay as written.
fn rooted_head(html: &str, root: &str) -> String {
    if root.is_empty() {
        return html.to_string();
    }
    let mut out = html.to_string();
    let attributes = crate::base::html_scan::attributes(html);
    for attr in attributes.iter().rev() {
        let linked =
            attr.name.eq_ignore_ascii_case("href") || attr.name.eq_ignore_ascii_case("src");
        let value = &attr.value;
        let relative = !value.is_empty()
            && !crate::render::markdown::is_external(value)
            && !value.starts_with(['/', '#', '?']);
        if linked
            && relative
            && html
                .get(attr.offset..)
                .is_some_and(|rest| rest.starts_with(value.as_str()))
        {
            out.insert_str(attr.offset, root);
        }
    }
    out
}

/// What every template gets; callers add `page` or `intro`.
pub fn context(
    site: &SiteContext,
    root: &str,
    models: &[String],
    series: &SeriesContext,
) -> tera::Context {
    let mut context = tera::Context::new();
    let head = rooted_head(&site.extra_head, root);
    if head == site.extra_head {
        context.insert("site", site);
    } else {
        let mut here = site.clone();
        here.extra_head = head;
        context.insert("site", &here);
    }
    context.insert("root", root);
    context.insert("models", models);
    if let Some(pages) = &series.pages {
        context.insert("pages", pages);
    }
    context.insert("sidebar", &series.sidebar);
    context.insert("generator", GENERATOR);
    context.insert("words", &site.words);
    let models: Vec<String> = models
        .iter()
        .map(|m| format!("<code>{}</code>", crate::base::escape::html(m)))
        .collect();
    let credit = site.words.fill_html(
        "model_credit",
        &[
            ("models", &models.join(", ")),
            ("command", "<code>tracebook trace</code>"),
        ],
    );
    context.insert("model_credit", &credit);
    context
}

#[cfg(test)]
mod tests {
    #[test]
    fn extra_head_links_are_prefixed_with_the_page_s_root() {
        let head = r##"<link rel="icon" href="favicon.svg"><script src="js/x.js"></script><link href="https://e.org/a.css"><link href="/abs.css"><a href="#top">t</a><img src="data:x">"##;
        assert_eq!(super::rooted_head(head, ""), head);
        assert_eq!(
            super::rooted_head(head, "../"),
            head.replace("\"favicon.svg", "\"../favicon.svg")
                .replace("\"js/x.js", "\"../js/x.js")
        );
    }

    use super::*;

    fn link(i: usize) -> PageLink {
        PageLink {
            title: format!("A{}", i + 1),
            description: String::new(),
            url: format!("a{}.html", i + 1),
            current: false,
            starts_part: None,
        }
    }

    fn shown(entries: &[SidebarEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| match (&e.link, e.number) {
                (Some(link), Some(n)) => format!("{}@{n}", link.title),
                (Some(link), None) => link.title.clone(),
                (None, _) => "…".into(),
            })
            .collect()
    }

    #[test]
    fn a_short_series_lists_every_article() {
        assert_eq!(sidebar(60, 30, link).len(), 60);
    }

    #[test]
    fn a_long_series_lists_its_ends_and_the_current_neighbourhood() {
        let entries = shown(&sidebar(1000, 500, link));
        let mut expected: Vec<String> = (1..=5).map(|i| format!("A{i}")).collect();
        expected.push("…".into());
        expected.push("A491@491".into());
        expected.extend((492..=511).map(|i| format!("A{i}")));
        expected.push("…".into());
        expected.push("A996@996".into());
        expected.extend((997..=1000).map(|i| format!("A{i}")));
        assert_eq!(entries, expected);
        // At the start, the window joins the first five: no gap between them.
        let start = shown(&sidebar(1000, 0, link));
        assert_eq!(
            &start[..12],
            &(1..=11)
                .map(|i| format!("A{i}"))
                .chain(["…".to_string()])
                .collect::<Vec<_>>()[..]
        );
    }
}
