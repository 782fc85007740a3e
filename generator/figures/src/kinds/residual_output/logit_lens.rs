//! `figure logit-lens`: what the residual stream would predict if the model stopped after
//! each layer (the final LayerNorm and the unembedding applied to `blocks.L.resid_post`,
//! traced as `logit_lens.topk_ids` / `.topk_probs`). Rows are layers, columns the last
//! positions; each cell shows the likeliest next token, shaded by its probability, in
//! bold where it is the token that actually comes next. The last layer's row is the
//! model's own prediction: labelled "L = output" and framed in the accent colour. Under
//! the rule, the row "next" is no prediction but the text's actual next token.
//!
//! Options: `prompt`, `caption`, `tokens` (positions shown, the last ones, default 6, at
//! most 10), `pickers` (default false; true adds, under the grid, the five likeliest tokens
//! after the last position as one layer reads them, drawn for every layer with a layer
//! picker; without scripts the page shows the output layer's).

use crate::chart::{bar_column, label_column, Bar};
use crate::draw::{line, note, rect, text, wrapped_note, Cells};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::percent;
use crate::heatmap;
use crate::kinds::strips::{window, WIDTH};
use crate::options::{Block, Int};
use crate::panels::{self, Panel};
use crate::prompt::{Checked, Prompt};
use crate::relations::{printed, Relation};
use crate::shared::{self, Domain, SharedScale};
use crate::svg::{text_width, Canvas, Element, Font, Ramp};
use crate::token_text::Shown;
use crate::Traces;
use serde::Deserialize;
use std::ops::Range;

pub const KIND: &str = "logit-lens";

const ROW: f64 = 20.0;
const TOP: f64 = 40.0;

/// The lens's top prediction per layer and position.
struct Lens<'p> {
    prompt: &'p Prompt<'p>,
    ids: Checked,
    probs: Checked,
    layers: usize,
}

impl Lens<'_> {
    fn top(&self, layer: usize, position: usize) -> (u32, f64) {
        (
            self.ids.at(&[layer, position, 0]) as u32,
            self.probs.at(&[layer, position, 0]),
        )
    }

    /// Each row's label: the layer, the last one marked as the model's output, then the
    /// row of actual next tokens.
    fn row_labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = (0..self.layers).map(|l| l.to_string()).collect();
        if let Some(last) = labels.last_mut() {
            last.push_str(" = output");
        }
        labels.push("next".to_string());
        labels
    }

    /// Left edge of the cells: room for the widest row label.
    fn left(&self) -> f64 {
        let widest = self
            .row_labels()
            .iter()
            .map(|l| text_width(l, Font::Sans, 12.0))
            .fold(0.0, f64::max);
        // With 20% slack: system fonts run wider than the estimate (DejaVu Sans does).
        (widest * 1.2 + 10.0).ceil().max(34.0)
    }

    fn text(&self, id: u32) -> String {
        self.prompt
            .trace
            .meta
            .token_texts
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("#{id}"))
    }

    /// The token that actually follows `position`: the next prompt token, or after the
    /// last one the first generated token, if any.
    fn next(&self, position: usize) -> Option<u32> {
        let meta = &self.prompt.trace.meta;
        match meta.tokens.get(position + 1) {
            Some(token) => Some(token.id),
            None => meta.generation.first().map(|g| g.id),
        }
    }
}

/// The options of `logit-lens`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    tokens: Int<1, 10, 6>,
    #[serde(default)]
    pickers: bool,
}

/// Candidates listed per layer under the grid with `pickers`.
const PICKED: usize = 5;
const PICK_PITCH: f64 = 20.0;

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let n = prompt.tokens()?.len();
    let shown = window(n, block.options.tokens.get());
    let layers = prompt.config().n_layer;
    let ids = prompt.tensor("logit_lens.topk_ids", 3)?;
    let k = ids.shape[2];
    let lens = Lens {
        prompt: &prompt,
        ids: prompt.shaped("logit_lens.topk_ids", &[layers, n, k.max(1)])?,
        probs: prompt.shaped("logit_lens.topk_probs", &[layers, n, k.max(1)])?,
        layers,
    };
    let ramp = Ramp::unit();
    let (mut body, grid_bottom) = grid(&lens, &shown, &ramp);
    let (legend, mut note_y) = legend(&lens, &ramp, shared, grid_bottom + 10.0);
    body.extend(legend);
    let out = layers - 1;
    let live = block.options.pickers.then(|| {
        let top = note_y + 14.0;
        let panels: Vec<Panel> = (0..layers)
            .map(|l| Panel {
                key: vec![("layer", l)],
                body: layer_candidates(&lens, l, n - 1, top),
            })
            .collect();
        note_y = top + 8.0 + PICKED.min(k) as f64 * PICK_PITCH;
        let live = panels::json(&panels, out);
        body.extend(panels::stack(panels, out));
        live
    });
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: note_y - 6.0,
        title: "The logit lens: the top prediction after each layer".to_string(),
        desc: describe(&lens, &shown),
        css: ramp.css(),
    };
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations(
        &lens,
        n - 1,
        block.options.pickers,
    ));
    let figure = match live {
        Some(json) => figure.with_live(json),
        None => figure,
    };
    Ok((figure, Domain::Unit))
}

