//! `figure gqa`: grouped-query attention. The query heads of a layer drawn in groups, each
//! group joined to the one key/value head its heads share (query head h reads key/value head
//! h ÷ (H ÷ H_kv), rounded down), with the memory that saves: a key/value cache of
//! 2 × layers × H_kv × head_dim numbers a token instead of 2 × layers × H × head_dim, as a
//! ratio and in bytes at f16 for `context` tokens and for the prompt's own.
//!
//! Options: `prompt`, `caption`, `layer` (default 0; the trace's q and k of that layer give
//! the shapes, and every layer shares alike), `context` (tokens the cache is sized for,
//! default the model's own context length: a 128-token model's cache is never sized for
//! 1,024).
//!
//! A GPT-2 trace (every head its own key and value) draws the degenerate case, H_kv = H: one
//! query head to a group and a ratio of 1. That is drawn rather than refused because it is
//! the baseline the grouped models are measured against, and its cache size is as real.

use crate::draw::{line, rect, text, wrapped_note, wrapped_title};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{bytes, thousands};
use crate::kinds::strips::WIDTH;
use crate::options::{Block, Int, Layer, LayerKey};
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{Canvas, Css, Element};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "gqa";

/// Bytes a number takes in the cache (f16).
const F16: f64 = 2.0;
/// A query head's box; the widest groups wrap their heads onto rows of [`MAX_COLS`].
const CHIP_HEIGHT: f64 = 18.0;
const MAX_COLS: usize = 12;
const GROUP_GAP: f64 = 8.0;
/// Height of the lines from a group's query heads down to its key/value head.
const FAN: f64 = 22.0;

/// The options of `gqa`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    context: Option<Int<1, 10_000_000, 1024>>,
}

/// Who shares what, and the sizes the cache is made of.
struct Sharing {
    layers: usize,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    tokens: usize,
    layer: Layer,
}

impl Sharing {
    /// Query heads to a key/value head.
    fn group(&self) -> usize {
        self.heads / self.kv_heads
    }

    /// Numbers a token adds to the key/value cache with `kv` key/value heads.
    fn per_token(&self, kv: usize) -> usize {
        2 * self.layers * kv * self.head_dim
    }
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let layer = block.layer_or_all(block.options.layer)?.unwrap_or(Layer(0));
    let (prompt, caption) = (block.prompt, block.caption);
    let context =
        (block.options.context.map(Int::get)).unwrap_or(prompt.trace.meta.model.config.n_positions);
    let sharing = read(&prompt, layer)?;
    let mut body = Vec::new();
    let top = header(&sharing, &mut body);
    let top = groups(&sharing, top, &mut body);
    let height = memory(&sharing, context, top + 8.0, &mut body);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!(
            "Grouped-query attention: {} query heads, {} key/value heads",
            sharing.heads, sharing.kv_heads
        ),
        desc: describe(&prompt, &sharing, context),
        css: Css::default(),
    };
    let figure = Figure::new(canvas, body, caption, &prompt).with_source(Source::Config);
    Ok(figure.with_relations(relations(&sharing, context)))
}

/// What a reader can check: the groups multiply out to the query heads, each query head sits
/// in the group of its key/value head (h ÷ group, rounded down), each cache size is the
/// product of its factors, and (in one unit) the saving is the group's size.
fn relations(s: &Sharing, context: usize) -> Vec<Relation> {
    let (shared, own) = (s.per_token(s.kv_heads), s.per_token(s.heads));
    let product = |factors: &[usize], result: String| Relation::Product {
        factors: factors.iter().map(usize::to_string).collect(),
        result,
    };
    let mut out = vec![
        product(&[2, s.layers, s.kv_heads, s.head_dim], thousands(shared)),
        product(&[2, s.layers, s.heads, s.head_dim], thousands(own)),
    ];
    let g = s.group();
    if g > 1 {
        out.push(product(&[s.kv_heads, g], s.heads.to_string()));
        for tokens in [context, s.tokens] {
            let at = |kv: usize| bytes((s.per_token(kv) * tokens) as f64 * F16);
            let (less, more) = (at(s.kv_heads), at(s.heads));
            let number = |b: &str| b.split(' ').next().unwrap_or_default().to_string();
            if less.split(' ').nth(1) == more.split(' ').nth(1) {
                out.push(Relation::Product {
                    factors: vec![number(&less), g.to_string()],
                    result: number(&more),
                });
            }
        }
    }
    out.extend((0..s.heads).map(|h| Relation::Bound {
        value: h.to_string(),
        low: (h / g * g) as f64,
        high: (h / g * g + g - 1) as f64,
        why: "a query head of the group of key/value head h ÷ group",
    }));
    out
}

