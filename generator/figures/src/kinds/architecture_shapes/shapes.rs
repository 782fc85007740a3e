//! `figure shapes`: the matrix products of one layer as a diagram of shapes, with the
//! traced model's sizes: T × d times d × 3d for q, k and v, cut into H heads of T × dh, the
//! per-head scores T × T, the heads' outputs concatenated and projected, the MLP's T × 4d.
//!
//! Every activation's shape is read from the trace (the tensors' headers, nothing decoded)
//! and checked against the one the model's config gives; the weights' shapes follow from
//! the config. Rectangles are drawn with sides proportional to the square root of each
//! size, so a 4d side is twice a d side and a T side stays visible beside them.
//!
//! A Llama-family trace gets its own products (`shapes_decoder.rs`): q, k and v projected
//! separately, k and v with fewer heads, RoPE keeping the shapes, a gated MLP.
//!
//! Options: `prompt`, `caption`, `layer` (whose tensors to name; every layer has the same
//! shapes; default 0).

use super::shapes_decoder;
use super::shapes_model::{array, per_head, Array, Dim, Sizes, Step};
use crate::draw::{rect, text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::kinds::strips::WIDTH;
use crate::options::{Block, Layer, LayerKey};
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{text_width, wrap, Canvas, Css, Element, Font, WIDE_FONT};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "shapes";

/// The longest side drawn, for the largest size of the model (4d).
const LONGEST: f64 = 104.0;
const SHORTEST: f64 = 5.0;
/// Room for a product's sign between two operands.
const OP: f64 = 18.0;
/// A head's copy is drawn this far below and right of the one before.
const DECK_STEP: f64 = 3.0;
const MAX_DECK: usize = 12;

/// The options of `shapes`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let layer = block.layer_or_all(block.options.layer)?.unwrap_or(Layer(0));
    let (prompt, caption) = (block.prompt, block.caption);
    let config = prompt.config();
    let n = prompt.tokens()?.len();
    let rotary = config.model_type() != "gpt2";
    let (sizes, steps) = if rotary {
        let sizes = shapes_decoder::sizes(&prompt, n)?;
        let steps = shapes_decoder::steps(&sizes, layer);
        (sizes, steps)
    } else {
        let sizes = gpt2_sizes(config, n);
        let steps = steps(&sizes, layer);
        (sizes, steps)
    };
    check(&prompt, &steps)?;
    let (body, height) = draw(&steps, &sizes);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!(
            "The shapes of layer {}'s matrix products: T = {n}, d = {}, H = {}, dh = {}",
            layer.0, config.n_embd, config.n_head, sizes.dh.size
        ),
        desc: describe(&steps, &sizes),
        css: Css::default(),
    };
    let relations = relations(&steps, &sizes);
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations))
}

/// What a reader can check among the sizes under the arrays: in each product the inner sizes
/// match and the result takes the outer ones; cutting into heads keeps the width (H × dh);
/// and each derived width is its product (3d, 4d, H·dh, Hkv·dh).
fn relations(steps: &[Step], sizes: &Sizes) -> Vec<Relation> {
    let text = |d: Dim| d.size.to_string();
    let same = |a: Dim, b: Dim| Relation::Same {
        a: text(a),
        b: text(b),
    };
    let product = |factors: Vec<String>, d: Dim| Relation::Product {
        factors,
        result: text(d),
    };
    let mut out = Vec::new();
    for step in steps {
        match (step.ops.as_slice(), step.terms.as_slice()) {
            ([_, "="], [a, b, c]) => out.extend([
                same(a.cols, b.rows),
                same(c.rows, a.rows),
                same(c.cols, b.cols),
            ]),
            (["→"], [a, heads]) => {
                let h = heads.heads.unwrap_or(sizes.h);
                out.push(product(vec![text(h), text(heads.cols)], a.cols));
            }
            _ => {}
        }
    }
    let (h, dh, d) = (text(sizes.h), text(sizes.dh), sizes.d);
    match sizes.d3.symbol {
        "3d" => out.extend([
            product(vec!["3".into(), text(d)], sizes.d3),
            product(vec!["4".into(), text(d)], sizes.d4),
            product(vec![h, dh], d),
        ]),
        _ => out.push(product(vec![h, dh], sizes.d3)),
    }
    if sizes.kv.size != sizes.h.size {
        let kvd = sizes.kv.size * sizes.dh.size;
        out.push(Relation::Product {
            factors: vec![text(sizes.kv), text(sizes.dh)],
            result: kvd.to_string(),
        });
    }
    out
}

