//! `figure gated-mlp`: one token through the Llama family's gated MLP. Two projections of
//! the normalized input, `mlp.gate` and `mlp.up`; the gate through the activation (SiLU, or
//! GELU for Gemma) is `mlp.act`; `mlp.post` = act × up is what the down projection reads.
//! Heat strips of the first neurons of all four, in that order, then the neurons with the
//! largest |post| with their numbers: act(gate) × up = post.
//!
//! Options: `prompt`, `caption`, `layer` (required), `token` (default -1), `dims` (neurons in
//! the strips, default 24, at most 64), `spread`, `top` (neurons listed, default 6, at most
//! 12). GPT-2 traces are refused by name: GPT-2's MLP has no gate (see `mlp`).

use crate::draw::{text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, thousands};
use crate::kinds::strips::{self, DimPick, StripFigure, WIDTH};
use crate::options::{Block, Dims, Int, Layer, LayerKey, TokenKey};
use crate::prompt::{FamilyPart, Prompt};
use crate::relations::{Func, Relation};
use crate::shared::{Domain, SharedScale};
use crate::strip::{norm, StripRow};
use crate::svg::{Canvas, Element};
use crate::token_text::{visible, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "gated-mlp";

/// The options of `gated-mlp`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    #[serde(default)]
    token: TokenKey,
    dims: Option<Dims>,
    #[serde(default)]
    spread: bool,
    #[serde(default)]
    top: Int<1, 12, 6>,
}

/// One token's four vectors, each `inner` wide, in the order the MLP makes them.
struct Pass {
    layer: Layer,
    /// (name, values): gate, act, up, post.
    parts: Vec<(&'static str, Vec<f64>)>,
    /// "SiLU" or "GELU".
    activation: String,
}

impl Pass {
    /// The activation as a function a reader can recompute, where it is one.
    fn function(&self) -> Option<Func> {
        match self.activation.as_str() {
            "SiLU" => Some(Func::Silu),
            "GELU" => Some(Func::Gelu),
            _ => None,
        }
    }

