//! Figure directives: a fenced block ```` ```figure <kind> ```` with a TOML body becomes the
//! figure drawn by the figures crate, wrapped in `<figure>` with a caption naming the model.
//! Figures that name a shared colour `scale` are drawn on the union of their domains
//! ([`scales`], a pass over the page's figures before any is drawn).

mod scales;

use super::Spanned;
use crate::base::diagnostic::Diagnostic;
use crate::base::escape;
use crate::base::problem::Problem;
use crate::load::templates::Templates;
use crate::load::words::Words;
use crate::render::live_page::{Asked, LivePage};
use crate::resolve::scope::PromptScopeView;
use crate::suggest;
use pulldown_cmark::{CodeBlockKind, CowStr, Event, Tag, TagEnd};
use serde::Serialize;
use std::collections::BTreeSet;
use std::ops::Range;
use toml::de::DeTable;
use tracebook_figures::PageFigure;

/// What the figure pass produced besides the events.
pub struct FigureStats<'a> {
    pub count: usize,
    /// The page's output path without `.html` (`more/deep`): figure files are named after it.
    pub page_stem: String,
    /// Every figure as a standalone file beside its page: (output path, SVG).
    pub files: Vec<(String, String)>,
    /// Ids of the models whose traces the figures were drawn from.
    pub models: BTreeSet<String>,
    /// With `[live]`: the figures a reader may redraw for their own prompt.
    pub live: Option<LivePage<'a>>,
    /// Errors of the `partials/figure.html` template.
    pub template_errors: Vec<Diagnostic>,
    /// The site's theme: each figure (its panels too) is restyled into it, so the page, the
    /// downloadable SVG and the preview image show the same colours.
    pub theme: &'a tracebook_figures::Theme,
    /// Keep every picker panel inside the figure's numbers, never in a file beside the page,
    /// and link no download (`tracebook figure`'s fragments and mdBook chapters, which must
    /// need no other file).
    pub inline_panels: bool,
    /// The relations the last figure drawn declares among the numbers it prints (all hold:
    /// a broken one is a problem at the block).
    pub relations: Vec<tracebook_figures::relations::Relation>,
}

impl<'a> FigureStats<'a> {
    /// For figures that need no other file (fragments, mdBook chapters): panels inline, no
    /// live mode, no download link.
    pub fn standalone(theme: &'a tracebook_figures::Theme) -> FigureStats<'a> {
        FigureStats {
            count: 0,
            page_stem: "figure".to_string(),
            files: Vec::new(),
            models: BTreeSet::new(),
            live: None,
            template_errors: Vec::new(),
            theme,
            inline_panels: true,
            relations: Vec::new(),
        }
    }
}

/// One figure drawn outside any page (`tracebook figure`): its `<figure>` as a page shows it,
/// and its standalone SVG file.
pub struct Lone {
    pub html: String,
    pub svg: String,
    /// What the figure declares among the numbers it prints.
    pub relations: Vec<tracebook_figures::relations::Relation>,
}

/// Draws the figure block `info` (`figure attention`) with `body` (its TOML, starting at
/// `body_start` of the text that `info_span` also indexes), every panel inline, numbered
/// `number` (at least 1); the first problem, or a template's error, when it cannot be drawn.
pub fn lone(
    (info, info_span): (&str, Range<usize>),
    (body, body_start): (&str, usize),
    scope: &PromptScopeView<'_>,
    (words, templates): (&Words, &Templates),
    theme: &tracebook_figures::Theme,
    number: usize,
) -> Result<Lone, Result<Problem, Diagnostic>> {
    let block = Block {
        info: info.to_string(),
        info_span,
        body: body.to_string(),
        body_start,
    };
    let mut stats = FigureStats::standalone(theme);
    // The figures before it on the page it is pasted into.
    stats.count = number.saturating_sub(1);
    let mut problems = Vec::new();
    let scales = scales::Shared::default();
    let html = render(
        &block,
        scope,
        &scales,
        (words, templates),
        &mut problems,
        &mut stats,
    );
    if let Some(error) = stats.template_errors.pop() {
        return Err(Err(error));
    }
    match (html, problems.pop()) {
        (_, Some(problem)) => Err(Ok(problem)),
        (Some(html), None) => Ok(Lone {
            html,
            svg: stats.files.pop().map(|(_, svg)| svg).unwrap_or_default(),
            relations: std::mem::take(&mut stats.relations),
        }),
        // A prompt whose trace is missing: reported where it is declared, by the caller.
        (None, None) => Err(Ok(Problem::new(
            block.info_span.clone(),
            "this figure's prompt has no fresh trace",
        )
        .with_hint("run `tracebook trace`, then try again"))),
    }
}

/// A figure block as written: its kind, where the info string and the TOML body are.
struct Block {
    info: String,
    info_span: Range<usize>,
    body: String,
    body_start: usize,
}

/// An event of the page, or a figure block gathered from its events.
enum Item<'s> {
    Event(Spanned<'s>),
    Figure(Block, Range<usize>),
}

/// Replaces every `figure` code block by its rendered figure.
pub fn rewrite<'s>(
    events: Vec<Spanned<'s>>,
    source: &str,
    unclosed: &[usize],
    scope: &PromptScopeView<'_>,
    (words, templates): (&Words, &Templates),
    problems: &mut Vec<Problem>,
    stats: &mut FigureStats<'_>,
) -> Vec<Spanned<'s>> {
    let items = gather(events, source, unclosed);
    let blocks = items.iter().filter_map(|item| match item {
        Item::Figure(block, _) => Some(block),
        Item::Event(_) => None,
    });
    let scales = scales::shared(blocks, scope, problems);
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Event(event) => out.push(event),
            Item::Figure(block, range) => {
                let html = render(&block, scope, &scales, (words, templates), problems, stats)
                    .or_else(|| failed_anchor(&block));
                if let Some(html) = html {
                    out.push((Event::Html(CowStr::from(html)), range));
                }
            }
        }
    }
    out
}

