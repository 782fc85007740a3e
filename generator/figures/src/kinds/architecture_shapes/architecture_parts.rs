//! The parts of `figure architecture` every family's diagram shares: the repeated block with
//! the residual stream down its left, its two sublayers (a norm, then attention or the MLP,
//! added back), and the output stages under it with the parameter total. `architecture.rs`
//! draws GPT-2 with them, `architecture_decoder.rs` the Llama family.

use crate::draw::{arrow, labelled_box, line, note, rect, text};
use crate::format::{count, thousands};
use crate::kinds::strips::WIDTH;
use crate::relations::Relation;
use crate::svg::Element;
use tracebook_trace::ModelShape;

pub(super) const RESIDUAL_X: f64 = 40.0;
const SUB_X: f64 = 96.0;
const SUB_W: f64 = WIDTH - SUB_X - 8.0;
/// Where the repeated block starts, under the inputs.
pub(super) const BLOCK_TOP: f64 = 140.0;

/// Under the block: the output `stages` (final norm, unembedding, logits), how they become
/// probabilities and the parameter total; returns the y under them.
pub(super) fn finish(body: &mut Vec<Element>, stages: &[(&str, String)], total: usize) -> f64 {
    finish_at(body, BLOCK_TOP + 262.0, stages, total)
}

/// [`finish`] under a block that ends at `bottom`.
pub(super) fn finish_at(
    body: &mut Vec<Element>,
    bottom: f64,
    stages: &[(&str, String)],
    total: usize,
) -> f64 {
    body.push(arrow((RESIDUAL_X, bottom), (RESIDUAL_X, bottom + 18.0)));
    let (outputs, y) = outputs(stages, bottom + 20.0);
    body.extend(outputs);
    let total = format!("{} parameters in all ({})", count(total), thousands(total));
    body.push(text(0.0, y + 22.0).class("tbf-b").text(total));
    y
}

/// From `top`, the output stages, then how they become probabilities; with the y under them.
fn outputs(stages: &[(&str, String)], top: f64) -> (Vec<Element>, f64) {
    let mut out = Vec::new();
    let mut y = top;
    for (i, (title, detail)) in stages.iter().enumerate() {
        if i > 0 {
            out.push(arrow(
                (RESIDUAL_X + 150.0, y - 14.0),
                (RESIDUAL_X + 150.0, y - 2.0),
            ));
        }
        out.push(labelled_box(0.0, y, WIDTH, 36.0, title, detail));
        y += 50.0;
    }
    out.push(note(
        "softmax over the last row gives the next token's probabilities",
        0.0,
        y,
    ));
    (out, y)
}

/// The repeated block, from `BLOCK_TOP`: the residual stream down the left, two sublayers
/// branching off it and added back.
pub(super) fn block(
    config: &ModelShape,
    block_params: usize,
    n: usize,
    sublayers: &[Sublayer; 2],
) -> Vec<Element> {
    let d = thousands(config.n_embd);
    let top = BLOCK_TOP;
    let mut out = vec![
        rect("tbf-o", 0.0, top, WIDTH, 262.0)
            .attr("rx", 8.0)
            .attr("stroke-dasharray", "4 3"),
        text(WIDTH - 8.0, top + 16.0)
            .class("tbf-b")
            .attr("text-anchor", "end")
            .text(format!("layer × {}", config.n_layer)),
        text(WIDTH - 8.0, top + 31.0)
            .class("tbf-s tbf-dim")
            .attr("text-anchor", "end")
            .text(format!("{} parameters each", count(block_params))),
        line("tbf-line", RESIDUAL_X, top - 10.0, RESIDUAL_X, top + 262.0),
        text(RESIDUAL_X + 6.0, top + 16.0)
            .class("tbf-s tbf-acc")
            .text(format!("residual stream, {n} × {d}")),
    ];
    for (i, sublayer) in sublayers.iter().enumerate() {
        out.extend(sublayer.draw(top + 36.0 + i as f64 * 116.0));
    }
    out
}

/// A norm and the sublayer after it, branching off the residual stream.
pub(super) struct Sublayer {
    pub norm: &'static str,
    pub norm_params: usize,
    pub name: &'static str,
    /// Its sizes and parameter count.
    pub size: String,
}

impl Sublayer {
    /// From `y`: the branch off the stream, the norm, the sublayer, and the add back.
    fn draw(&self, y: f64) -> [Element; 7] {
        [
            arrow((RESIDUAL_X, y + 14.0), (SUB_X - 2.0, y + 14.0)),
            labelled_box(SUB_X, y, SUB_W * 0.5, 28.0, self.norm, ""),
            text(SUB_X + SUB_W * 0.5 + 8.0, y + 18.0)
                .class("tbf-s tbf-dim")
                .text(format!("{} parameters", count(self.norm_params))),
            arrow((SUB_X + 60.0, y + 28.0), (SUB_X + 60.0, y + 40.0)),
            labelled_box(SUB_X, y + 42.0, SUB_W, 40.0, self.name, &self.size),
            arrow((SUB_X, y + 62.0), (RESIDUAL_X + 10.0, y + 88.0)),
            plus(RESIDUAL_X, y + 94.0),
        ]
    }
}

/// The token ids entering a diagram at `top`: a box `width` wide centred on `centre`, titled
/// `title` with `detail` under it, and the arrow down to the embedding under it.
pub(super) fn token_ids(
    top: f64,
    centre: f64,
    width: f64,
    title: &str,
    detail: &str,
) -> [Element; 2] {
    [
        labelled_box(centre - width / 2.0, top, width, 34.0, title, detail),
        arrow((centre, top + 34.0), (centre, top + 50.0)),
    ]
}

/// The prompt's `n` token ids at the top of a decoder-only diagram.
pub(super) fn prompt_ids(n: usize) -> [Element; 2] {
    let detail = format!("T = {n} tokens of the prompt");
    token_ids(0.0, WIDTH / 2.0, 200.0, "token ids", &detail)
}

/// A ⊕ on the residual stream at `(x, y)`.
pub(super) fn plus(x: f64, y: f64) -> Element {
    Element::new("g")
        .child(
            Element::new("circle")
                .class("tbf-box")
                .attr("cx", x)
                .attr("cy", y)
                .attr("r", 9.0),
        )
        .child(
            text(x, y + 5.0)
                .class("tbf-b")
                .attr("text-anchor", "middle")
                .text("+"),
        )
}

/// `result` is the product of `factors`, each as printed.
pub(super) fn product(factors: &[&str], result: String) -> Relation {
    Relation::Product {
        factors: factors.iter().map(|f| f.to_string()).collect(),
        result,
    }
}