/// The sizes from the config, checked against the shapes of the layer's traced q and k.
fn read(prompt: &Prompt<'_>, layer: Layer) -> Result<Sharing, FigureError> {
    let config = prompt.config();
    let (heads, kv_heads) = (config.n_head, config.kv_heads());
    if kv_heads == 0 || heads % kv_heads != 0 {
        return Err(prompt.broken(format!(
            "the trace of \"{}\" has {heads} query heads and {kv_heads} key/value heads, \
             which do not divide into groups",
            prompt.name
        )));
    }
    let tokens = prompt.tokens()?.len();
    let head_dim = config.head_width();
    for (what, count) in [("q", heads), ("k", kv_heads)] {
        let name = format!("blocks.{}.attn.{what}", layer.0);
        let want = [count, tokens, head_dim];
        if prompt.trace.shape(&name) != Some(&want[..]) {
            return Err(prompt.broken(format!(
                "`{name}` in the trace of \"{}\" is {:?}, not {want:?}",
                prompt.name,
                prompt.trace.shape(&name)
            )));
        }
    }
    Ok(Sharing {
        layers: config.n_layer,
        heads,
        kv_heads,
        head_dim,
        tokens,
        layer,
    })
}

/// The two lines over the groups; returns where the groups start.
fn header(s: &Sharing, body: &mut Vec<Element>) -> f64 {
    let bold = if s.group() == 1 {
        format!("{} query heads, each with its own key and value", s.heads)
    } else {
        format!(
            "{} query heads share {} key/value heads, {} to each",
            s.heads,
            s.kv_heads,
            s.group()
        )
    };
    let (lines, last) = wrapped_title(&bold, 14.0, WIDTH, 15.0);
    body.extend(lines);
    let rule = format!(
        "query head h reads key/value head ⌊h ÷ {}⌋ (layer {}'s trace: q {} × {} × {}, k and \
         v {} × {} × {})",
        s.group(),
        s.layer.0,
        s.heads,
        s.tokens,
        s.head_dim,
        s.kv_heads,
        s.tokens,
        s.head_dim
    );
    let (note, last) = wrapped_note(&rule, 0.0, last + 17.0, WIDTH, 15.0);
    body.push(note);
    last + 14.0
}

/// The width of a query head's box: room for its number.
fn chip_width(heads: usize) -> f64 {
    (heads.saturating_sub(1).to_string().len() as f64 * 7.5 + 8.0).max(22.0)
}

/// Every group: its query heads in a row (or rows), lines down to its key/value head.
/// Groups sit side by side as many as fit, in rows. Returns the bottom.
fn groups(s: &Sharing, top: f64, body: &mut Vec<Element>) -> f64 {
    let chip = chip_width(s.heads);
    let cols = s.group().min(MAX_COLS);
    let rows = s.group().div_ceil(cols);
    let width = (cols as f64 * (chip + 2.0) + 6.0).max(48.0);
    let per_row = (((WIDTH + GROUP_GAP) / (width + GROUP_GAP)).floor() as usize).max(1);
    let height = rows as f64 * (CHIP_HEIGHT + 2.0) + FAN + CHIP_HEIGHT + 4.0;
    // The rows of groups centred, as wide as the fullest row.
    let used = per_row.min(s.kv_heads) as f64 * (width + GROUP_GAP) - GROUP_GAP;
    let left = ((WIDTH - used) / 2.0).max(0.0);
    for g in 0..s.kv_heads {
        let x = left + (g % per_row) as f64 * (width + GROUP_GAP);
        let y = top + (g / per_row) as f64 * (height + GROUP_GAP);
        body.push(group(s, g, (x, y), (width, chip, cols)));
    }
    top + s.kv_heads.div_ceil(per_row) as f64 * (height + GROUP_GAP)
}