fn gpt2_sizes(config: &tracebook_trace::ModelShape, n: usize) -> Sizes {
    let dh = config.n_embd / config.n_head.max(1);
    Sizes {
        t: Dim {
            symbol: "T",
            size: n,
        },
        d: Dim {
            symbol: "d",
            size: config.n_embd,
        },
        d3: Dim {
            symbol: "3d",
            size: 3 * config.n_embd,
        },
        d4: Dim {
            symbol: "4d",
            size: 4 * config.n_embd,
        },
        h: Dim {
            symbol: "H",
            size: config.n_head,
        },
        dh: Dim {
            symbol: "dh",
            size: dh,
        },
        kv: Dim {
            symbol: "H",
            size: config.n_head,
        },
    }
}

/// The layer's products in the order the forward pass computes them.
fn steps(s: &Sizes, layer: Layer) -> Vec<Step> {
    let mut steps = attention_steps(s, layer);
    steps.extend(mlp_steps(s, layer));
    steps
}

/// Attention's products: q, k and v, the heads, the scores, the weighted values, W_O.
fn attention_steps(s: &Sizes, layer: Layer) -> Vec<Step> {
    let at = |what: &str| format!("blocks.{}.{what}", layer.0);
    let (t, d, d3, h, dh) = (s.t, s.d, s.d3, s.h, s.dh);
    vec![
        Step {
            title: "LayerNorm, then one product makes q, k and v side by side".into(),
            terms: vec![
                array(t, d, at("ln1.normalized")),
                array(d, d3, "W_QKV"),
                array(t, d3, "q | k | v"),
            ],
            ops: vec!["×", "="],
        },
        Step {
            title: "q, k and v, each cut into H heads of dh columns".into(),
            terms: vec![array(t, d, "q"), per_head(h, t, dh, at("attn.q"))],
            ops: vec!["→"],
        },
        Step {
            title: "scores: each query · each key, per head (÷ √dh, softmax)".into(),
            terms: vec![
                per_head(h, t, dh, at("attn.q")),
                per_head(h, dh, t, "kᵀ"),
                per_head(h, t, t, at("attn.pattern")),
            ],
            ops: vec!["·", "="],
        },
        Step {
            title: "each head's weights times its values".into(),
            terms: vec![
                per_head(h, t, t, at("attn.pattern")),
                per_head(h, t, dh, at("attn.v")),
                per_head(h, t, dh, at("attn.z")),
            ],
            ops: vec!["·", "="],
        },
        Step {
            title: "the heads side by side again, times W_O".into(),
            terms: vec![
                array(t, d, "z, heads joined"),
                array(d, d, "W_O"),
                array(t, d, at("attn_out")),
            ],
            ops: vec!["×", "="],
        },
    ]
}

/// The MLP's products: W_in to 4d, GELU, W_out back to d.
fn mlp_steps(s: &Sizes, layer: Layer) -> Vec<Step> {
    let at = |what: &str| format!("blocks.{}.{what}", layer.0);
    let (t, d, d4) = (s.t, s.d, s.d4);
    vec![
        Step {
            title: "LayerNorm, then the MLP widens each token to 4d".into(),
            terms: vec![
                array(t, d, at("ln2.normalized")),
                array(d, d4, "W_in"),
                array(t, d4, at("mlp.pre")),
            ],
            ops: vec!["×", "="],
        },
        Step {
            title: "GELU keeps the shape; W_out narrows it back to d".into(),
            terms: vec![
                array(t, d4, at("mlp.post")),
                array(d4, d, "W_out"),
                array(t, d, at("mlp_out")),
            ],
            ops: vec!["×", "="],
        },
    ]
}

