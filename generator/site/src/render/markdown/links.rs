//! Links and images: `other.md#anchor` becomes the relative link to that page's HTML, absolute
//! paths are refused, and every internal target is recorded so it can be checked once all
//! pages exist. The `href` and `src` of the author's raw HTML are recorded too (kept as
//! written), so a broken one is reported at its line and column.

use super::{BodyRef, Spanned};
use crate::base::paths;
use crate::base::problem::Problem;
use crate::base::source::Location;
use crate::suggest;
use pulldown_cmark::{CowStr, Event, Tag};
use std::collections::BTreeMap;

/// What a link to an article resolves to.
#[derive(Debug, Clone)]
pub struct PageTarget {
    /// Output path (`sub/a.html`).
    pub output: String,
    pub draft: bool,
    /// False for a file whose front matter could not be read (reported already): links to it
    /// are not checked.
    pub readable: bool,
}

/// Every article by source path (`content/sub/a.md`).
pub type PageIndex = BTreeMap<String, PageTarget>;

/// An internal link, to check after rendering.
#[derive(Debug, Clone)]
pub struct LinkRef {
    pub location: Location,
    /// The link as the author wrote it.
    pub written: String,
    /// The output file it points to (relative to the output root).
    pub target: String,
    pub fragment: Option<String>,
    /// The page the link is on and the href written there.
    pub page: String,
    pub href: String,
    /// False when the link was reported already or points to an unreadable article.
    pub check: bool,
}

/// Where the page being rendered lives.
pub struct LinkContext<'a> {
    pub body: BodyRef<'a>,
    /// Output path of this page.
    pub output: &'a str,
    pub pages: &'a PageIndex,
}

pub fn rewrite<'s>(
    events: Vec<Spanned<'s>>,
    cx: &LinkContext<'_>,
    problems: &mut Vec<Problem>,
    links: &mut Vec<LinkRef>,
) -> Vec<Spanned<'s>> {
    events
        .into_iter()
        .map(|(event, range)| {
            let event = match event {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => {
                    let dest_url = resolve(&dest_url, &range, cx, problems, links)
                        .map_or(dest_url, CowStr::from);
                    Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    })
                }
                Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => {
                    let dest_url = resolve(&dest_url, &range, cx, problems, links)
                        .map_or(dest_url, CowStr::from);
                    Event::Start(Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        id,
                    })
                }
                Event::Html(html) => {
                    raw_html_links(&html, &range, cx, problems, links);
                    Event::Html(html)
                }
                Event::InlineHtml(html) => {
                    raw_html_links(&html, &range, cx, problems, links);
                    Event::InlineHtml(html)
                }
                other => other,
            };
            (event, range)
        })
        .collect()
}

/// Records the internal `href`s and `src`s of raw HTML the author wrote (not markup tracebook
/// generated in its place, such as figures), each at its own line and column.
fn raw_html_links(
    html: &str,
    range: &std::ops::Range<usize>,
    cx: &LinkContext<'_>,
    problems: &mut Vec<Problem>,
    links: &mut Vec<LinkRef>,
) {
    let Some(written) = cx.body.text.get(range.clone()) else {
        return;
    };
    let Some(at) = written.find(html) else {
        return;
    };
    for attr in crate::base::html_scan::attributes(html) {
        if !(attr.name.eq_ignore_ascii_case("href") || attr.name.eq_ignore_ascii_case("src")) {
            continue;
        }
        let start = range.start + at + attr.offset;
        let place = start..start + attr.value.len().max(1);
        let before = links.len();
        let rewritten = resolve(&attr.value, &place, cx, problems, links);
        // The HTML is kept as written, so the page links to the href the author wrote.
        if let Some(link) = links.get_mut(before) {
            link.href = attr.value.clone();
        }
        if let Some(href) = rewritten.filter(|h| *h != attr.value) {
            if let Some(link) = links.get_mut(before) {
                link.check = false;
            }
            problems.push(
                Problem::new(
                    place,
                    format!(
                        "raw HTML links to `{}`, which the site does not have",
                        attr.value
                    ),
                )
                .with_hint(format!(
                    "only markdown links to articles are rewritten; in HTML write `{href}`"
                )),
            );
        }
    }
}

