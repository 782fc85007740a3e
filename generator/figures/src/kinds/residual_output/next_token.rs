//! `figure next-token`: the model's k likeliest next tokens after the prompt (or after
//! any token of it), as horizontal bars labelled with the token text and its probability.
//! Probabilities are exact at every position (see [`crate::candidates`]).
//!
//! Options: `prompt`, `caption`, `k` (bars, default 10, at most the trace's top_k),
//! `position` (the token after which to predict, default -1, the last), `scale` ("top":
//! the likeliest token's bar spans the width, default; "full": the width is 100%).
//!
//! On a page with scripts, a figure of the last position gets a temperature slider, a
//! top-k box and a top-p slider; the bars then show the probability each token is drawn
//! with under those rules, from numbers embedded at build time (see [`crate::live`]).

use crate::candidates;
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{percent, thousands};
use crate::live::{Live, LiveCache};
use crate::options::{capped, choice, Block, PositionKey, TopK};
use crate::relations::{ranked_whole, Relation};
use crate::svg::{number, text_width, Canvas, Css, Element, Font};
use crate::token_text::{cut_start, one_line, titled, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "next-token";

const WIDTH: f64 = crate::svg::FIGURE_WIDTH;
const LABEL_SIZE: f64 = 14.0;
const ROW: f64 = 26.0;
const BAR: f64 = 18.0;
const TOP: f64 = 34.0;
const PERCENT_ROOM: f64 = 60.0;

/// One bar: a candidate token and its probability.
#[derive(Debug, Clone, PartialEq)]
struct Bar {
    text: String,
    prob: f64,
}

choice! {
    /// The bars' scale: the largest shown probability, or 100%.
    enum Scale { Top = "top", Full = "full" } default Top
}

/// The options of `next-token`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    k: Option<TopK>,
    #[serde(default)]
    position: PositionKey,
    #[serde(default)]
    scale: Scale,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let position = block.token(block.options.position)?.0;
    let (prompt, caption) = (block.prompt, block.caption);
    let tokens = prompt.tokens()?;
    let distribution = candidates::at(&prompt, position)?;
    let stored = distribution.candidates.len();
    let k = capped(block.options.k, 10, stored).map_err(|e| {
        e.with_hint(format!(
            "k must be between 1 and {stored}: the trace keeps the top {stored} candidates; \
                 raise top_k under [trace] in tracebook.toml and re-run `tracebook trace` for more"
        ))
    })?;
    let full_scale = block.options.scale == Scale::Full;
    let bars: Vec<Bar> = distribution.candidates[..k]
        .iter()
        .map(|c| Bar {
            text: c.text.clone(),
            prob: c.prob,
        })
        .collect();
    let vocab = distribution.vocab;
    let text = &prompt.trace.meta.prompt.text;
    let context = text.get(..tokens[position].end).unwrap_or(text);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: TOP + bars.len() as f64 * ROW + 20.0,
        title: format!("Next-token probabilities after \"{}\"", one_line(context)),
        desc: describe(context, &bars, vocab),
        css: Css::default(),
    };
    let (body, columns) = draw(context, &bars, vocab, full_scale);
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations(&bars));
    Ok(match distribution.all_logits {
        Some(logits) => {
            figure.with_live(live_json(&logits, bars.len(), columns, traces.live_cache()))
        }
        None => figure,
    })
}

/// The controls' numbers: the distribution at every stop, and where the bars go.
fn live_json(logits: &[f32], rows: usize, columns: Columns, cache: Option<&LiveCache>) -> String {
    let live = Live::new(logits, &[1.0], &[], cache);
    format!(
        "{{\"kind\":\"{KIND}\",\"rows\":{rows},\"t\":{},\"k\":0,\"p\":-1,\"room\":{},\
         \"full\":{},\"gap\":6,{}}}",
        live.temp_stop(1.0),
        number(columns.room, 2),
        columns.full_scale,
        live.json_fields()
    )
}

/// Where the bars go: labels end at `bar_x - 8`, bars start at `bar_x` and are at most `room` long.
#[derive(Debug, Clone, Copy)]
struct Columns {
    bar_x: f64,
    room: f64,
    /// Probability that fills `room`.
    scale: f64,
    full_scale: bool,
}

fn draw(
    prompt_text: &str,
    bars: &[Bar],
    vocab: usize,
    full_scale: bool,
) -> (Vec<Element>, Columns) {
    let labels: Vec<Shown> = bars
        .iter()
        .map(|b| Shown::fit(&b.text, WIDTH * 0.36, Font::Mono, LABEL_SIZE))
        .collect();
    let label_width = labels
        .iter()
        .map(|l| text_width(&l.text(), Font::Mono, LABEL_SIZE))
        .fold(24.0, f64::max);
    let bar_x = label_width + 10.0;
    let top = bars.first().map_or(1.0, |b| b.prob);
    let columns = Columns {
        bar_x,
        room: WIDTH - bar_x - PERCENT_ROOM,
        scale: if full_scale {
            1.0
        } else {
            top.max(f64::MIN_POSITIVE)
        },
        full_scale,
    };
    let mut body = vec![context(prompt_text)];
    body.extend(rows(bars, &labels, columns));
    body.push(
        Element::new("text")
            .class("tbf-s tbf-dim")
            .attr("x", bar_x)
            .attr("y", TOP + bars.len() as f64 * ROW + 8.0)
            .attr("data-tb-note", 0)
            .text(rest_note(bars, vocab)),
    );
    (body, columns)
}

