//! `figure qkv`: how one block turns each token's vector into a query, a key and a value.
//! A diagram with the model's real sizes (x, T × d, times W_Q, W_K, W_V, each d × d, gives
//! Q, K, V, each T × d), then one token's x (`ln1.normalized`) and its q, k, v (all heads
//! side by side) as heat strips.
//!
//! Options: `prompt`, `caption`, `layer` (required), `token` (default -1, the last),
//! `dims` (default 32, at most 64), `spread`.

use crate::draw::{arrow, labelled_box, note, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, thousands};
use crate::kinds::strips::{self, DimPick, StripFigure};
use crate::kinds::tokens_embeddings::embedding::length_relations;
use crate::options::{Block, Dims, Layer, LayerKey, TokenKey};
use crate::prompt::{Checked, Prompt};
use crate::shared::{Domain, SharedScale};
use crate::strip::{norm, StripRow};
use crate::svg::{Canvas, Element};
use crate::token_text::{visible, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "qkv";

const DIAGRAM_HEIGHT: f64 = 136.0;

/// The options of `qkv`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    #[serde(default)]
    token: TokenKey,
    dims: Option<Dims>,
    #[serde(default)]
    spread: bool,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let layer = block.layer(KIND, block.options.layer)?;
    let t = block.token(block.options.token)?.0;
    let (prompt, caption) = (block.prompt, block.caption);
    let config = prompt.config();
    let n = prompt.tokens()?.len();
    let d = config.n_embd;
    let pick = DimPick::read(block.options.dims, block.options.spread, d, 32)?;
    let x = prompt.block(layer, "ln1.normalized", d)?.row(&[t]);
    let [q, k, v] = ["attn.q", "attn.k", "attn.v"].map(|what| {
        prompt
            .heads(layer, what)
            .map(|h| concat_heads(&prompt, &h, t))
    });
    let vectors = [("x", x), ("q", q?), ("k", k?), ("v", v?)];
    let rows = vectors
        .iter()
        .map(|(name, row)| StripRow {
            label: Shown::plain(*name),
            values: pick.take(row),
            summary: short(norm(row)),
            gap_before: if *name == "q" { 6.0 } else { 0.0 },
        })
        .collect();
    let token = visible(&prompt.trace.meta.tokens[t].text);
    let figure = StripFigure {
        rows,
        header: format!("{token} (token {t}): {}", pick.header()),
        summary_title: "length",
        legend_title: "value".to_string(),
        notes: Vec::new(),
    };
    let mut body = diagram(n, d);
    let (strips, height, css) = strips::draw(&figure, DIAGRAM_HEIGHT, shared);
    body.extend(strips);
    let canvas = Canvas {
        kind: KIND,
        width: strips::WIDTH,
        height,
        title: format!("Layer {}: queries, keys and values", layer.0),
        desc: describe(&prompt, layer, t, &vectors, &pick),
        css,
    };
    let domain = figure.domain();
    let relations = length_relations(&figure.rows, shared);
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

/// One token's vector over all query heads, head 0's dimensions first: the row that the
/// projection computed before it was split into heads. With grouped attention each query
/// head shows the key/value head it reads.
pub fn concat_heads(prompt: &Prompt, heads: &Checked, t: usize) -> Vec<f64> {
    let query_heads = prompt.config().n_head;
    // Query head h reads head h / group of a tensor with query_heads / group heads.
    let group = (query_heads / heads.shape[0].max(1)).max(1);
    (0..query_heads)
        .flat_map(|h| heads.row(&[h / group, t]))
        .collect()
}

/// x → (× W_Q, W_K, W_V) → Q, K, V, with sizes.
fn diagram(n: usize, d: usize) -> Vec<Element> {
    let size = format!("{} × {}", n, thousands(d));
    let mut out = vec![labelled_box(0.0, 34.0, 92.0, 40.0, "x", &size)];
    let mut labels = Element::new("g")
        .class("tbf-s")
        .attr("text-anchor", "middle");
    for (i, name) in ["Q", "K", "V"].iter().enumerate() {
        let y = i as f64 * 37.0;
        let right = strips::WIDTH - 100.0;
        out.push(labelled_box(right, y, 100.0, 32.0, name, &size));
        let (from, to) = ((92.0, 54.0), (right - 2.0, y + 16.0));
        out.push(arrow(from, to));
        // The label sits just above the arrow, near its head.
        let label_x = right - 46.0;
        let along = (label_x - from.0) / (to.0 - from.0);
        let line_y = from.1 + (to.1 - from.1) * along;
        labels.push(text(label_x, line_y - 5.0).text(format!("× W_{name}")));
    }
    out.push(labels);
    let weights = format!("each W is {0} × {0}, plus a bias of {0}", thousands(d));
    out.push(note(weights, 0.0, 126.0));
    out
}

fn describe(
    prompt: &Prompt<'_>,
    layer: Layer,
    t: usize,
    vectors: &[(&str, Vec<f64>); 4],
    pick: &DimPick,
) -> String {
    let config = prompt.config();
    let d = thousands(config.n_embd);
    let lengths: Vec<String> = vectors
        .iter()
        .map(|(name, row)| format!("{name} {}", short(norm(row))))
        .collect();
    format!(
        "In layer {}, each token's vector after the first LayerNorm (x, {} × {d}) is \
         multiplied by three learned {d} × {d} matrices W_Q, W_K and W_V, plus biases, \
         giving its query, key and value; their {d} dimensions are then split into {} \
         heads of {}. For {:?} (token {t}), lengths: {}; drawn by {}.",
        layer.0,
        prompt.trace.meta.tokens.len(),
        config.n_head,
        config.n_embd / config.n_head.max(1),
        prompt.trace.meta.tokens[t].text,
        lengths.join(", "),
        pick.header()
    )
}

#[cfg(test)]
#[path = "qkv_tests.rs"]
mod tests;