/// Every shown array that is a trace tensor has the shape drawn, in the trace.
fn check(prompt: &Prompt, steps: &[Step]) -> Result<(), FigureError> {
    for term in steps.iter().flat_map(|s| &s.terms) {
        if !term.name.starts_with("blocks.") {
            continue;
        }
        let expected = sizes_of(term);
        match prompt.trace.shape(&term.name) {
            Some(shape) if shape == expected.as_slice() => {}
            Some(shape) => {
                return Err(prompt.broken(format!(
                    "`{}` in the trace of \"{}\" has shape {shape:?}; the model's config gives \
                     {expected:?}",
                    term.name, prompt.name
                )))
            }
            None => {
                return Err(prompt.broken(format!(
                    "the trace of \"{}\" has no `{}`",
                    prompt.name, term.name
                )))
            }
        }
    }
    Ok(())
}

fn sizes_of(a: &Array) -> Vec<usize> {
    a.heads
        .iter()
        .chain([&a.rows, &a.cols])
        .map(|d| d.size)
        .collect()
}

fn symbols(a: &Array) -> String {
    a.heads
        .iter()
        .chain([&a.rows, &a.cols])
        .map(|d| d.symbol)
        .collect::<Vec<_>>()
        .join("×")
}

fn numbers(a: &Array) -> String {
    sizes_of(a)
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("×")
}

/// A side's length in units: proportional to the square root of its size.
fn side(size: usize, largest: usize) -> f64 {
    (LONGEST * (size as f64 / largest.max(1) as f64).sqrt()).max(SHORTEST)
}

/// The drawn rectangle of `a`, deck included: (width, height).
fn extent(a: &Array, largest: usize) -> (f64, f64) {
    let copies = a.heads.map_or(1, |h| h.size.min(MAX_DECK));
    let extra = (copies - 1) as f64 * DECK_STEP;
    (
        side(a.cols.size, largest) + extra,
        side(a.rows.size, largest) + extra,
    )
}

/// A slot's width: the rectangle or its labels, whichever is wider.
fn slot(a: &Array, largest: usize) -> f64 {
    let labels = [symbols(a), numbers(a), shown_name(a)]
        .iter()
        .map(|l| text_width(l, Font::Sans, 12.0))
        .fold(0.0, f64::max);
    // Labels get a margin: browsers' sans fonts run up to a tenth wider than measured.
    extent(a, largest).0.max(labels * 1.1).ceil() + 6.0
}

/// What an array is called under it: its label, else the reader's words for its name.
fn shown_name(a: &Array) -> String {
    a.label.map_or_else(|| short_name(&a.name), str::to_string)
}

fn draw(steps: &[Step], sizes: &Sizes) -> (Vec<Element>, f64) {
    let largest = sizes.d4.size.max(sizes.d3.size).max(sizes.t.size);
    let mut arrays = Element::new("g").class("tbf-box");
    let mut decks = Element::new("g").class("tbf-tok tbf-c0");
    let mut labels = Element::new("g")
        .class("tbf-s")
        .attr("text-anchor", "middle");
    let mut names = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "middle");
    let mut titles = Element::new("g").class("tbf-s tbf-b");
    let mut signs = Element::new("g").attr("text-anchor", "middle");
    let mut y = 14.0;
    for step in steps {
        // Bold, which runs wider still.
        for line in wrap(&step.title, WIDTH / WIDE_FONT / 1.1, Font::Sans, 12.0) {
            titles.push(text(0.0, y).text(line));
            y += 15.0;
        }
        let top = y - 7.0;
        let tallest = step
            .terms
            .iter()
            .map(|a| extent(a, largest).1)
            .fold(0.0, f64::max);
        let mut x = 0.0;
        for (i, term) in step.terms.iter().enumerate() {
            let width = slot(term, largest);
            let left = x + (width - extent(term, largest).0) / 2.0;
            let target = if term.heads.is_some() {
                &mut decks
            } else {
                &mut arrays
            };
            for copy in copies(term, largest, left, top) {
                target.push(copy);
            }
            let centre = x + width / 2.0;
            labels.push(text(centre, top + tallest + 14.0).text(symbols(term)));
            labels.push(text(centre, top + tallest + 28.0).text(numbers(term)));
            names.push(text(centre, top + tallest + 42.0).text(shown_name(term)));
            x += width;
            if let Some(op) = step.ops.get(i) {
                signs.push(text(x + OP / 2.0, top + tallest / 2.0 + 5.0).text(*op));
                x += OP;
            }
        }
        y = top + tallest + 64.0;
    }
    let notes = size_note(sizes);
    let mut body = vec![titles, arrays, decks, labels, names, signs];
    let (note, last) = wrapped_note(&notes, 0.0, y, WIDTH, 15.0);
    body.push(note);
    y = last + 15.0;
    (body, y - 6.0)
}

