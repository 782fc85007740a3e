//! `figure flow`: which tokens carried information to the prediction, block by block, in the
//! manner of Meta's LLM Transparency Tool (Ferrando & Voita, 2024). A prompt traced with
//! `attribute = { targets = [...] }` records, for every block and position, the share of the
//! attention sublayer's result that came from each token and the share the stream kept
//! (`meta.attribution.flow`). The graph has a row per token and a column per layer boundary
//! (the embeddings, then after each block); an edge from token `j` before block `l` to token
//! `i` after it is drawn where block `l`'s attention moved at least the threshold's share of
//! `i`'s result from `j`, and only where it leads, edge by edge, to the last token after the
//! last block: what reached the prediction. The stream kept at a token is the grey line along
//! its row; an orange square marks an MLP that wrote at least the threshold's share there.
//! At most 120 edges between tokens are drawn: past them the threshold rises, and the note
//! says so.
//! Every edge carries its share as a tooltip; the strongest edges into the last token are
//! listed under the graph.
//!
//! Options: `prompt`, `caption`, `threshold` (the smallest share drawn, in (0, 1); default
//! 0.04, the Transparency Tool's).

use crate::draw::{text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::kinds::strips::WIDTH;
use crate::options::Block;
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{number, Canvas, Css, Element, Font};
use crate::token_text::{visible, with_title, Shown};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::Flow;

pub const KIND: &str = "flow";

/// The Transparency Tool's default threshold.
const THRESHOLD: f64 = 0.04;
/// The token labels' column, and the rows' pitch.
const LABELS: f64 = 88.0;
const ROW: f64 = 22.0;
/// The strongest edges into the last token listed under the graph.
const LISTED: usize = 3;
/// The most edges between tokens drawn: past them the threshold rises.
const MAX_EDGES: usize = 120;

/// The options of `flow`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    threshold: Option<f64>,
}

/// An edge of block `layer`: token `from` before it to token `to` after it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Edge {
    layer: usize,
    from: usize,
    to: usize,
    /// The attention's share (for `from == to`: the stream's and the token's own attention's).
    share: f64,
}

/// The graph that reaches the prediction: kept nodes per boundary, and the edges.
#[derive(Debug)]
struct Graph {
    tokens: usize,
    layers: usize,
    /// `kept[boundary][token]`: boundary 0 is the embeddings, `l + 1` after block `l`.
    kept: Vec<Vec<bool>>,
    edges: Vec<Edge>,
}

impl Graph {
    /// The edges from other tokens into the last token, largest share first (the earlier
    /// block first on a tie): what the list under the graph and the alt text name.
    fn edges_into_last(&self) -> Vec<&Edge> {
        let last = self.tokens - 1;
        let mut into: Vec<&Edge> = (self.edges.iter())
            .filter(|e| e.to == last && e.from != last)
            .collect();
        into.sort_by(|a, b| b.share.total_cmp(&a.share).then(a.layer.cmp(&b.layer)));
        into
    }
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let threshold = block.options.threshold.unwrap_or(THRESHOLD);
    if !(threshold > 0.0 && threshold < 1.0) {
        return Err(FigureError::at(
            "threshold",
            format!("threshold = {threshold} is not a share between 0 and 1"),
        )
        .with_hint("the smallest share of a token's update an edge carries, e.g. 0.04"));
    }
    let flow = traced(&prompt)?;
    let (graph, drawn_at) = at_most(flow, threshold);
    let tokens = token_texts(&prompt);
    let (body, height, relations) = draw(&graph, flow, &tokens, (threshold, drawn_at));
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!(
            "How information flowed to the prediction after {}",
            visible(&tokens[graph.tokens - 1])
        ),
        desc: describe(&graph, &tokens, drawn_at),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations))
}