/// In place of a figure that failed (its error already reported), an empty element with its
/// `id`, so that a link to the figure is not reported missing as well: one mistake, one error.
/// A build with an error writes nothing, so the placeholder is never published.
fn failed_anchor(block: &Block) -> Option<String> {
    let table: toml::Table = toml::from_str(&block.body).ok()?;
    let id = table.get("id")?.as_str()?;
    crate::resolve::refs::valid_id(id).then(|| {
        format!("<figure class=\"tb-figure tb-figure-failed\" id=\"{id}\" hidden></figure>\n")
    })
}

/// The page's events with each figure block gathered into one item; blocks left unclosed
/// (already reported: the rest of the file is not a figure body worth reading) dropped.
fn gather<'s>(events: Vec<Spanned<'s>>, source: &str, unclosed: &[usize]) -> Vec<Item<'s>> {
    let mut items = Vec::with_capacity(events.len());
    let mut iter = events.into_iter();
    while let Some((event, range)) = iter.next() {
        let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) = &event else {
            items.push(Item::Event((event, range)));
            continue;
        };
        if info.split_whitespace().next() != Some("figure") {
            items.push(Item::Event((event, range)));
            continue;
        }
        let block = collect(info, source, range.clone(), &mut iter);
        if !unclosed.contains(&range.start) {
            items.push(Item::Figure(block, range));
        }
    }
    items
}

fn collect<'s>(
    info: &str,
    source: &str,
    range: Range<usize>,
    iter: &mut impl Iterator<Item = Spanned<'s>>,
) -> Block {
    let mut body = String::new();
    let mut body_start = None;
    for (event, text_range) in iter.by_ref() {
        match event {
            Event::End(TagEnd::CodeBlock) => break,
            Event::Text(text) => {
                body_start.get_or_insert(text_range.start);
                body.push_str(&text);
            }
            _ => {}
        }
    }
    let first_line = source[range.clone()].lines().next().unwrap_or_default();
    let info_start = range.start + first_line.find(info.trim()).unwrap_or(0);
    Block {
        info: info.to_string(),
        info_span: info_start..info_start + info.trim().len(),
        body,
        body_start: body_start.unwrap_or(range.end),
    }
}

/// A figure block read: its kind, its options for the figures crate, and its `id`.
struct Read<'b> {
    kind: &'b str,
    options: toml::Table,
    id: Option<String>,
}

/// The block's kind and TOML body, `id` taken out of the options.
fn read<'b>(block: &'b Block, own: &[String]) -> Result<Read<'b>, Problem> {
    let kind = kind(block, own)?;
    let mut options: toml::Table = toml::from_str(&block.body).map_err(|err| {
        let span = err.span().unwrap_or(0..0);
        let at = block.body_start + span.start..block.body_start + span.end;
        let message = format!(
            "the body of this figure is not valid TOML: {}",
            err.message().trim()
        );
        Problem::new(at, message)
            .with_hint("write one `key = value` per line, strings in double quotes")
    })?;
    // `id` names the figure for `{{ ref ID }}` (refs.rs); the figure itself never sees it.
    let id =
        match options.remove("id") {
            None => None,
            Some(toml::Value::String(id)) if crate::resolve::refs::valid_id(&id) => Some(id),
            Some(_) => return Err(Problem::new(
                key_span(block, "id"),
                "a figure's id is a word of letters, digits, `-` and `_`, starting with a letter",
            )
            .with_hint("e.g. id = \"fig-heads\"; `{{ ref fig-heads }}` then links to the figure")),
        };
    Ok(Read { kind, options, id })
}