    fn part(&self, name: &str) -> &[f64] {
        &self
            .parts
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a part")
            .1
    }
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    block.prompt.needs_family(KIND, FamilyPart::GatedMlp)?;
    let layer = block.layer(KIND, block.options.layer)?;
    let t = block.token(block.options.token)?.0;
    let (dims, spread, top) = (
        block.options.dims,
        block.options.spread,
        block.options.top.get(),
    );
    let (prompt, caption) = (block.prompt, block.caption);
    let pass = read(&prompt, layer, t)?;
    let inner = pass.part("gate").len();
    let pick = DimPick::read(dims, spread, inner, 24)?;
    let mut relations = Vec::new();
    let (body, height, css, domain) = draw(&prompt, t, &pick, &pass, top, shared, &mut relations);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!("Gated MLP, layer {}", layer.0),
        desc: describe(&prompt, t, &pass, top),
        css,
    };
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

fn read(prompt: &Prompt<'_>, layer: Layer, t: usize) -> Result<Pass, FigureError> {
    let gate_name = format!("blocks.{}.mlp.gate", layer.0);
    let inner = match prompt.trace.shape(&gate_name) {
        Some([_, inner]) => *inner,
        _ => {
            return Err(prompt.broken(format!(
                "the trace of \"{}\" has no T × inner `{gate_name}`",
                prompt.name
            )))
        }
    };
    let mut parts = Vec::new();
    for name in ["gate", "act", "up", "post"] {
        let values = prompt
            .block(layer, &format!("mlp.{name}"), inner)?
            .row(&[t]);
        parts.push((name, values));
    }
    let function = &prompt.config().activation_function;
    let activation = if function.contains("gelu") {
        "GELU".to_string()
    } else if function == "silu" || function == "swish" {
        "SiLU".to_string()
    } else {
        function.clone()
    };
    Ok(Pass {
        layer,
        parts,
        activation,
    })
}

/// The sizes line, the strips (on `shared` if given) and the top neurons: the elements,
/// height, colour rules and domain.
fn draw(
    prompt: &Prompt<'_>,
    t: usize,
    pick: &DimPick,
    pass: &Pass,
    top: usize,
    shared: Option<&SharedScale>,
    relations: &mut Vec<Relation>,
) -> (Vec<Element>, f64, crate::svg::Css, Domain) {
    let act = format!("{}(gate)", pass.activation);
    let rows = pass
        .parts
        .iter()
        .map(|(name, values)| StripRow {
            label: Shown::plain(if *name == "act" { act.as_str() } else { name }),
            values: pick.take(values),
            summary: format!("‖·‖ {}", short(norm(values))),
            gap_before: if *name == "up" { 6.0 } else { 0.0 },
        })
        .collect();
    let figure = StripFigure {
        rows,
        header: format!(
            "{} (token {t}): {}",
            visible(&prompt.trace.meta.tokens[t].text),
            pick.header()
        ),
        summary_title: "",
        legend_title: "value".to_string(),
        notes: Vec::new(),
    };
    let d = prompt.config().n_embd;
    let inner = pass.part("gate").len();
    let sizes = format!(
        "post = {act} × up: {} → gate and up, {} each → post → {}",
        thousands(d),
        thousands(inner),
        thousands(d)
    );
    let (line, last) = wrapped_note(&sizes, 0.0, 12.0, WIDTH, 15.0);
    let drawn = strips::draw_placed(&figure, last + 6.0, shared);
    let mut body = vec![line];
    body.extend(drawn.elements);
    let bottom = neurons(pass, top, drawn.height + 8.0, &mut body, relations);
    (body, bottom, drawn.css, figure.domain())
}

/// The `top` neurons by |post|, largest first (ties: lower index first).
fn strongest(pass: &Pass, top: usize) -> Vec<usize> {
    let post = pass.part("post");
    let mut order: Vec<usize> = (0..post.len()).collect();
    order.sort_by(|&a, &b| post[b].abs().total_cmp(&post[a].abs()).then(a.cmp(&b)));
    order.truncate(top);
    order
}

/// One line per strongest neuron: "n 123: SiLU(1.20) = 0.920 × −0.500 = −0.460".
fn neurons(
    pass: &Pass,
    top: usize,
    y: f64,
    body: &mut Vec<Element>,
    relations: &mut Vec<Relation>,
) -> f64 {
    body.push(
        text(0.0, y + 12.0)
            .class("tbf-s tbf-b")
            .text(format!("The {top} neurons with the largest |post|")),
    );
    let mut group = Element::new("g").class("tbf-s tbf-m");
    let mut last = y + 12.0;
    // Neuron numbers and their colon right-aligned in a column as wide as the widest.
    let widest = thousands(pass.part("post").len().saturating_sub(1)).len() + 1;
    let numbers = widest as f64 * 7.5 + 2.0;
    for (row, n) in strongest(pass, top).into_iter().enumerate() {
        last = y + 30.0 + row as f64 * 16.0;
        let [gate, act, up, post] = ["gate", "act", "up", "post"].map(|p| short(pass.part(p)[n]));
        let line = format!("{}({gate}) = {act} × {up} = {post}", pass.activation);
        if let Some(f) = pass.function() {
            relations.push(Relation::Function {
                f,
                input: gate.clone(),
                output: act.clone(),
            });
        }
        relations.push(Relation::Product {
            factors: vec![act, up],
            result: post,
        });
        let number = text(numbers, last).attr("text-anchor", "end");
        group.push(number.text(format!("{}:", thousands(n))));
        group.push(text(numbers + 8.0, last).text(line));
    }
    body.push(group);
    let note = format!(
        "A neuron is quiet when its gate is negative ({} is near 0 there), whatever its up; \
         the down projection reads post.",
        pass.activation
    );
    let (note, end) = wrapped_note(&note, 0.0, last + 20.0, WIDTH, 15.0);
    body.push(note);
    end + 10.0
}

fn describe(prompt: &Prompt<'_>, t: usize, pass: &Pass, top: usize) -> String {
    let post = pass.part("post");
    let best = strongest(pass, top.min(1));
    let strongest_text = best
        .first()
        .map(|&n| {
            format!(
                " The strongest is neuron {}, post {}.",
                thousands(n),
                short(post[n])
            )
        })
        .unwrap_or_default();
    format!(
        "The gated MLP of layer {} for {:?} (token {t}): the gate and up projections, {} \
         neurons each; {}(gate) × up = post, which the down projection reads. Strips show \
         gate, {}(gate), up and post.{strongest_text}",
        pass.layer.0,
        prompt.trace.meta.tokens[t].text,
        thousands(post.len()),
        pass.activation,
        pass.activation
    )
}

#[cfg(test)]
#[path = "gated_mlp_tests.rs"]
mod tests;