/// The prompt's flow, checked to cover its tokens in every block, or an error that says how to
/// record one.
fn traced<'p>(prompt: &'p Prompt<'_>) -> Result<&'p Flow, FigureError> {
    let a = super::logit_attribution::traced(prompt)?;
    let flow = &a.flow;
    let t = prompt.trace.meta.tokens.len();
    let layers = prompt.config().n_layer;
    if flow.residual.is_empty() {
        return Err(FigureError::at(
            "prompt",
            format!(
                "the trace of \"{}\" records an attribution without information flow (it was \
                 made before tracebook recorded flow)",
                prompt.name
            ),
        )
        .with_hint(format!(
            "run `tracebook trace --only {} --force`",
            prompt.name
        )));
    }
    let share = |v: &f32| v.is_finite() && (-1e-4..=1.0 + 1e-4).contains(v);
    let fits = |rows: &[Vec<f32>], width: usize| {
        rows.len() == layers && rows.iter().all(|r| r.len() == width && r.iter().all(share))
    };
    if !(fits(&flow.attn, t * t) && fits(&flow.residual, t) && fits(&flow.mlp, t)) {
        return Err(prompt.broken(format!(
            "the information flow in the trace of \"{}\" does not cover its {t} tokens in each \
             of the model's {layers} layers, or holds a number that is not a share",
            prompt.name
        )));
    }
    Ok(flow)
}

fn token_texts(prompt: &Prompt<'_>) -> Vec<String> {
    (prompt.trace.meta.tokens.iter())
        .map(|t| t.text.clone())
        .collect()
}

/// The edges of at least `threshold` that lead, back from the last token after the last
/// block, through kept nodes only.
fn prune(flow: &Flow, threshold: f64) -> Graph {
    let (tokens, layers) = (flow.positions(), flow.residual.len());
    let mut kept = vec![vec![false; tokens]; layers + 1];
    kept[layers][tokens - 1] = true;
    let mut edges = Vec::new();
    for l in (0..layers).rev() {
        for to in 0..tokens {
            if !kept[l + 1][to] {
                continue;
            }
            for (from, reached) in kept[l].iter_mut().enumerate().take(to + 1) {
                let mut share = f64::from(flow.edge(l, to, from).unwrap_or(0.0));
                if from == to {
                    share += f64::from(flow.residual[l][to]);
                }
                if share >= threshold {
                    *reached = true;
                    edges.push(Edge {
                        layer: l,
                        from,
                        to,
                        share,
                    });
                }
            }
        }
    }
    Graph {
        tokens,
        layers,
        kept,
        edges,
    }
}

/// The pruned graph at `threshold`, or at the higher threshold that keeps at most
/// [`MAX_EDGES`] edges between tokens (a long prompt in a deep model has thousands over a few
/// percent); with the threshold drawn at.
fn at_most(flow: &Flow, threshold: f64) -> (Graph, f64) {
    let graph = prune(flow, threshold);
    let mut across: Vec<f64> = (graph.edges.iter())
        .filter(|e| e.from != e.to)
        .map(|e| e.share)
        .collect();
    if across.len() <= MAX_EDGES {
        return (graph, threshold);
    }
    across.sort_by(|a, b| b.total_cmp(a));
    // Just above the first edge left out: pruning at it keeps a subset of these edges.
    let raised = across[MAX_EDGES] + 1e-9;
    (prune(flow, raised), raised)
}

/// Two decimals, as every share is printed.
fn share(v: f64) -> String {
    format!("{:.2}", v.max(0.0))
}

/// Where the graph's nodes sit: a column per layer boundary, a row per token.
struct Layout {
    header: f64,
    top: f64,
    gap: f64,
}

impl Layout {
    fn x(&self, boundary: usize) -> f64 {
        LABELS + 4.0 + boundary as f64 * self.gap
    }
    fn y(&self, token: usize) -> f64 {
        self.top + token as f64 * ROW
    }
    /// A path's move to node (`boundary`, `token`).
    fn to(&self, boundary: usize, token: usize) -> String {
        format!(
            "M{} {}",
            number(self.x(boundary), 1),
            number(self.y(token), 1)
        )
    }
}

