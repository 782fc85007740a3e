//! `figure generation`: the autoregressive loop, from `meta.generation`. The prompt with
//! its continuation, then one row per step: the token chosen, its probability as a bar,
//! its rank among the candidates (a sampler may pick one that is not the likeliest), and
//! the likeliest alternatives it beat, each with its probability: as many of the first
//! `alternatives` as fit whole in a phone's width.
//!
//! Options: `prompt` (a prompt with `generate = N`), `caption`, `steps` (rows shown,
//! default 12, at most 32), `alternatives` (per row, default 2, at most 3).
//!
//! On a page with scripts, a step slider replays the loop: rows after the chosen step are
//! hidden and the continuation shows the tokens generated so far.
//!
//! An encoder-decoder's trace (Marian, BART) draws its translation: a `source` line with
//! the prompt (the source text) above a `translation` line of the tokens the decoder wrote,
//! and one row per token it wrote.

use crate::chart::{bar_column, bar_text_width, label_column, Bar};
use crate::draw::{note, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::percent;
use crate::kinds::strips::WIDTH;
use crate::live::json_string;
use crate::options::{Block, Int};
use crate::relations::{printed, Relation};
use crate::sampler::Rules;
use crate::svg::{text_width, wide_width, Canvas, Css, Element, Font, WIDE_FONT};
use crate::token_text::{cut, cut_start, one_line, titled, visible, Shown};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::{GenerationStep, PromptSpec};

pub const KIND: &str = "generation";

const PITCH: f64 = 22.0;
const TOP: f64 = 62.0;
/// An encoder-decoder's figure: the source's line above the translation's moves the rows down.
const SOURCE_LINE: f64 = 18.0;
/// Where a line's text starts after its label (`source`, `translation`).
const LINE_TEXT: f64 = 72.0;

/// The options of `generation`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    steps: Int<1, 32, 12>,
    #[serde(default)]
    alternatives: Int<0, 3, 2>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let generation = &prompt.trace.meta.generation;
    if generation.is_empty() {
        return Err(FigureError::at(
            "prompt",
            format!("the prompt \"{}\" generates no tokens", prompt.name),
        )
        .with_hint(format!(
            "define it as a table with generate, e.g. {} = {{ text = \"...\", generate = 8 }}, \
             and run `tracebook trace --only {}`",
            prompt.name, prompt.name
        )));
    }
    let steps = block.options.steps.get();
    let alternatives = block.options.alternatives.get();
    let shown = &generation[..steps.min(generation.len())];
    let text_prompt = one_line(&prompt.trace.meta.prompt.text);
    let continuation: String = generation.iter().map(|s| s.text.as_str()).collect();
    let sampler = sampler_rules(&prompt.trace.meta.prompt);
    let translated = prompt.trace.meta.translation.is_some();
    let (mut body, top) = match translated {
        false => (headline(&text_prompt, &one_line(&continuation)), TOP),
        true => (
            translation_lines(&text_prompt, &one_line(&continuation)),
            TOP + SOURCE_LINE,
        ),
    };
    let (drawn, relations) = rows(shown, alternatives, sampler.is_some(), top);
    body.extend(drawn);
    let mut bottom = top + shown.len() as f64 * PITCH + 6.0;
    for line in notes(shown.len(), generation.len(), sampler) {
        bottom += 12.0;
        body.push(note(line, 0.0, bottom));
    }
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: bottom + 8.0,
        title: title(&text_prompt, generation.len(), translated),
        desc: describe(&text_prompt, &continuation, generation, translated),
        css: Css::default(),
    };
    let texts: Vec<String> = shown
        .iter()
        .map(|s| json_string(&one_line(&s.text)))
        .collect();
    let json = format!(
        "{{\"kind\":\"steps\",\"top\":{top},\"pitch\":{PITCH},\"texts\":[{}]}}",
        texts.join(",")
    );
    Ok(Figure::new(canvas, body, caption, &prompt)
        .with_live(json)
        .with_relations(relations))
}