/// `a`'s rectangle from (`left`, `top`), or for a per-head array its stack of copies,
/// the back one first.
fn copies(a: &Array, largest: usize, left: f64, top: f64) -> Vec<Element> {
    let (w, h) = extent(a, largest);
    let copies = a.heads.map_or(1, |h| h.size.min(MAX_DECK));
    let shrink = (copies - 1) as f64 * DECK_STEP;
    (0..copies)
        .rev()
        .map(|c| {
            let off = c as f64 * DECK_STEP;
            rect("", left + off, top + off, w - shrink, h - shrink)
        })
        .collect()
}

/// A trace name without its `blocks.N.` prefix (the title says which layer).
/// What an array is called under it: a reader's words for a trace tensor (its name stays the
/// trace's, for the check against the trace), the figure's own name for the others.
fn short_name(name: &str) -> String {
    let hook = match name.strip_prefix("blocks.") {
        Some(rest) => rest.split_once('.').map_or(rest, |(_, n)| n),
        None => return name.to_string(),
    };
    match hook {
        "ln1.normalized" | "ln2.normalized" => "x after LayerNorm",
        "attn.q" => "q, per head",
        "attn.pattern" => "weights",
        "attn.v" => "v, per head",
        "attn.z" => "z, per head",
        "attn_out" => "attention's output",
        "mlp.pre" => "before GELU",
        "mlp.post" => "after GELU",
        "mlp_out" => "MLP's output",
        other => other,
    }
    .to_string()
}

/// The sizes under the products.
fn size_note(sizes: &Sizes) -> String {
    format!(
        "T = {} tokens, d = {}, H = {} heads of dh = {}{}; every layer alike. Sides ∝ √size; \
         a stack: one copy per head.",
        sizes.t.size,
        sizes.d.size,
        sizes.h.size,
        sizes.dh.size,
        kv_note(sizes)
    )
}

/// ", sharing H_kv = 2 key/value heads" for grouped-query attention, else nothing.
fn kv_note(sizes: &Sizes) -> String {
    if sizes.kv.size == sizes.h.size {
        String::new()
    } else {
        format!(", sharing H_kv = {} key/value heads", sizes.kv.size)
    }
}

fn describe(steps: &[Step], sizes: &Sizes) -> String {
    let products: Vec<String> = steps
        .iter()
        .map(|s| {
            let mut out = String::new();
            for (i, term) in s.terms.iter().enumerate() {
                out.push_str(&format!("{} ({})", symbols(term), numbers(term)));
                if let Some(op) = s.ops.get(i) {
                    out.push_str(&format!(" {op} "));
                }
            }
            out
        })
        .collect();
    format!(
        "The matrix products of one layer with T = {} tokens, width d = {}, H = {} heads of dh \
         = {} numbers{}: {}.",
        sizes.t.size,
        sizes.d.size,
        sizes.h.size,
        sizes.dh.size,
        kv_note(sizes),
        products.join("; ")
    )
}

#[cfg(test)]
#[path = "shapes_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "shapes_decoder_tests.rs"]
mod decoder_tests;