/// Group `g` at `at`: its box, query heads, fan of lines and key/value head.
fn group(s: &Sharing, g: usize, at: (f64, f64), size: (f64, f64, usize)) -> Element {
    let ((x, y), (width, chip, cols)) = (at, size);
    let hue = format!("tbf-tok tbf-c{}", g % crate::svg::CATEGORY_COUNT);
    let rows = s.group().div_ceil(cols);
    let fan_top = y + rows as f64 * (CHIP_HEIGHT + 2.0) + 2.0;
    let kv_y = fan_top + FAN;
    let centre = x + width / 2.0;
    let mut out = Element::new("g").attr("text-anchor", "middle");
    for i in 0..s.group() {
        let h = g * s.group() + i;
        let (col, row) = (i % cols, i / cols);
        let in_row = if row + 1 == rows {
            s.group() - row * cols
        } else {
            cols
        };
        let left = centre - in_row as f64 * (chip + 2.0) / 2.0 + 1.0;
        let cx = left + col as f64 * (chip + 2.0);
        let cy = y + 2.0 + row as f64 * (CHIP_HEIGHT + 2.0);
        out.push(rect(&hue, cx, cy, chip, CHIP_HEIGHT).attr("rx", 3.0));
        out.push(
            text(cx + chip / 2.0, cy + 13.0)
                .class("tbf-s tbf-m")
                .text(h.to_string()),
        );
        if row + 1 == rows {
            out.push(line("tbf-o", cx + chip / 2.0, fan_top, centre, kv_y));
        }
    }
    let kv_width = (width - 8.0).min(64.0);
    out.push(rect(&hue, centre - kv_width / 2.0, kv_y, kv_width, CHIP_HEIGHT).attr("rx", 3.0));
    out.push(
        text(centre, kv_y + 13.0)
            .class("tbf-s tbf-b")
            .text(format!("kv {g}")),
    );
    out
}

/// The cache per token with and without sharing, as bars, and at `context` tokens and the
/// prompt's own. Returns the figure's height.
fn memory(s: &Sharing, context: usize, top: f64, body: &mut Vec<Element>) -> f64 {
    let (shared, own) = (s.per_token(s.kv_heads), s.per_token(s.heads));
    let title = "Key/value cache, at f16 (2 bytes a number)";
    let (lines, top) = wrapped_title(title, top + 12.0, WIDTH, 15.0);
    body.extend(lines);
    let top = top - 12.0;
    let rows = [
        (
            format!(
                "2 × {} layers × {} k/v heads × {} = {} a token",
                s.layers,
                s.kv_heads,
                s.head_dim,
                thousands(shared)
            ),
            shared,
            "tbf-bar",
        ),
        (
            format!(
                "one k/v per query head: × {} = {} a token",
                s.heads,
                thousands(own)
            ),
            own,
            "tbf-bar2",
        ),
    ];
    let mut y = top + 30.0;
    for (label, numbers, class) in rows {
        let label = format!("{label} ({})", bytes(numbers as f64 * F16));
        let (note, last) = wrapped_note(&label, 0.0, y, WIDTH, 15.0);
        body.push(note);
        let bar = WIDTH * numbers as f64 / own.max(1) as f64;
        body.push(rect(class, 0.0, last + 5.0, bar.max(1.0), 10.0));
        y = last + 32.0;
    }
    let (note, last) = wrapped_note(&totals(s, context), 0.0, y, WIDTH, 15.0);
    body.push(note);
    last + 10.0
}

/// "4× less: 32 MiB instead of 128 MiB at 1,024 tokens, ..." (or the same, for no sharing).
fn totals(s: &Sharing, context: usize) -> String {
    let at = |tokens: usize, kv: usize| bytes((s.per_token(kv) * tokens) as f64 * F16);
    let prompt = format!("this prompt's {} tokens", thousands(s.tokens));
    if s.group() == 1 {
        return format!(
            "Nothing shared, nothing saved: {} at {} tokens, {} for {prompt}.",
            at(context, s.heads),
            thousands(context),
            at(s.tokens, s.heads)
        );
    }
    format!(
        "{}× less: {} instead of {} at {} tokens; {} instead of {} for {prompt}.",
        s.group(),
        at(context, s.kv_heads),
        at(context, s.heads),
        thousands(context),
        at(s.tokens, s.kv_heads),
        at(s.tokens, s.heads)
    )
}

fn describe(prompt: &Prompt<'_>, s: &Sharing, context: usize) -> String {
    let sharing = if s.group() == 1 {
        format!(
            "each of the {} query heads has its own key and value head (no grouping)",
            s.heads
        )
    } else {
        format!(
            "{} query heads share {} key/value heads, {} to each: query head h reads \
             key/value head h ÷ {}, rounded down",
            s.heads,
            s.kv_heads,
            s.group(),
            s.group()
        )
    };
    format!(
        "Grouped-query attention in {} of {}: {sharing}. The key/value cache holds 2 × {} \
         layers × {} heads × {} = {} numbers a token ({} at f16), against {} with one key and \
         value per query head. {}",
        s.layer,
        prompt.trace.meta.model.shown(),
        s.layers,
        s.kv_heads,
        s.head_dim,
        thousands(s.per_token(s.kv_heads)),
        bytes(s.per_token(s.kv_heads) as f64 * F16),
        thousands(s.per_token(s.heads)),
        totals(s, context)
    )
}

#[cfg(test)]
#[path = "gqa_tests.rs"]
mod tests;