/// What a reader can check in a row: the chosen token and the alternatives printed after it
/// are in the order of the step's candidates, so their probabilities fall with their rank
/// (the chosen one's in its place; past the list, after them all).
fn ranked(step: &GenerationStep, alternatives: usize) -> Relation {
    let mut by_rank: Vec<(usize, f32)> = others(step, alternatives)
        .map(|c| (c.rank, c.prob))
        .collect();
    by_rank.push((rank(step), step.prob));
    by_rank.sort_by_key(|&(r, _)| r);
    Relation::Order {
        values: (by_rank.iter())
            .map(|&(_, p)| percent(f64::from(p)))
            .filter(|p| printed(p).is_some())
            .collect(),
        descending: true,
    }
}

/// A candidate the row lists after the chosen token: its rank among the step's candidates.
struct Other<'s> {
    rank: usize,
    text: &'s str,
    prob: f32,
}

/// The step's likeliest candidates other than the chosen token, up to `most`.
fn others(step: &GenerationStep, most: usize) -> impl Iterator<Item = Other<'_>> {
    (step.top.iter().enumerate())
        .filter(|(_, c)| c.id != step.id)
        .take(most)
        .map(|(i, c)| Other {
            rank: i + 1,
            text: &c.text,
            prob: c.prob,
        })
}

/// The lines under the rows: how many steps are shown of all, and how the tokens were
/// sampled, if they were.
fn notes(shown: usize, all: usize, sampler: Option<String>) -> Vec<String> {
    let mut notes = Vec::new();
    if shown < all {
        notes.push(format!("showing the first {shown} of {all} steps"));
    }
    if let Some(rules) = sampler {
        notes.push(format!("sampled: {rules}"));
        notes.push("the bars: the model's own p, at temperature 1".to_string());
    }
    notes
}

/// The end of the prompt, muted, then the continuation in the accent colour, on one line
/// (cut from the left when long).
fn headline(prompt_text: &str, continuation: &str) -> Vec<Element> {
    let room = WIDTH - text_width(continuation, Font::Mono, 12.0).min(WIDTH * 0.6);
    let shown_prompt = cut_start(prompt_text, room, Font::Mono, 12.0);
    let generated = cut(continuation, WIDTH * 0.6, Font::Mono, 12.0);
    let line = text(0.0, 14.0).class("tbf-m").attr("font-size", 12.0);
    let line = titled(
        line,
        &format!("{shown_prompt}{generated}"),
        &format!("{prompt_text}{continuation}"),
    )
    .child(Element::new("tspan").class("tbf-dim").text(shown_prompt))
    .child(
        Element::new("tspan")
            .class("tbf-acc tbf-b")
            .attr("data-tb-gen", 0)
            .text(generated),
    );
    vec![line]
}

/// An encoder-decoder's two lines: the source text (the prompt), then the translation the
/// decoder wrote in the accent colour (what the step slider grows), each cut to fit after
/// its label.
fn translation_lines(source: &str, translation: &str) -> Vec<Element> {
    let source_y = 14.0;
    let target_y = source_y + SOURCE_LINE;
    let written = Element::new("tspan")
        .class("tbf-acc tbf-b")
        .attr("data-tb-gen", 0);
    let mut lines = Vec::from(labelled_line(
        source_y,
        "source",
        source,
        Element::new("tspan"),
    ));
    lines.extend(labelled_line(target_y, "translation", translation, written));
    lines
}

/// A muted `label` at the left of the line at `y`, then `full` in `span`, cut to fit.
fn labelled_line(y: f64, label: &str, full: &str, span: Element) -> [Element; 2] {
    let shown = cut(full, WIDTH - LINE_TEXT, Font::Mono, 12.0);
    let line = text(LINE_TEXT, y).class("tbf-m").attr("font-size", 12.0);
    [
        text(0.0, y).class("tbf-s tbf-dim").text(label),
        titled(line, &shown, full).child(span.text(shown)),
    ]
}