/// The graph, its note and the list of the strongest edges into the last token; with the
/// height and the relations among the printed shares. Only the edges between tokens carry
/// numbers (tooltips): the rows' lines, the nodes and the MLP marks are drawn as a few paths,
/// so that a GPT-2-small-sized graph stays light.
fn draw(
    graph: &Graph,
    flow: &Flow,
    tokens: &[String],
    (asked, threshold): (f64, f64),
) -> (Vec<Element>, f64, Vec<Relation>) {
    let (note, last) = wrapped_note(&what(asked, threshold), 0.0, 12.0, WIDTH, 15.0);
    let mut body = vec![note];
    let mut relations = vec![Relation::Bound {
        value: share(threshold),
        low: 0.0,
        high: 1.0,
        why: "a share",
    }];
    let at = Layout {
        header: last + 20.0,
        top: last + 34.0,
        gap: (WIDTH - LABELS - 14.0) / graph.layers as f64,
    };
    body.extend(headings(graph.layers, &at));
    body.extend(rows(graph, flow, tokens, &at, threshold));
    let (edges, found) = edges(graph, tokens, &at, threshold);
    body.insert(body.len() - 2, edges);
    relations.extend(found);
    let bottom = at.y(graph.tokens - 1) + 16.0;
    let (listed, below, found) = strongest(graph, tokens, bottom + 8.0);
    body.extend(listed);
    relations.extend(found);
    (body, below + 6.0, relations)
}

/// The note over the graph: what its lines and marks are, at which threshold.
fn what(asked: f64, threshold: f64) -> String {
    let raised = if threshold > asked {
        format!(
            " (raised from {} to draw at most {MAX_EDGES} edges)",
            share(asked)
        )
    } else {
        String::new()
    };
    format!(
        "Each row is a token, each column the stream after a block. A blue line: that block's \
         attention moved at least {}{raised} of the later token's update from the earlier one; \
         grey: the token's own stream; orange square: its MLP wrote at least that share. Only \
         what reaches the last token is drawn.",
        share(threshold)
    )
}

/// "block" over the token labels, each block's number over the gap its edges span.
fn headings(layers: usize, at: &Layout) -> Vec<Element> {
    let heading = |x: f64, label: String, anchor: &str| {
        (text(x, at.header).class("tbf-s tbf-dim"))
            .attr("text-anchor", anchor.to_string())
            .text(label)
    };
    let mut out = vec![heading(LABELS - 6.0, "block".to_string(), "end")];
    for l in 0..layers {
        out.push(heading(
            (at.x(l) + at.x(l + 1)) / 2.0,
            l.to_string(),
            "middle",
        ));
    }
    out
}

/// The token labels; then, as one path each, the rows' kept stream, the MLP marks (in three
/// bins of share), the kept nodes and the others, faint. The last two come last, so the
/// edges go in before them.
fn rows(
    graph: &Graph,
    flow: &Flow,
    tokens: &[String],
    at: &Layout,
    threshold: f64,
) -> Vec<Element> {
    let mut out = Vec::new();
    let (mut kept, mut dots, mut faint) = (String::new(), String::new(), String::new());
    let mut marks = [String::new(), String::new(), String::new()];
    for (i, raw) in tokens.iter().enumerate() {
        let label =
            (text(LABELS - 6.0, at.y(i) + 4.0).class("tbf-m tbf-s")).attr("text-anchor", "end");
        out.push(Shown::fit(raw, LABELS - 10.0, Font::Mono, 12.0).append_to(label));
        for b in 0..=graph.layers {
            let dot = format!("{}h0", at.to(b, i));
            (if graph.kept[b][i] {
                &mut dots
            } else {
                &mut faint
            })
            .push_str(&dot);
        }
        for edge in graph.edges.iter().filter(|e| e.from == i && e.to == i) {
            let end = number(at.x(edge.layer + 1), 1);
            kept.push_str(&format!("{}H{end}", at.to(edge.layer, i)));
        }
        for b in (1..=graph.layers).filter(|&b| graph.kept[b][i]) {
            let mlp = f64::from(flow.mlp[b - 1][i]);
            if mlp >= threshold {
                let corner = format!("M{} {}", number(at.x(b) + 3.0, 1), number(at.y(i) - 9.0, 1));
                marks[((mlp * 3.0) as usize).min(2)].push_str(&format!("{corner}h4v4h-4z"));
            }
        }
    }
    let path = |class: &str, d: String| Element::new("path").class(class).attr("d", d);
    out.push(path("tbf-grid", kept).attr("stroke-width", 3.0));
    for (bin, d) in marks.into_iter().enumerate().filter(|m| !m.1.is_empty()) {
        out.push(path("tbf-c1", d).attr("fill-opacity", 0.2 + 0.25 * bin as f64));
    }
    let round = |p: Element, width: f64| {
        p.attr("stroke-width", width)
            .attr("stroke-linecap", "round")
    };
    out.push(round(path("tbf-o", dots), 5.0));
    out.push(round(path("tbf-grid", faint), 3.0));
    out
}

