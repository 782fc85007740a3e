//! `tracebook figure`: one figure block drawn outside any page, from the site's traces, as
//! the build draws it on a page: a standalone SVG file, and an HTML fragment to paste into
//! any page (or iframe) with the figure's controls working and nothing shared with the host.
//!
//! The fragment is a `<tracebook-figure>` element holding a *declarative shadow root*
//! (`<template shadowrootmode="open">`): the browser attaches it while parsing, so the figure
//! shows with no script at all, the host page's style sheets cannot reach inside it and the
//! fragment's style (the site's theme, `:root` read as `:host`) cannot leak out. After it comes
//! the site's `tracebook.js` marked `data-tb-fragment`: it enhances that one shadow root
//! (pickers, sliders, token highlighting) and defines no global and no custom element, so any
//! number of fragments, of any tracebook version, live on one page. A shadow root rather than
//! a custom element definition: a definition is one global name per page, and it would leave
//! the figure blank until its script ran.

use crate::base::diagnostic::Diagnostics;
use crate::base::source::SourceFile;
use crate::load::prompts::{NamedPrompt, PromptScope};
use crate::load::site::Site;
use crate::load::templates::Templates;
use crate::load::traces::TraceSet;
use crate::render::markdown::lone;
use crate::resolve::scope::PromptScopeView;
use crate::write::files;
use std::ops::Range;
use std::path::Path;

/// A figure drawn outside a page.
pub struct LoneFigure {
    /// The standalone SVG file (caption and credit drawn under the figure).
    pub svg: String,
    /// The HTML fragment.
    pub html: String,
    /// The relations the figure's kind declares among the numbers it prints (all hold: a
    /// broken one is an error).
    pub relations: Vec<tracebook_figures::relations::Relation>,
}

/// Draws the figure block in `text` (a ```` ```figure KIND ```` fenced block, alone or in a
/// markdown file; or `KIND` on its first line and the TOML body below) with the traces of the
/// site at `root`, as figure `number` of the page it goes into (its "Figure N." and its anchor
/// `figure-N`, unless the block gives an `id`); errors point into `text`, called `name`.
pub fn figure(
    root: &Path,
    name: &str,
    text: &str,
    number: usize,
) -> Result<LoneFigure, Diagnostics> {
    let source = SourceFile::from_text(name, text);
    let Some(block) = find_block(text) else {
        let mut out = Diagnostics::new();
        out.push(
            source
                .error(0..0, "no figure block here")
                .with_hint("write ```figure KIND, the TOML body, then ```; or KIND on the first line and the body below it"),
        );
        return Err(out);
    };
    let (site, _) = Site::load_partial(root)?;
    let templates = Templates::load(root)?;
    let traces = TraceSet::load(&site);
    // Prompt names are unique in a site, so a lone figure may name any of them.
    let prompts: Vec<NamedPrompt> = (site.prompts.iter())
        .map(|p| NamedPrompt {
            scope: PromptScope::Shared,
            ..p.clone()
        })
        .collect();
    draw(
        &source,
        &block,
        (&prompts, &traces),
        &site.config,
        &templates,
        number,
    )
    .map(|drawn| drawn.with_theme(&theme_css(root)))
}