/// The href to write instead of `dest`, or None to keep it (external links). Every internal
/// link is recorded, so it can be checked once all pages exist.
fn resolve(
    dest: &str,
    range: &std::ops::Range<usize>,
    cx: &LinkContext<'_>,
    problems: &mut Vec<Problem>,
    links: &mut Vec<LinkRef>,
) -> Option<String> {
    if is_external(dest) {
        return None;
    }
    let mut link = LinkRef {
        location: cx.body.location(range.clone()),
        written: dest.to_string(),
        target: String::new(),
        fragment: dest.split_once('#').map(|(_, f)| f.to_string()),
        page: cx.output.to_string(),
        href: dest.to_string(),
        check: false,
    };
    let href = match target(dest, range, cx) {
        Ok((target, href)) => {
            link.check = !cx.pages.values().any(|t| !t.readable && t.output == target);
            link.target = target;
            link.href = href.clone();
            Some(href)
        }
        Err(problem) => {
            problems.push(problem);
            None
        }
    };
    links.push(link);
    href
}

/// The output file a relative link points to, and the href to write for it.
fn target(
    dest: &str,
    range: &std::ops::Range<usize>,
    cx: &LinkContext<'_>,
) -> Result<(String, String), Problem> {
    let (path, fragment) = dest
        .split_once('#')
        .map_or((dest, None), |(p, f)| (p, Some(f)));
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() {
        return Ok((cx.output.to_string(), dest.to_string()));
    }
    if path.starts_with('/') {
        return Err(Problem::new(range.clone(), format!("absolute link `{dest}` breaks when the site is opened from a file or under a sub-path"))
            .with_hint("use a relative link, such as `attention.md` for an article or `images/x.png` for a file in static/"));
    }
    if path.ends_with(".md") {
        let output = to_article(dest, path, range, cx)?;
        let href = paths::relative(paths::parent(cx.output), &output);
        let href = fragment.map_or(href.clone(), |f| format!("{href}#{f}"));
        return Ok((output, href));
    }
    match paths::join(paths::parent(cx.output), &paths::decode(path)) {
        Some(target) => Ok((target, dest.to_string())),
        None => Err(Problem::new(
            range.clone(),
            format!("link `{dest}` points outside the site"),
        )),
    }
}

/// The output path of the article `path` (relative to this page's source folder).
fn to_article(
    dest: &str,
    path: &str,
    range: &std::ops::Range<usize>,
    cx: &LinkContext<'_>,
) -> Result<String, Problem> {
    let source_dir = paths::parent(&cx.body.file.name);
    let source = paths::join(source_dir, &paths::decode(path));
    match source.as_deref().and_then(|s| cx.pages.get(s)) {
        Some(target) if target.draft => Err(Problem::new(
            range.clone(),
            format!("link to `{dest}`, which is a draft and is not published"),
        )
        .with_hint("remove `draft = true` from its front matter, or remove the link")),
        Some(target) => Ok(target.output.clone()),
        None => {
            let relative: Vec<String> = cx
                .pages
                .keys()
                .map(|k| paths::relative(source_dir, k))
                .collect();
            let names: Vec<&str> = relative.iter().map(String::as_str).collect();
            let hint = suggest::hint(path, &names, "articles are");
            Err(
                Problem::new(range.clone(), format!("link to a missing page `{dest}`"))
                    .with_optional_hint(hint),
            )
        }
    }
}

/// `https://...`, `mailto:...`, `//host/...`: left alone.
pub fn is_external(dest: &str) -> bool {
    if dest.starts_with("//") {
        return true;
    }
    let scheme: String = dest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        .collect();
    !scheme.is_empty()
        && scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        && dest[scheme.len()..].starts_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_links_are_recognised() {
        assert!(is_external("https://example.org"));
        assert!(is_external("mailto:a@b.c"));
        assert!(is_external("//cdn.example.org/x.js"));
        assert!(!is_external("attention.md"));
        assert!(!is_external("#intro"));
    }
}