/// What a reader can check: the legend's probabilities rise; the alt text's probabilities
/// are probabilities; and with `pickers`, each layer's likeliest tokens after the last
/// position are listed likeliest first.
fn relations(lens: &Lens<'_>, last: usize, pickers: bool) -> Vec<Relation> {
    let mut out = vec![Relation::Order {
        values: ["0", "50%", "100%"].map(String::from).to_vec(),
        descending: false,
    }];
    // The alt text gives the top token's probability where the top token changes.
    let mut previous = None;
    for l in 0..lens.layers {
        let (id, p) = lens.top(l, last);
        if previous != Some(id) {
            out.push(Relation::Bound {
                value: percent(p),
                low: 0.0,
                high: 1.0,
                why: "a probability",
            });
        }
        previous = Some(id);
    }
    if pickers {
        let k = lens.ids.shape[2].min(PICKED);
        out.extend((0..lens.layers).map(|l| {
            Relation::Order {
                values: (0..k)
                    .map(|r| percent(lens.probs.at(&[l, last, r])))
                    .collect(),
                descending: true,
            }
        }));
    }
    out.retain(|r| r.texts().iter().all(|t| printed(t).is_some()));
    out
}

/// The probability legend from `top` and the notes under it; with the y after them.
fn legend(
    lens: &Lens<'_>,
    ramp: &Ramp,
    shared: Option<&SharedScale>,
    top: f64,
) -> (Vec<Element>, f64) {
    let ticks = [
        (0.0, "0".to_string()),
        (0.5, "50%".to_string()),
        (1.0, "100%".to_string()),
    ];
    let title = "probability of the top token";
    let mut body = vec![heatmap::legend(ramp, title, &ticks, None, lens.left(), top)];
    let mut note_y = top + heatmap::LEGEND_HEIGHT + 8.0;
    let lines = [
        format!(
            "framed: layer {}, the model's own prediction",
            lens.layers - 1
        ),
        "next: the token that actually follows; bold where a layer predicts it".to_string(),
    ];
    for line in shared::note(shared).into_iter().chain(lines) {
        let (note, last) = wrapped_note(&line, 0.0, note_y, WIDTH, 15.0);
        body.push(note);
        note_y = last + 16.0;
    }
    (body, note_y)
}

/// The likeliest next tokens after `position` as layer `layer` reads them, as bars with
/// their probabilities, under a line saying which layer it is.
fn layer_candidates(lens: &Lens<'_>, layer: usize, position: usize, top: f64) -> Vec<Element> {
    let k = lens.ids.shape[2].min(PICKED);
    let out = if layer + 1 == lens.layers {
        " (the output)"
    } else {
        ""
    };
    let title = format!("after layer {layer}{out}: the {k} likeliest next tokens");
    let labels: Vec<Shown> = (0..k)
        .map(|r| {
            let id = lens.ids.at(&[layer, position, r]) as u32;
            Shown::fit(&lens.text(id), 110.0, Font::Mono, 12.0)
        })
        .collect();
    let bars: Vec<Bar> = (0..k)
        .map(|r| {
            let p = lens.probs.at(&[layer, position, r]);
            Bar {
                value: p,
                text: percent(p),
                strong: r == 0,
            }
        })
        .collect();
    let x = 130.0;
    vec![
        text(0.0, top).class("tbf-s tbf-b").text(title),
        label_column(&labels, x - 8.0, top + 8.0, PICK_PITCH, 12.0),
        bar_column(&bars, x, WIDTH - x - 56.0, 1.0, top + 8.0, PICK_PITCH),
    ]
}

/// The narrowest column: room for eight characters of token text.
const MIN_COLUMN: f64 = 64.0;
/// Space between two bands of the grid.
const BAND_GAP: f64 = 32.0;

