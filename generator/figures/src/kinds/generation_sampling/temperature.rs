//! `figure temperature`: the same next-token distribution at several temperatures side by
//! side. Sampling divides every logit by the temperature T before the softmax, so
//! p_T(i) = exp(l_i / T) / Σ_j exp(l_j / T) over all V logits (`logits.last`, kept at
//! the last position); T = 0 means greedy: the likeliest token gets everything.
//!
//! Options: `prompt`, `caption`, `temperatures` (1 to 4 numbers from 0 to 10, default
//! [0.5, 1.0, 2.0]), `k` (tokens shown, the likeliest at T = 1, default 8, at most the
//! trace's top_k).
//!
//! On a page with scripts, a temperature slider sets the last column's temperature (0 to
//! 2 in steps of 0.1, plus the columns' own), from numbers embedded at build time that
//! keep every shown probability exact (see [`crate::live`]).

use crate::candidates;
use crate::chart::{bar_column_tagged, label_column, Bar};
use crate::draw::{note, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{percent, thousands};
use crate::kinds::strips::WIDTH;
use crate::live::{json_numbers, Live};
use crate::options::{capped, Block, Temperatures, TopK};
use crate::relations::{ranked_whole, Relation};
use crate::sampler::{column, Column};
use crate::svg::{number, text_width, Canvas, Css, Element, Font};
use crate::token_text::{one_line, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "temperature";

const PITCH: f64 = 22.0;
const TOP: f64 = 44.0;

/// The options of `temperature`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    temperatures: Temperatures,
    k: Option<TopK>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let temperatures = block.options.temperatures.0;
    let n = prompt.tokens()?.len();
    let distribution = candidates::at(&prompt, n - 1)?;
    let stored = distribution.candidates.len();
    let k = capped(block.options.k, 8, stored)?;
    let shown = &distribution.candidates[..k];
    let ids: Vec<u32> = shown.iter().map(|c| c.id).collect();
    let logits = distribution.all_logits.unwrap_or_default();
    let columns: Vec<Column> = temperatures
        .iter()
        .map(|&t| column(&logits, &ids, t))
        .collect();
    let labels: Vec<Shown> = shown
        .iter()
        .map(|c| Shown::fit(&c.text, 100.0, Font::Mono, 12.0))
        .collect();
    let layout = Layout::of(&labels, &columns, k);
    let text_prompt = one_line(&prompt.trace.meta.prompt.text);
    let mut body = vec![super::after_line(&text_prompt, WIDTH, 14.0)];
    body.push(label_column(&labels, layout.left - 6.0, TOP, PITCH, 12.0));
    for (i, c) in columns.iter().enumerate() {
        body.extend(layout.column(i, c));
    }
    let others = thousands(distribution.vocab - k);
    body.push(note(
        format!("each logit ÷ T, then softmax · others: the other {others} tokens"),
        0.0,
        layout.bottom + 32.0,
    ));
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: layout.bottom + 40.0,
        title: format!("Temperature: the next token after “{text_prompt}”"),
        desc: describe(
            &text_prompt,
            shown.first().map_or("", |c| c.text.as_str()),
            &columns,
        ),
        css: Css::default(),
    };
    let live = Live::new(&logits, &temperatures, &[], traces.live_cache());
    let json = live_json(&live, &temperatures, k, &layout);
    let relations = columns.iter().flat_map(relations).collect();
    Ok(Figure::new(canvas, body, caption, &prompt)
        .with_live(json)
        .with_relations(relations))
}

/// What a reader can check in one column: dividing the logits by T keeps their order, so
/// the percentages fall from the top as at T = 1; with what the others share they make
/// 100% (where every one is a number, not "<0.01%").
fn relations(column: &Column) -> Vec<Relation> {
    let shown: Vec<String> = column.probs.iter().map(|&p| percent(p)).collect();
    ranked_whole(shown, percent(column.rest))
}

/// Where the columns go: after the token labels, side by side across the rest.
struct Layout {
    /// Left edge of the first column, right of the labels.
    left: f64,
    /// Distance from one column to the next.
    pitch_x: f64,
    /// Under the rows.
    bottom: f64,
}

impl Layout {
    fn of(labels: &[Shown], columns: &[Column], k: usize) -> Layout {
        let label_width = labels
            .iter()
            .map(|l| text_width(&l.text(), Font::Mono, 12.0))
            .fold(20.0, f64::max);
        let left = (label_width + 10.0).ceil();
        Layout {
            left,
            pitch_x: (WIDTH - left) / columns.len() as f64,
            bottom: TOP + k as f64 * PITCH,
        }
    }

    /// Room for a bar, leaving space for its percentage.
    fn room(&self) -> f64 {
        self.pitch_x - 50.0
    }

    /// Column `i`: its temperature over it, its bars, and what the others share under it.
    fn column(&self, i: usize, c: &Column) -> [Element; 3] {
        let x = self.left + i as f64 * self.pitch_x;
        let title = text(x, TOP - 10.0)
            .class("tbf-b")
            .attr("data-tb-head", i)
            .text(format!("T = {}", short_t(c.temperature)));
        let bars: Vec<Bar> = c
            .probs
            .iter()
            .enumerate()
            .map(|(r, &p)| Bar {
                value: p,
                text: percent(p),
                strong: r == 0,
            })
            .collect();
        // A full-length bar is a probability of 1 in every column, as in every figure.
        let bars = bar_column_tagged(&bars, x, self.room(), 1.0, TOP, PITCH, Some(i));
        let rest = note(format!("others {}", percent(c.rest)), x, self.bottom + 12.0)
            .attr("data-tb-rest", i);
        [title, bars, rest]
    }
}

/// The slider's numbers: a stop for each column's temperature, starting at the last.
fn live_json(live: &Live, temperatures: &[f64], k: usize, layout: &Layout) -> String {
    let stops: Vec<f64> = temperatures
        .iter()
        .map(|&t| live.temp_stop(t) as f64)
        .collect();
    format!(
        "{{\"kind\":\"{KIND}\",\"rows\":{k},\"cols\":{},\"t\":{},\"room\":{},\"gap\":4,{}}}",
        json_numbers(&stops),
        stops.last().copied().unwrap_or(0.0),
        number(layout.room(), 2),
        live.json_fields()
    )
}

/// A temperature as written: "0.5", "1", "2".
fn short_t(t: f64) -> String {
    let text = format!("{t:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn describe(prompt_text: &str, top: &str, columns: &[Column]) -> String {
    let list = |f: &dyn Fn(&Column) -> String| columns.iter().map(f).collect::<Vec<_>>().join(", ");
    format!(
        "The same next-token distribution after {prompt_text:?} at temperatures {} (each logit \
         divided by T before the softmax; 0 means always the likeliest token). {top:?} gets {}; \
         the tokens not shown share {}. Lower temperatures sharpen the distribution, higher \
         ones flatten it.",
        list(&|c| short_t(c.temperature)),
        list(&|c| percent(c.probs.first().copied().unwrap_or(0.0))),
        list(&|c| percent(c.rest)),
    )
}

#[cfg(test)]
#[path = "temperature_tests.rs"]
mod tests;