/// Draws a figure of kind `kind` with `body` (the block's TOML) from traces in memory, named
/// as the body names them (`prompt = "NAME"`), each taken as up to date: a figure outside any
/// site (a notebook's), with the default theme, templates and words; or, given `site` (a site's
/// root), with that site's theme, templates and own kinds (`figures/NAME.svg`). Errors point
/// into the block `KIND` + newline + `body`, called `name`.
pub fn figure_of_traces(
    traces: Vec<(String, tracebook_trace::Trace)>,
    (name, kind, body): (&str, &str, &str),
    number: usize,
    site: Option<&Path>,
) -> Result<LoneFigure, Diagnostics> {
    let text = format!("{kind}\n{body}");
    let source = SourceFile::from_text(name, &text);
    let Some(block) = find_block(&text) else {
        let mut out = Diagnostics::new();
        out.push(source.error(0..0, format!("`{kind}` is not a figure kind")));
        return Err(out);
    };
    // The model the traces name (figures show each trace's own); a site must name one.
    let model = traces
        .first()
        .map_or(tracebook_trace::BUILTIN_MODEL_ID, |(_, t)| {
            t.meta.model.id.as_str()
        });
    let mut config = format!(
        "title = \"Figures\"\n[model]\nid = {}\n[prompts]\n",
        toml::Value::from(model)
    );
    for (name, trace) in &traces {
        // The prompt as its trace recorded it (text and options), as a site would declare it.
        let spec = toml::Value::try_from(&trace.meta.prompt).map_err(|e| {
            let mut out = Diagnostics::new();
            out.push(source.error(
                0..0,
                format!("the trace `{name}` has a prompt tracebook cannot write back: {e}"),
            ));
            out
        })?;
        config.push_str(&format!("{} = {spec}\n", toml::Value::from(name.as_str())));
    }
    let (config, prompts) = crate::load::config::parse(&SourceFile::from_text(
        crate::load::config::CONFIG_FILE,
        &config,
    ))?;
    // Without a site, a path that is never a folder: the built-in templates and theme only.
    let root = site.unwrap_or(Path::new("/dev/null/tracebook-figure"));
    let templates = Templates::load(root)?;
    let mut traces = TraceSet::from_ready(traces);
    let (own, problems) = crate::load::own_kinds::of_site(root);
    if !problems.is_empty() {
        return Err(problems);
    }
    traces.own_kinds = own;
    draw(
        &source,
        &block,
        (&prompts, &traces),
        &config,
        &templates,
        number,
    )
    .map(|drawn| drawn.with_theme(&theme_css(root)))
}

/// A figure drawn, before its HTML is wrapped in a fragment with the theme.
struct Drawn(LoneFigure);

impl Drawn {
    fn with_theme(self, css: &str) -> LoneFigure {
        LoneFigure {
            html: fragment(&self.0.html, css),
            ..self.0
        }
    }
}

/// Draws the block found in `source` from the prompts' traces, as figure `number`.
fn draw(
    source: &SourceFile,
    block: &Found,
    (prompts, traces): (&[NamedPrompt], &TraceSet),
    config: &crate::load::config::SiteConfig,
    templates: &Templates,
    number: usize,
) -> Result<Drawn, Diagnostics> {
    let text = &source.text;
    let scope = PromptScopeView::new(prompts, traces, &source.name);
    let drawn = lone(
        (&block.info, block.info_span.clone()),
        (&text[block.body.clone()], block.body.start),
        &scope,
        (&config.words, templates),
        &config.theme,
        number,
    );
    let drawn = drawn.map_err(|e| {
        let mut out = Diagnostics::new();
        out.push(match e {
            Ok(problem) => {
                let d = source.error(problem.span, problem.message);
                match problem.hint {
                    Some(hint) => d.with_hint(hint),
                    None => d,
                }
            }
            Err(template) => template,
        });
        out
    })?;
    Ok(Drawn(LoneFigure {
        svg: drawn.svg,
        html: drawn.html,
        relations: drawn.relations,
    }))
}

/// The block: its info string (`figure attention`) with where it is, and where its body is.
struct Found {
    info: String,
    info_span: Range<usize>,
    body: Range<usize>,
}

fn find_block(text: &str) -> Option<Found> {
    let mut offset = 0;
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .map(|line| {
            let at = offset;
            offset += line.len();
            (at, line)
        })
        .collect();
    let fence = lines.iter().position(|(_, l)| {
        let t = l.trim_start();
        (t.starts_with("```") || t.starts_with("~~~"))
            && t.trim_start_matches(['`', '~'])
                .trim_start()
                .starts_with("figure")
    });
    let Some(open) = fence else {
        // `KIND` (or `figure KIND`) on the first line, the body below.
        let (at, first) = *lines.first()?;
        let kind = first.trim().trim_start_matches("figure").trim();
        if kind.is_empty() || kind.contains(char::is_whitespace) {
            return None;
        }
        let start = at + first.find(kind)?;
        let body_start = at + first.len();
        return Some(Found {
            info: format!("figure {kind}"),
            info_span: start..start + kind.len(),
            body: body_start..text.len(),
        });
    };
    let (at, line) = lines[open];
    let marker: String = line
        .trim_start()
        .chars()
        .take_while(|c| *c == '`' || *c == '~')
        .collect();
    let info = line.trim().trim_start_matches(['`', '~']).trim();
    let info_start = at + line.find(info)?;
    let body_start = lines.get(open + 1).map_or(text.len(), |(a, _)| *a);
    let close = lines[open + 1..]
        .iter()
        .find(|(_, l)| l.trim_start().starts_with(&marker))
        .map_or(text.len(), |(a, _)| *a);
    Some(Found {
        info: info.to_string(),
        info_span: info_start..info_start + info.len(),
        body: body_start..close,
    })
}