/// The grid, in as many bands as keep every column [`MIN_COLUMN`] wide, each with its
/// positions' columns; returns it and its bottom.
fn grid(lens: &Lens<'_>, shown: &Range<usize>, ramp: &Ramp) -> (Vec<Element>, f64) {
    let fit = ((WIDTH - lens.left()) / MIN_COLUMN).floor().max(1.0) as usize;
    let bands = shown.len().div_ceil(fit);
    let per = shown.len().div_ceil(bands.max(1));
    let mut out = vec![note("layer ↓ · after token →", 0.0, 12.0)];
    let mut top = TOP;
    let positions: Vec<usize> = shown.clone().collect();
    for chunk in positions.chunks(per.max(1)) {
        out.extend(band(lens, chunk, per, top, ramp));
        top += (lens.layers as f64 + 1.0) * ROW + BAND_GAP;
    }
    (out, top - BAND_GAP)
}

/// One band from `top`: column heads (the input tokens), layer labels, cells and their
/// tokens, and the row of actual next tokens, in columns for `per` positions.
fn band(lens: &Lens<'_>, positions: &[usize], per: usize, top: f64, ramp: &Ramp) -> Vec<Element> {
    let left = lens.left();
    let width = ((WIDTH - left) / per as f64).floor();
    let fit = |t: &str| Shown::fit(t, width - 6.0, Font::Mono, 12.0);
    let tokens = &lens.prompt.trace.meta.tokens;
    let group = || {
        Element::new("g")
            .class("tbf-m")
            .attr("font-size", 12.0)
            .attr("text-anchor", "middle")
    };
    let (mut heads, mut words, mut cells) = (group(), group(), Cells::default());
    for (c, &position) in positions.iter().enumerate() {
        let x = left + c as f64 * width;
        heads.push(fit(&tokens[position].text).append_to(text(x + width / 2.0, top - 8.0)));
        for layer in 0..lens.layers {
            let y = top + layer as f64 * ROW;
            let (id, p) = lens.top(layer, position);
            let bin = ramp.bin_of_unit(p);
            cells.add(bin, x, y, width - 1.0);
            let mut class = ramp.text_class(bin);
            if lens.next(position) == Some(id) {
                class.push_str(" tbf-b");
            }
            words
                .push(fit(&lens.text(id)).append_to(text(x + width / 2.0, y + 14.0).class(&class)));
        }
        let actual = lens
            .next(position)
            .map_or("?".to_string(), |id| lens.text(id));
        let y = top + lens.layers as f64 * ROW + 15.0;
        words.push(fit(&actual).append_to(text(x + width / 2.0, y).class("tbf-dim")));
    }
    let mut layer_labels = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    for (row, label) in lens.row_labels().into_iter().enumerate() {
        let y = top + row as f64 * ROW + if row < lens.layers { 14.0 } else { 15.0 };
        layer_labels.push(text(left - 6.0, y).text(label));
    }
    let mut out = vec![heads, layer_labels];
    out.extend(cells.paths(ramp, ROW - 1.0));
    out.push(words);
    // The model's own output: the last layer's row, framed in the accent colour.
    let output_y = top + (lens.layers - 1) as f64 * ROW;
    let output_width = width * positions.len() as f64 - 1.0;
    out.push(rect(
        "tbf-line",
        left - 1.0,
        output_y - 1.0,
        output_width + 2.0,
        ROW + 1.0,
    ));
    let rule_y = top + lens.layers as f64 * ROW + 3.0;
    out.push(line("tbf-ax", left, rule_y, WIDTH, rule_y));
    out
}

fn describe(lens: &Lens<'_>, shown: &Range<usize>) -> String {
    let last = shown.end - 1;
    let tokens = &lens.prompt.trace.meta.tokens;
    let mut changes: Vec<String> = Vec::new();
    let mut previous = None;
    for layer in 0..lens.layers {
        let (id, p) = lens.top(layer, last);
        if previous != Some(id) {
            changes.push(format!(
                "{:?} from layer {layer} ({})",
                lens.text(id),
                percent(p)
            ));
            previous = Some(id);
        }
    }
    let out_layer = lens.layers - 1;
    let right = shown
        .clone()
        .filter(|&pos| lens.next(pos) == Some(lens.top(out_layer, pos).0))
        .count();
    let known = shown
        .clone()
        .filter(|&pos| lens.next(pos).is_some())
        .count();
    format!(
        "The logit lens over {} layers: the final LayerNorm and the unembedding applied to the \
         residual stream after each layer, giving the likeliest next token at each of the last \
         {} positions. After {:?}, the top prediction is {}; the last layer is the model's own \
         output. At the output, the top prediction is the actual next token at {right} of {known} \
         positions.",
        lens.layers,
        shown.len(),
        tokens[last].text,
        changes.join(", then ")
    )
}

#[cfg(test)]
#[path = "logit_lens_tests.rs"]
mod tests;