fn render(
    block: &Block,
    scope: &PromptScopeView<'_>,
    scales: &scales::Shared,
    (words, templates): (&Words, &Templates),
    problems: &mut Vec<Problem>,
    stats: &mut FigureStats<'_>,
) -> Option<String> {
    let Read {
        kind,
        mut options,
        id,
    } = match read(block, &scope.own_kind_names()) {
        Ok(read) => read,
        Err(problem) => return fail(problems, problem),
    };
    if let Some(toml::Value::String(prompt)) = options.get("prompt") {
        match scope.resolve(prompt, key_span(block, "prompt")) {
            Ok(Some(_)) => {}
            Ok(None) => return None,
            Err(problem) => return fail(problems, problem),
        }
    }
    if let Err(problem) = picks_by_role(block, &mut options, scope) {
        return fail(problems, problem);
    }
    let asked = Asked::new(scope);
    let shared = scales.of(&options);
    // The site's own kinds are the site's to draw; the figures crate draws the built-in ones.
    let own = scope.own_kind(kind);
    let drawn = match (own, shared) {
        (Some(own), _) => own.render(&options, &asked),
        (None, Some(shared)) => tracebook_figures::render_shared(kind, &options, &asked, shared),
        (None, None) => tracebook_figures::render(kind, &options, &asked),
    };
    match drawn {
        Ok(mut figure) => {
            if let Some(broken) = figure.relations.iter().find_map(|r| r.check().err()) {
                // A kind's bug, not the author's: the figure would contradict itself.
                let problem = Problem::new(
                    block.info_span.clone(),
                    format!("this `{kind}` figure prints numbers that contradict each other: {broken}"),
                )
                .with_hint("this is a bug in tracebook's figure kind: please report it with the trace; until it is fixed, pick another token, head or layer");
                return fail(problems, problem);
            }
            stats.relations = std::mem::take(&mut figure.relations);
            if !stats.theme.is_default() {
                figure.svg = stats.theme.restyle(&figure.svg);
                figure.deferred = figure.deferred.map(|p| stats.theme.restyle(&p));
            }
            stats.count += 1;
            stats.models.extend(figure.models.iter().cloned());
            let file = format!("{}.figure-{}.svg", stats.page_stem, stats.count);
            let href = file.rsplit('/').next().unwrap_or(&file).to_string();
            if let Some(panels) = figure.deferred.take_if(|_| stats.inline_panels) {
                // In the figure's own numbers, as a figure of up to 16 panels keeps them.
                figure.live = figure.live_with("panels", &panels);
            }
            if let Some(panels) = figure.deferred.take() {
                // Beside the page: a script (not JSON) so that it loads from file:// too.
                let js = format!("{}.figure-{}.panels.js", stats.page_stem, stats.count);
                let js_href = js.rsplit('/').next().unwrap_or(&js).to_string();
                let name = tracebook_figures::json_string(&js_href);
                figure.live = figure.live_with("src", &name);
                stats
                    .files
                    .push((js, format!("tracebookPanels({name},{panels});\n")));
            }
            let anchor = id.unwrap_or_else(|| format!("figure-{}", stats.count));
            // An author's kind travels with its template, which the browser draws as the
            // build did.
            let try_button = follows_the_prompt(kind, figure.source)
                && stats.live.as_mut().is_some_and(|live| {
                    let page_figure = PageFigure {
                        id: anchor.clone(),
                        kind: kind.to_string(),
                        options: block.body.clone(),
                        prompt: String::new(),
                        scale: shared.cloned(),
                        picks: Vec::new(),
                        own: own.map(|k| k.source()),
                    };
                    live.offer(page_figure, &asked) && live.per_figure
                });
            // Under a figure of one prompt that a reader's run leaves the author's, the page
            // says why.
            let why = (kind == "patching").then_some("patching");
            if let (Some(why), Some(live), Some(toml::Value::String(prompt))) =
                (why, stats.live.as_mut(), options.get("prompt"))
            {
                live.kept.push(crate::render::live_page::Kept {
                    id: anchor.clone(),
                    prompt: prompt.clone(),
                    why,
                });
            }
            let placed = FigureContext {
                kind: kind.to_string(),
                number: stats.count,
                id: anchor,
                // A fragment needs no other file: no link to one beside the page.
                download: if stats.inline_panels {
                    String::new()
                } else {
                    href
                },
                try_prompt: try_button,
                ..FigureContext::default()
            };
            let html = match wrap(templates, words, &figure, placed) {
                Ok(html) => html,
                Err(error) => {
                    stats.template_errors.push(error);
                    return None;
                }
            };
            stats.files.push((file, standalone(&figure)));
            Some(html)
        }
        Err(err) => {
            let span = err
                .key
                .as_deref()
                .map_or(block.info_span.clone(), |k| key_span(block, k));
            problems.push(Problem::new(span, err.message).with_optional_hint(err.hint));
            // The build fails with this error; the figure's anchor stays, so that links to
            // it are not reported a second time as pointing nowhere.
            stats.count += 1;
            let anchor = id.unwrap_or_else(|| format!("figure-{}", stats.count));
            Some(format!(
                "<figure id=\"{}\" hidden></figure>",
                crate::base::escape::html(&anchor)
            ))
        }
    }
}