/// The figure's title.
fn title(prompt_text: &str, steps: usize, translated: bool) -> String {
    match translated {
        false => format!("Generating {steps} tokens after “{prompt_text}”"),
        true => format!("Translating “{prompt_text}”: the decoder writes {steps} tokens"),
    }
}

/// The sampler's settings ("temperature 0.8, top_k 40, seed 1") when the continuation was
/// sampled; `None` when it was greedy (no temperature, or 0), where the chosen token is the
/// likeliest and its bar is the probability it was chosen with.
fn sampler_rules(spec: &PromptSpec) -> Option<String> {
    let options = &spec.options;
    let rules = Rules {
        temperature: options.temperature.filter(|&t| t > 0.0)?,
        top_k: options.top_k,
        top_p: options.top_p,
    }
    .describe();
    Some(match options.seed {
        Some(seed) => format!("{rules}, seed {seed}"),
        None => rules,
    })
}

/// Right edge of the chosen tokens, and where their bars start.
const CHOSEN: f64 = 100.0;
/// A bar at probability 1.
const BAR: f64 = 56.0;
/// The shortest a bar at probability 1 gets, to leave the likeliest others room.
const MIN_BAR: f64 = 32.0;

/// The column titles and a row per step: its number, the chosen token with its probability
/// as a bar, and the likeliest others (as many of `alternatives` as fit), each with its
/// probability; with what a reader can check in each row (see [`ranked`]).
fn rows(
    steps: &[GenerationStep],
    alternatives: usize,
    sampled: bool,
    top: f64,
) -> (Vec<Element>, Vec<Relation>) {
    let labels: Vec<Shown> = steps
        .iter()
        .map(|s| Shown::fit(&s.text, CHOSEN - 24.0, Font::Mono, 12.0))
        .collect();
    let bars: Vec<Bar> = steps.iter().map(chosen_bar).collect();
    // The others start after the widest probability written after its bar; the bars
    // shorten (to MIN_BAR) as far as it takes for every row's likeliest other to fit whole.
    let after_bar = 4.0 + bar_text_width(&bars) + 10.0;
    let first_other = steps
        .iter()
        .map(|s| {
            wide_width(
                &joined(&others_of(s, alternatives.min(1))),
                Font::Sans,
                12.0,
            )
        })
        .fold(0.0, f64::max);
    let bar = (WIDTH - CHOSEN - 6.0 - after_bar - first_other - 1.0).clamp(MIN_BAR, BAR);
    let others_x = CHOSEN + 6.0 + bar + after_bar;
    let mut relations = Vec::new();
    let mut numbers = Element::new("g").class("tbf-s tbf-dim");
    let mut others = Element::new("g").class("tbf-s");
    for (i, step) in steps.iter().enumerate() {
        let y = top + i as f64 * PITCH + 12.0;
        numbers.push(text(0.0, y).text((i + 1).to_string()));
        let (list, kept) = fitting_others(step, alternatives, WIDTH - others_x);
        relations.push(ranked(step, kept));
        if !list.is_empty() {
            others.push(text(others_x, y).text(list));
        }
    }
    let mut heads = Element::new("g").class("tbf-s tbf-dim");
    heads.push(text(0.0, top - 10.0).text("step"));
    let chosen = if sampled { "p (T = 1)" } else { "probability" };
    heads.push(text(CHOSEN + 6.0, top - 24.0).text("chosen,"));
    heads.push(text(CHOSEN + 6.0, top - 10.0).text(chosen));
    if alternatives > 0 {
        heads.push(text(others_x, top - 24.0).text("likeliest"));
        heads.push(text(others_x, top - 10.0).text("others"));
    }
    let drawn = vec![
        heads,
        numbers,
        label_column(&labels, CHOSEN, top, PITCH, 12.0),
        bar_column(&bars, CHOSEN + 6.0, bar, 1.0, top, PITCH),
        others,
    ];
    (drawn, relations)
}