/// The edges between tokens, each with its share in a tooltip, and their relations.
fn edges(
    graph: &Graph,
    tokens: &[String],
    at: &Layout,
    threshold: f64,
) -> (Element, Vec<Relation>) {
    let mut group = Element::new("g").class("tbf-c0");
    let mut relations = Vec::new();
    for edge in graph.edges.iter().filter(|e| e.from != e.to) {
        let tip = format!(
            "block {}: {} → {}, {}",
            edge.layer,
            visible(&tokens[edge.from]),
            visible(&tokens[edge.to]),
            share(edge.share)
        );
        let drawn = Element::new("line")
            .attr("x1", at.x(edge.layer))
            .attr("y1", at.y(edge.from))
            .attr("x2", at.x(edge.layer + 1))
            .attr("y2", at.y(edge.to))
            .attr("stroke-width", 0.75 + 3.5 * edge.share)
            .attr("stroke-opacity", 0.35 + 0.6 * edge.share);
        group.push(with_title(drawn, &tip));
        relations.push(bounded(share(edge.share), threshold));
    }
    (group, relations)
}

/// A share drawn because it reached the threshold: printed, it lies in [threshold, 1].
fn bounded(value: String, threshold: f64) -> Relation {
    Relation::Bound {
        value,
        low: threshold,
        high: 1.0,
        why: "a share drawn at the threshold",
    }
}

/// Under the graph: the strongest edges from other tokens into the last token, largest first.
fn strongest(graph: &Graph, tokens: &[String], y: f64) -> (Vec<Element>, f64, Vec<Relation>) {
    let last = graph.tokens - 1;
    let mut into = graph.edges_into_last();
    into.truncate(LISTED);
    if into.is_empty() {
        let said = format!(
            "No block's attention moved as much as the threshold into {} from another token.",
            visible(&tokens[last])
        );
        let (note, below) = wrapped_note(&said, 0.0, y, WIDTH, 15.0);
        return (vec![note], below, Vec::new());
    }
    let parts: Vec<String> = (into.iter())
        .map(|e| {
            format!(
                "{} from {} in block {}",
                share(e.share),
                visible(&tokens[e.from]),
                e.layer
            )
        })
        .collect();
    let said = format!(
        "Into {} from other tokens, the most: {}.",
        visible(&tokens[last]),
        parts.join("; ")
    );
    let (note, below) = wrapped_note(&said, 0.0, y, WIDTH, 15.0);
    let values: Vec<String> = into.iter().map(|e| share(e.share)).collect();
    let relations = vec![Relation::Order {
        values,
        descending: true,
    }];
    (vec![note], below, relations)
}

/// The alt text: what is drawn, how many edges, the strongest into the last token.
fn describe(graph: &Graph, tokens: &[String], threshold: f64) -> String {
    let last = graph.tokens - 1;
    let across = graph.edges.iter().filter(|e| e.from != e.to).count();
    let into = graph.edges_into_last();
    let mut out = format!(
        "Information flow through the model's {} blocks over the {} tokens of the prompt, back \
         from the prediction after {:?}: {across} attention edges carry at least {} of a \
         token's update and lead to the last token.",
        graph.layers,
        graph.tokens,
        tokens[last],
        share(threshold)
    );
    if let Some(e) = into.first() {
        out.push_str(&format!(
            " The strongest into the last token: {} from {:?} in block {}.",
            share(e.share),
            tokens[e.from],
            e.layer
        ));
    }
    out
}

#[cfg(test)]
#[path = "flow_tests.rs"]
mod tests;