/// Options that pick a position by role (`token = "last() - 1"`, `token = 'pos(" it")'`)
/// resolved on the trace of the figure's prompt; the page's live data keeps the role as
/// written, for the reader's session to resolve on the reader's trace.
fn picks_by_role(
    block: &Block,
    options: &mut toml::Table,
    traces: &dyn tracebook_figures::Traces,
) -> Result<(), Problem> {
    let Some(toml::Value::String(prompt)) = options.get("prompt").cloned() else {
        return Ok(());
    };
    let Some(trace) = traces.get(&prompt) else {
        return Ok(());
    };
    tracebook_claims::roles::resolve(options, trace, &prompt)
        .map(|_| ())
        .map_err(|(key, problem)| {
            Problem::new(
                key_span(block, key),
                format!("`{key}` names no position here: {}", problem.message),
            )
            .with_optional_hint(problem.hint)
        })
}

/// Whether a figure changes with the prompt, so that a reader's own prompt may redraw it:
/// only one drawn from what the model did on the prompt, not one of the model's sizes, of a
/// formula, or of the training log (which a trace carries, the same for every prompt). Nor
/// patching: it pairs the prompt with an author's corrupted text of as many tokens, which a
/// reader's text would not match.
fn follows_the_prompt(kind: &str, source: tracebook_figures::Source) -> bool {
    source == tracebook_figures::Source::Traced && !matches!(kind, "training" | "patching")
}

fn fail(problems: &mut Vec<Problem>, problem: Problem) -> Option<String> {
    problems.push(problem);
    None
}

/// The kind after `figure`, checked against the kinds the figures crate draws and the site's
/// own (`own`).
fn kind<'b>(block: &'b Block, own: &[String]) -> Result<&'b str, Problem> {
    let mut words = block.info.split_whitespace();
    words.next();
    let kinds: Vec<&str> = (tracebook_figures::kinds().iter().copied())
        .chain(own.iter().map(String::as_str))
        .collect();
    let kinds = &kinds[..];
    let Some(kind) = words.next() else {
        let hint = format!(
            "write ```figure KIND, where KIND is one of: {}",
            suggest::quoted_list(kinds)
        );
        return Err(
            Problem::new(block.info_span.clone(), "this figure block names no kind")
                .with_hint(hint),
        );
    };
    if !kinds.contains(&kind) {
        let at = block.info.find(kind).map_or(0, |i| i) + block.info_span.start;
        let all = format!(
            "`tracebook figures` lists all {} with their options",
            kinds.len()
        );
        let hint = match suggest::hint(kind, kinds, "figure kinds are") {
            Some(hint) => format!("{hint} ({all})"),
            None => all,
        };
        return Err(
            Problem::new(at..at + kind.len(), format!("unknown figure kind `{kind}`"))
                .with_hint(hint),
        );
    }
    Ok(kind)
}

/// The body range from `key` to the end of its value (the info string if the key is absent).
fn key_span(block: &Block, key: &str) -> Range<usize> {
    let Ok(table) = DeTable::parse(&block.body) else {
        return block.info_span.clone();
    };
    table
        .get_ref()
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == key)
        .map_or(block.info_span.clone(), |(k, v)| {
            block.body_start + k.span().start..block.body_start + v.span().end
        })
}