/// The chosen token's probability as a bar, with its rank when it was not the likeliest.
fn chosen_bar(s: &GenerationStep) -> Bar {
    let suffix = match rank(s) {
        1 => String::new(),
        r if r <= s.top.len() => format!(" (#{r})"),
        // Ranked as "(#9)" is, in few characters: past the recorded candidates.
        _ => format!(" (#{}+)", s.top.len() + 1),
    };
    Bar {
        value: f64::from(s.prob),
        text: format!("{}{suffix}", percent(f64::from(s.prob))),
        strong: rank(s) == 1,
    }
}

/// The step's likeliest other candidates, up to `most`, every one with its probability in
/// full: where they do not fit `room`, the longest token texts are cut (with "…") to one
/// length, so the row shows as many alternatives as the figure promises.
fn fitting_others(step: &GenerationStep, most: usize, room: f64) -> (String, usize) {
    let mut items = others_of(step, most);
    // Whole tokens only: the likeliest alternatives that fit, the first one cut if alone it
    // does not (a cut token a reader cannot name says nothing).
    while items.len() > 1 && wide_width(&joined(&items), Font::Sans, 12.0) > room {
        items.pop();
    }
    let full = joined(&items);
    if wide_width(&full, Font::Sans, 12.0) <= room {
        return (full, items.len());
    }
    let width = |t: &str| text_width(t, Font::Sans, 12.0);
    let fixed: f64 = items.iter().map(|(_, p)| width(p)).sum::<f64>();
    let tokens: Vec<f64> = items.iter().map(|(t, _)| width(t)).collect();
    let cap = equal_cap(&tokens, room / WIDE_FONT - fixed);
    let cut_items: Vec<(String, String)> = (items.into_iter())
        .map(|(t, p)| (cut(&t, cap, Font::Sans, 12.0), p))
        .collect();
    (joined(&cut_items), cut_items.len())
}

/// Between two alternatives in a row.
const GAP: &str = "  ";

/// The alternatives a row lists: each token's text and its probability after a space.
fn others_of(step: &GenerationStep, most: usize) -> Vec<(String, String)> {
    others(step, most)
        .map(|c| (visible(c.text), format!(" {}", percent(f64::from(c.prob)))))
        .collect()
}

/// The alternatives as the row prints them: "·time 3.8%  - 2.6%".
fn joined(items: &[(String, String)]) -> String {
    let items: Vec<String> = items.iter().map(|(t, p)| format!("{t}{p}")).collect();
    items.join(GAP)
}

/// The largest length `cap` such that the `widths`, each cut to at most `cap`, add up to no
/// more than `room`.
fn equal_cap(widths: &[f64], room: f64) -> f64 {
    let mut sorted = widths.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut left = room;
    for (i, w) in sorted.iter().enumerate() {
        let share = left / (sorted.len() - i) as f64;
        if *w > share {
            return share;
        }
        left -= w;
    }
    f64::INFINITY
}

/// 1 for the likeliest candidate; the step's place among its candidates otherwise
/// (one past the list if it is not among them).
pub fn rank(step: &GenerationStep) -> usize {
    step.top
        .iter()
        .position(|c| c.id == step.id)
        .map_or(step.top.len() + 1, |i| i + 1)
}

fn describe(
    prompt_text: &str,
    continuation: &str,
    steps: &[GenerationStep],
    translated: bool,
) -> String {
    let list: Vec<String> = steps
        .iter()
        .map(|s| {
            let note = match rank(s) {
                1 => String::new(),
                r if r <= s.top.len() => format!(", its #{r} candidate"),
                _ => format!(", not among its {} likeliest", s.top.len()),
            };
            format!("{:?} ({}{note})", s.text, percent(f64::from(s.prob)))
        })
        .collect();
    match translated {
        false => format!(
            "The model continued {prompt_text:?} one token at a time, feeding each choice back \
             in: {}. The continuation: {continuation:?}.",
            list.join(", ")
        ),
        true => format!(
            "The encoder read the source {prompt_text:?}; the decoder translated it one token \
             at a time, feeding each choice back in: {}. The translation: {continuation:?}.",
            list.join(", ")
        ),
    }
}

#[cfg(test)]
#[path = "generation_tests.rs"]
mod tests;