/// The site's theme (its own `static/tracebook.css`, else the default) for a shadow root:
/// `:root` is the shadow root's host, and the host page's inherited text styles are reset.
pub(crate) fn theme_css(root: &Path) -> String {
    let own = std::fs::read_to_string(root.join(files::STATIC_DIR).join(files::THEME.0));
    let css = own.unwrap_or_else(|_| files::THEME.1.to_string());
    let host = ":host { all: initial; display: block; background: var(--bg); color: var(--fg); \
                font-family: var(--serif); font-size: 1.0625rem; line-height: 1.6; }\n";
    // On a phone a page's figure reaches past the column to the screen's edges, into the
    // page's own padding; a host page's padding is unknown, so a fragment stays in its box
    // (and scrolls sideways inside it when the screen is narrower than the figure).
    let keep_in = "\n:host .tb-figure-art { margin-left: 0; margin-right: 0; }\n";
    rem_as_px(&format!("{host}{}{keep_in}", css.replace(":root", ":host")))
}

/// `css` with every length in `rem` given in pixels at the usual 16 px root: a `rem` inside a
/// shadow root is still the host page's root size, which pages set as they like (mdBook's
/// themes to 10 px), and the figure must look the same on every page.
fn rem_as_px(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(at) = rest.find("rem") {
        let before = &rest[..at];
        let digits = before.len()
            - before
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
                .len();
        let number: Option<f64> = before[before.len() - digits..].parse().ok();
        let after = rest[at + 3..].chars().next();
        match number {
            Some(n) if !after.is_some_and(|c| c.is_alphanumeric() || c == '-') => {
                out.push_str(&before[..before.len() - digits]);
                out.push_str(&format!("{}px", n * 16.0));
            }
            _ => out.push_str(&rest[..at + 3]),
        }
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out
}

/// The figure's HTML in a declarative shadow root, followed by the script that enhances it.
pub(crate) fn fragment(figure_html: &str, css: &str) -> String {
    format!(
        "{}\n{}",
        shadow_host(figure_html, css),
        fragment_script(false)
    )
}

/// The `<tracebook-figure>` element: the figure and its style in a declarative shadow root.
pub(crate) fn shadow_host(figure_html: &str, css: &str) -> String {
    // A `</` in the style would end its element early in the host's parser.
    let css = css.replace("</", "<\\/");
    format!(
        "<tracebook-figure>\n<template shadowrootmode=\"open\"><style>{css}</style>\
         {figure_html}</template></tracebook-figure>"
    )
}

/// The script that enhances the fragment just before it, or (`all`) every fragment above it
/// that no copy has enhanced yet.
pub(crate) fn fragment_script(all: bool) -> String {
    let script = files::script().replace("</script", "<\\/script");
    let mode = if all { "=\"all\"" } else { "" };
    format!("<script data-tb-fragment{mode}>\n{script}</script>\n")
}

#[cfg(test)]
mod tests {
    use super::find_block;

    #[test]
    fn rem_lengths_become_pixels_at_a_16_px_root() {
        assert_eq!(
            super::rem_as_px(
                "a { margin: 0.5rem 1rem; font-size: 1.0625rem } li { counter-increment: part }"
            ),
            "a { margin: 8px 16px; font-size: 17px } li { counter-increment: part }"
        );
        assert_eq!(super::rem_as_px("x: 2remy; y: .25rem"), "x: 2remy; y: 4px");
    }

    #[test]
    fn a_block_is_found_fenced_in_markdown_or_as_kind_and_body() {
        let text = "Some prose.\n\n```figure attention\nprompt = \"a\"\n```\nmore\n";
        let found = find_block(text).unwrap();
        assert_eq!(found.info, "figure attention");
        assert_eq!(&text[found.info_span.clone()], "figure attention");
        assert_eq!(&text[found.body], "prompt = \"a\"\n");
        let bare = "attention\nprompt = \"a\"\nlayer = 1\n";
        let found = find_block(bare).unwrap();
        assert_eq!(found.info, "figure attention");
        assert_eq!(&bare[found.info_span], "attention");
        assert_eq!(&bare[found.body], "prompt = \"a\"\nlayer = 1\n");
        assert!(find_block("not a kind\nx = 1").is_none());
        assert!(find_block("").is_none());
    }
}