/// The end of the prompt on one line, then an accent blank for the token being predicted.
fn context(prompt_text: &str) -> Element {
    let line = one_line(prompt_text);
    let shown = cut_start(&line, WIDTH - 40.0, Font::Mono, 13.0);
    let end = text_width(&shown, Font::Mono, 13.0) + 4.0;
    let drawn = Element::new("text")
        .class("tbf-m tbf-dim")
        .attr("x", 0.0)
        .attr("y", 15.0)
        .attr("font-size", 13.0);
    Element::new("g")
        .child(titled(drawn, &shown, &line).text(shown.clone()))
        .child(
            Element::new("rect")
                .class("tbf-bar")
                .attr("x", end)
                .attr("y", 14.0)
                .attr("width", 26.0)
                .attr("height", 3.0)
                .attr("rx", 1.5),
        )
}

/// Labels, bars and percentages, each a group so shared attributes are written once.
/// The likeliest token's bar is solid and its percentage bold; the rest are lighter.
fn rows(bars: &[Bar], labels: &[Shown], columns: Columns) -> Vec<Element> {
    let Columns {
        bar_x,
        room,
        scale,
        full_scale,
    } = columns;
    let mut texts = Element::new("g").class("tbf-m").attr("text-anchor", "end");
    let mut tracks = Element::new("g").class("tbf-track");
    let mut rects = Element::new("g").class("tbf-bar2");
    let mut percents = Element::new("g").class("tbf-dim");
    for (i, (bar, label)) in bars.iter().zip(labels).enumerate() {
        let y = TOP + i as f64 * ROW;
        let length = (bar.prob / scale * room).clamp(1.0, room);
        texts.push(label.append_to(text_at(None, bar_x - 8.0, y + 13.5)));
        tracks.push(rect(None, bar_x, y, room));
        let likeliest = i == 0;
        rects.push(rect(likeliest.then_some("tbf-bar"), bar_x, y, length).attr("data-tb-bar", i));
        let percent_text = text_at(likeliest.then_some("tbf-b"), bar_x + length + 6.0, y + 13.5);
        percents.push(percent_text.attr("data-tb-pct", i).text(percent(bar.prob)));
    }
    let mut groups = vec![texts];
    if full_scale {
        groups.push(tracks);
    }
    groups.extend([rects, percents]);
    groups
}

fn with_class(name: &'static str, class: Option<&str>) -> Element {
    match class {
        Some(class) => Element::new(name).class(class),
        None => Element::new(name),
    }
}

/// An empty `<text>` at `(x, y)`, with `class` if given.
fn text_at(class: Option<&str>, x: f64, y: f64) -> Element {
    with_class("text", class).attr("x", x).attr("y", y)
}

/// A bar-high rectangle, with `class` if given.
fn rect(class: Option<&str>, x: f64, y: f64, width: f64) -> Element {
    with_class("rect", class)
        .attr("x", x)
        .attr("y", y)
        .attr("width", width)
        .attr("height", BAR)
        .attr("rx", 2.0)
}

/// What a reader can check: the bars' percentages fall from the top, and with what the
/// others share they make 100% (where every one is a number, not "<0.01%").
fn relations(bars: &[Bar]) -> Vec<Relation> {
    let shown: Vec<String> = bars.iter().map(|b| percent(b.prob)).collect();
    ranked_whole(shown, percent(rest(bars)))
}

/// What the tokens not shown share.
fn rest(bars: &[Bar]) -> f64 {
    let covered: f64 = bars.iter().map(|b| b.prob).sum();
    (1.0 - covered).max(0.0)
}

/// "the other 50,247 tokens share 41.3%".
fn rest_note(bars: &[Bar], vocab: usize) -> String {
    format!(
        "the other {} tokens share {}",
        thousands(vocab.saturating_sub(bars.len())),
        percent(rest(bars))
    )
}

fn describe(prompt_text: &str, bars: &[Bar], vocab: usize) -> String {
    let list: Vec<String> = bars
        .iter()
        .map(|b| format!("{:?} {}", b.text, percent(b.prob)))
        .collect();
    format!(
        "The {} likeliest next tokens after {:?}: {}; {}.",
        bars.len(),
        prompt_text,
        list.join(", "),
        rest_note(bars, vocab)
    )
}

#[cfg(test)]
#[path = "next_token_tests.rs"]
mod tests;
