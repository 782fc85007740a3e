//! Every internal link and `#anchor` of the output resolves: links written in articles are
//! reported at their line; links from templates (checked by `tracebook check`) at the page.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::base::html_scan::attributes;
use crate::base::paths;
use crate::render::markdown::LinkRef;
use crate::render::RenderedSite;
use crate::suggest;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The output's files and what each HTML file's tags hold, read once per file.
pub struct OutputIndex<'a> {
    files: &'a BTreeMap<String, Vec<u8>>,
    pages: BTreeMap<&'a str, PageTags>,
}

/// One HTML file's `id`s, and its `href` then its `src` values.
#[derive(Default)]
struct PageTags {
    ids: BTreeSet<String>,
    refs: Vec<String>,
}

impl PageTags {
    fn read(html: &str) -> PageTags {
        let mut page = PageTags::default();
        let mut srcs = Vec::new();
        for attribute in attributes(html) {
            match attribute.name.to_ascii_lowercase().as_str() {
                "id" => {
                    page.ids.insert(attribute.value);
                }
                "href" => page.refs.push(attribute.value),
                "src" => srcs.push(attribute.value),
                _ => {}
            }
        }
        page.refs.append(&mut srcs);
        page
    }
}

impl<'a> OutputIndex<'a> {
    pub fn new(site: &'a RenderedSite) -> OutputIndex<'a> {
        let pages = site
            .files
            .par_iter()
            .filter(|(path, _)| path.ends_with(".html"))
            .map(|(path, bytes)| {
                (
                    path.as_str(),
                    PageTags::read(&String::from_utf8_lossy(bytes)),
                )
            })
            .collect();
        OutputIndex {
            files: &site.files,
            pages,
        }
    }

    /// Why `target#fragment` does not resolve; None when it does.
    fn problem(&self, target: &str, fragment: Option<&str>) -> Option<LinkProblem> {
        let Some(target) = self.existing(target) else {
            let names: Vec<&str> = self.files.keys().map(String::as_str).collect();
            let hint = suggest::did_you_mean(target, names.iter().copied())
                .or_else(|| Some("links are relative to this page's place in the output; files in static/ and beside articles in content/ are copied there".into()));
            return Some(LinkProblem {
                message: format!("points to {target}, which the site does not have"),
                hint,
            });
        };
        let fragment = paths::decode(fragment.filter(|f| !f.is_empty())?);
        let ids = &self.pages.get(target)?.ids;
        if ids.contains(&fragment) {
            return None;
        }
        let names: Vec<&str> = ids.iter().map(String::as_str).collect();
        let hint = suggest::closest(&fragment, names.iter().copied())
            .map(|c| format!("did you mean `#{c}`?"))
            .or_else(|| Some("an anchor is a heading's id (as in the page's contents) or one given with {#id}".into()));
        Some(LinkProblem {
            message: format!("points to an anchor that {target} does not have"),
            hint,
        })
    }

    /// The output file `target` names (a folder means its index.html).
    fn existing(&self, target: &str) -> Option<&'a str> {
        let candidates = [
            target.to_string(),
            format!("{}/index.html", target.trim_end_matches('/')),
            "index.html".to_string(),
        ];
        let wanted = if target.is_empty() {
            &candidates[2..]
        } else {
            &candidates[..2]
        };
        wanted.iter().find_map(|c| {
            self.files
                .get_key_value(c.as_str())
                .map(|(k, _)| k.as_str())
        })
    }
}

/// A link that does not resolve: what is wrong and a did-you-mean.
struct LinkProblem {
    message: String,
    hint: Option<String>,
}

/// Checks links written in articles, reporting each at its place in the markdown.
pub fn check_article_links(index: &OutputIndex<'_>, links: &[LinkRef], out: &mut Diagnostics) {
    for link in links.iter().filter(|l| l.check) {
        if let Some(problem) = index.problem(&link.target, link.fragment.as_deref()) {
            let message = format!("link `{}` {}", link.written, problem.message);
            out.push(
                link.location
                    .error(message)
                    .with_optional_hint(problem.hint),
            );
        }
    }
}

/// Checks every other relative `href` and `src` in the output's HTML (those from templates).
pub fn check_template_links(index: &OutputIndex<'_>, site: &RenderedSite, out: &mut Diagnostics) {
    // Compared decoded: the markdown renderer percent-encodes the href it writes (`my url`
    // becomes `my%20url`), and an article's link is checked, and reported, where it is written.
    let from_articles: BTreeSet<(&str, String)> = site
        .links
        .iter()
        .map(|l| (l.page.as_str(), paths::decode(&l.href)))
        .collect();
    // 404.html is served at any depth; print.html is the articles again, whose links were
    // checked (and reported) where they are written.
    for (page, tags) in index
        .pages
        .iter()
        .filter(|(p, _)| **p != "404.html" && **p != "print.html")
    {
        for href in &tags.refs {
            if from_articles.contains(&(*page, paths::decode(href))) || is_external(href) {
                continue;
            }
            let (path, fragment) = href
                .split_once('#')
                .map_or((href.as_str(), None), |(p, f)| (p, Some(f)));
            let target = if path.is_empty() {
                Some(page.to_string())
            } else {
                paths::join(paths::parent(page), &paths::decode(path))
            };
            let problem = match target {
                Some(target) => index.problem(&target, fragment),
                None => Some(LinkProblem {
                    message: "points outside the site".into(),
                    hint: None,
                }),
            };
            if let Some(problem) = problem {
                let message = format!(
                    "link `{href}` {} (it comes from a template)",
                    problem.message
                );
                out.push(
                    Diagnostic::file(&format!("(output) {page}"), message)
                        .with_optional_hint(problem.hint),
                );
            }
        }
    }
}

fn is_external(href: &str) -> bool {
    href.starts_with("//")
        || href.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && !scheme.contains('/')
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        })
}