/// `<figure>` with the SVG, its description for screen readers, the numbers its controls
/// redraw it from (for the page's script, `tracebook.js`; inert without it), and a caption
/// that says which model made the trace: the `partials/figure.html` template, which a theme
/// may replace.
fn wrap(
    templates: &Templates,
    words: &Words,
    figure: &tracebook_figures::Figure,
    placed: FigureContext,
) -> Result<String, Diagnostic> {
    let models: Vec<String> = figure.models.iter().map(|m| escape::html(m)).collect();
    let placed = FigureContext {
        alt: figure.alt.clone(),
        svg: figure.svg.clone(),
        // `<\/` keeps the JSON (numbers and base64 only) from ever closing the script element.
        live: figure
            .live
            .as_deref()
            .map(|json| json.replace("</", "<\\/")),
        caption: figure.caption.clone(),
        source: figure.source.sentence(&models),
        ..placed
    };
    let mut cx = tera::Context::new();
    cx.insert("figure", &placed);
    cx.insert("words", words);
    let mut html = templates.render("partials/figure.html", &cx)?;
    if !html.ends_with('\n') {
        html.push('\n');
    }
    Ok(html)
}

/// `figure` in `partials/figure.html`.
#[derive(Serialize, Default)]
struct FigureContext {
    /// The figure kind (`attention`).
    kind: String,
    /// Its number on the page, from 1.
    number: usize,
    /// The `<figure>`'s id: the block's `id`, or `figure-N`.
    id: String,
    /// What the figure shows, in words (for `aria-label`).
    alt: String,
    /// The SVG (HTML: write it with `| safe`).
    svg: String,
    /// The JSON its controls redraw it from, if it has controls (`| safe`).
    live: Option<String>,
    /// The block's `caption`, as written.
    caption: Option<String>,
    /// The sentence naming the model (HTML: `| safe`).
    source: String,
    /// The standalone SVG file's name, beside the page.
    download: String,
    /// Whether to offer the reader's own prompt (`[live]`).
    try_prompt: bool,
}

/// A figure as a file of its own, for slides and papers: the same SVG with an XML declaration,
/// so image viewers and editors open it (its style sheet is inside it), and its caption and the
/// sentence naming the model drawn below it, so the credit travels with the picture.
fn standalone(figure: &tracebook_figures::Figure) -> String {
    let credit = figure
        .source
        .sentence(&figure.models)
        .replace("<code>", "")
        .replace("</code>", "");
    let text = match figure.caption.as_deref() {
        Some(caption) => format!("{caption} {credit}"),
        None => credit,
    };
    let svg = with_footer(&figure.svg, &text).unwrap_or_else(|| figure.svg.clone());
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{svg}\n")
}

/// `svg` made taller by the lines of `text`, drawn under the figure; None when the root has no
/// `viewBox="0 0 W H"` to extend.
fn with_footer(svg: &str, text: &str) -> Option<String> {
    const LINE: f64 = 15.0;
    let start = svg.find("viewBox=\"")? + "viewBox=\"".len();
    let end = start + svg[start..].find('"')?;
    let numbers: Vec<f64> = svg[start..end]
        .split_whitespace()
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    let [x, y, width, height] = numbers[..] else {
        return None;
    };
    // About 6.2 px per character at 11 px sans-serif.
    let per_line = ((width - 16.0) / 6.2).max(20.0) as usize;
    let lines = text_lines(text, per_line);
    let footer = 10.0 + LINE * lines.len() as f64;
    let mut out = format!(
        "{}viewBox=\"{x} {y} {width} {}\"{}",
        &svg[..start - "viewBox=\"".len()],
        height + footer,
        &svg[end + 1..]
    );
    let close = out.rfind("</svg>")?;
    let mut g = String::from(
        "<g class=\"tb-standalone-caption\" font-family=\"system-ui, sans-serif\" font-size=\"11\" fill=\"#555\">",
    );
    for (i, line) in lines.iter().enumerate() {
        g.push_str(&format!(
            "<text x=\"{}\" y=\"{}\">{}</text>",
            x + 8.0,
            y + height + 6.0 + LINE * (i as f64 + 0.8),
            escape::html(line)
        ));
    }
    g.push_str("</g>");
    out.insert_str(close, &g);
    Some(out)
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn text_lines(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod offer_tests {
    use super::follows_the_prompt;
    use tracebook_figures::Source;

    #[test]
    fn only_figures_of_the_prompt_offer_the_readers_own() {
        assert!(follows_the_prompt("attention", Source::Traced));
        assert!(follows_the_prompt("loss", Source::Traced));
        assert!(!follows_the_prompt("training", Source::Traced));
        assert!(!follows_the_prompt("architecture", Source::Config));
        assert!(!follows_the_prompt("sinusoidal", Source::Computed));
    }
}
