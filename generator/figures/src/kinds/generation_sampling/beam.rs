//! `figure beam`: beam search as a tree. From the prompt, each step extends every kept
//! continuation by its likeliest next tokens, scores each extension by its total
//! log-probability, and keeps the best `width`; the kept ones are drawn bold, the pruned
//! ones faint, and the best final continuation's path in the accent colour, beside what
//! greedy decoding (the top token each step) would have written.
//!
//! The scores are the model's: the trace records a tree (`meta.beam`, asked for with the
//! prompt's `beams = N`) of every node's N likeliest next tokens over `generate` steps, so a
//! beam search of any width up to N replays exactly from it.
//!
//! An encoder-decoder's trace (Marian, BART) draws its decoder's tree: a `source` line with
//! the prompt (the source text) above, the tree rooted at the decoder's start token. A
//! branch that wrote `</s>` has ended: it goes on unchanged as "(end)" with its total ln p,
//! competing with the others' extensions (no length penalty).
//!
//! Options: `prompt`, `caption`, `width` (the beam width, default the traced one, at most
//! it), `steps` (default the traced depth, at most it).

use crate::draw::{line, rect, text, wrapped_notes};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::signed;
use crate::kinds::strips::WIDTH;
use crate::options::Block;
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{Canvas, Css, Element, Font};
use crate::token_text::{cut, cut_start, one_line, titled, visible, Shown};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::BeamTree;

pub const KIND: &str = "beam";

const PITCH: f64 = 28.0;
const TOP: f64 = 26.0;
const FIRST_X: f64 = 86.0;
/// A token's room, and after it its total ln p's: a kept extension's box holds both, and
/// the edges to its own extensions leave from the box's right edge, clear of the number.
const LABEL: f64 = 56.0;
const SCORE: f64 = 30.0;
/// A step's column: its token's box and the total ln p after it, then room for the edges.
const COLUMN: f64 = 112.0;
/// An encoder-decoder's figure: the source's line above the tree moves the tree down.
const SOURCE_LINE: f64 = 20.0;
/// How a branch that has ended (written `</s>`) reads in the steps after.
const ENDED: &str = "(end)";

/// The options of `beam`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    width: Option<usize>,
    steps: Option<usize>,
}

/// One extension considered at a step: the tree node, its total log-probability, the
/// candidate it extends (an index into the previous step's list) and whether it was kept;
/// `ended` for a branch that ended before this step (its node has no children in the tree:
/// an encoder-decoder's `</s>`), carried over as it is.
#[derive(Debug, Clone)]
struct Considered {
    node: usize,
    score: f64,
    from: Option<usize>,
    kept: bool,
    ended: bool,
}

/// What the tree grows from: a decoder-only model's prompt, or an encoder-decoder's
/// decoder start token (after its source text).
struct Root {
    head: &'static str,
    text: String,
    source: Option<String>,
}

impl Root {
    fn of(prompt: &Prompt<'_>) -> Root {
        let meta = &prompt.trace.meta;
        match &meta.translation {
            None => Root {
                head: "prompt",
                text: meta.prompt.text.clone(),
                source: None,
            },
            Some(t) => Root {
                head: "start",
                text: t
                    .tokens
                    .first()
                    .map_or_else(String::new, |t| t.text.clone()),
                source: Some(one_line(&meta.prompt.text)),
            },
        }
    }
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let tree = traced_tree(&prompt)?;
    let width = bounded("width", block.options.width, tree.width, "the traced beams")?;
    let steps = bounded(
        "steps",
        block.options.steps,
        tree.steps,
        "the traced generate",
    )?;
    let children = children(tree);
    let search = search(tree, &children, width, steps);
    let greedy = greedy(tree, &children, steps);
    let text_of = |node: usize| {
        let id = tree.nodes[node].id;
        prompt
            .trace
            .meta
            .token_texts
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("#{id}"))
    };
    let best = best_path(&search);
    let root = Root::of(&prompt);
    let (body, height) = draw(&root, &search, &best, &greedy, &text_of);
    let (body, height) = with_source(&root, body, height, drawn_width(&search));
    let context = one_line(&prompt.trace.meta.prompt.text);
    let (title, after) = match root.source {
        None => (format!("after \"{context}\""), format!("after {context:?}")),
        Some(_) => (
            format!("translating \"{context}\""),
            format!("of the decoder translating {context:?}"),
        ),
    };
    let canvas = Canvas {
        kind: KIND,
        width: drawn_width(&search),
        height,
        title: format!("Beam search of width {width} {title}"),
        desc: describe(&after, width, &search, &best, &greedy, &text_of),
        css: Css::default(),
    };
    let relations = relations(&search, &best);
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations))
}

/// What a reader can check: a total ln p is at most 0 and never rises along a branch (each
/// token adds its ln p ≤ 0); at every step each kept extension scores at least as high as
/// each pruned one; and the best continuation's total in the notes is the one its last box
/// prints, to fewer decimals.
fn relations(search: &[Vec<Considered>], best: &[(usize, usize)]) -> Vec<Relation> {
    let score = |c: &Considered| signed(c.score, 1);
    let mut out = Vec::new();
    for (step, considered) in search.iter().enumerate() {
        for c in considered {
            out.push(Relation::Bound {
                value: score(c),
                low: f64::NEG_INFINITY,
                high: 0.0,
                why: "a log-probability",
            });
            if let Some(from) = c.from {
                out.push(Relation::Order {
                    values: vec![score(&search[step - 1][from]), score(c)],
                    descending: true,
                });
            }
        }
        let by = |kept: bool| considered.iter().filter(move |c| c.kept == kept);
        let lowest_kept = by(true).min_by(|a, b| a.score.total_cmp(&b.score));
        let highest_pruned = by(false).max_by(|a, b| a.score.total_cmp(&b.score));
        if let (Some(kept), Some(pruned)) = (lowest_kept, highest_pruned) {
            out.push(Relation::Order {
                values: vec![score(kept), score(pruned)],
                descending: true,
            });
        }
    }
    if let Some(&(s, i)) = best.last() {
        out.push(Relation::Same {
            a: signed(search[s][i].score, 2),
            b: score(&search[s][i]),
        });
    }
    out
}

fn traced_tree<'p>(prompt: &'p Prompt<'_>) -> Result<&'p BeamTree, FigureError> {
    prompt.trace.meta.beam.as_ref().ok_or_else(|| {
        FigureError::at(
            "prompt",
            format!(
                "the trace of \"{}\" records no beam-search tree",
                prompt.name
            ),
        )
        .with_hint(format!(
            "give the prompt `beams = 3` and `generate = 4` in its table, then run \
             `tracebook trace --only {}`",
            prompt.name
        ))
    })
}

/// `asked`, or `traced` when absent; an error at `key` outside 1..=traced.
fn bounded(
    key: &str,
    asked: Option<usize>,
    traced: usize,
    what: &str,
) -> Result<usize, FigureError> {
    match asked {
        None => Ok(traced),
        Some(n) if (1..=traced).contains(&n) => Ok(n),
        Some(n) => Err(FigureError::at(
            key,
            format!("{key} = {n}, but the trace's tree has {traced} ({what})"),
        )
        .with_hint(format!(
            "use {key} = 1 to {traced}, or raise the prompt's value and re-trace"
        ))),
    }
}

/// Each node's children in order of likelihood; index 0 is the prompt's, node i's at i + 1.
fn children(tree: &BeamTree) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); tree.nodes.len() + 1];
    for (i, node) in tree.nodes.iter().enumerate() {
        out[node.parent.map_or(0, |p| p + 1)].push(i);
    }
    out
}

/// Beam search of `width` over `steps`: per step, every extension considered, in the order
/// of the beams they extend, with the kept ones marked; over early once every kept branch
/// has ended.
fn search(
    tree: &BeamTree,
    children: &[Vec<usize>],
    width: usize,
    steps: usize,
) -> Vec<Vec<Considered>> {
    let mut out: Vec<Vec<Considered>> = Vec::new();
    // The kept candidates of the last step: (index in its list, node, score).
    let mut beams: Vec<(Option<usize>, Option<usize>, f64)> = vec![(None, None, 0.0)];
    for _ in 0..steps {
        let mut considered = Vec::new();
        for &(at, node, score) in &beams {
            let kids = &children[node.map_or(0, |n| n + 1)];
            for &child in kids.iter().take(width) {
                considered.push(Considered {
                    node: child,
                    score: score + f64::from(tree.nodes[child].logprob),
                    from: at,
                    kept: false,
                    ended: false,
                });
            }
            if let (Some(node), true) = (node, kids.is_empty()) {
                considered.push(Considered {
                    node,
                    score,
                    from: at,
                    kept: false,
                    ended: true,
                });
            }
        }
        if !considered.is_empty() && considered.iter().all(|c| c.ended) {
            // Every kept branch has ended: the search is over.
            break;
        }
        let mut order: Vec<usize> = (0..considered.len()).collect();
        order.sort_by(|&a, &b| considered[b].score.total_cmp(&considered[a].score));
        for &i in order.iter().take(width) {
            considered[i].kept = true;
        }
        beams = order
            .iter()
            .take(width)
            .map(|&i| (Some(i), Some(considered[i].node), considered[i].score))
            .collect();
        out.push(considered);
    }
    out
}

/// The top token at each step from the prompt: the nodes greedy decoding writes, and the
/// total log-probability after each.
fn greedy(tree: &BeamTree, children: &[Vec<usize>], steps: usize) -> Vec<(usize, f64)> {
    let mut out = Vec::new();
    let (mut at, mut score) = (0, 0.0);
    for _ in 0..steps {
        let Some(&child) = children[at].first() else {
            break;
        };
        score += f64::from(tree.nodes[child].logprob);
        out.push((child, score));
        at = child + 1;
    }
    out
}

/// The best final candidate's path back to the prompt: `(step, index)` per step.
fn best_path(search: &[Vec<Considered>]) -> Vec<(usize, usize)> {
    let Some(last) = search.last() else {
        return Vec::new();
    };
    let best = (0..last.len()).max_by(|&a, &b| last[a].score.total_cmp(&last[b].score));
    let mut path = Vec::new();
    let mut at = best;
    for step in (0..search.len()).rev() {
        let Some(i) = at else { break };
        path.push((step, i));
        at = search[step][i].from;
    }
    path.reverse();
    path
}

/// The figure's width: the usual one, or wider when the steps need more room.
fn drawn_width(search: &[Vec<Considered>]) -> f64 {
    WIDTH.max(FIRST_X + search.len() as f64 * COLUMN)
}

/// Where candidate `i` of step `step` is drawn: its column's left edge and its row's centre.
fn place(search: &[Vec<Considered>], step: usize, i: usize) -> (f64, f64) {
    let column = (drawn_width(search) - FIRST_X) / search.len().max(1) as f64;
    let rows = search.iter().map(Vec::len).max().unwrap_or(1) as f64;
    let n = search[step].len() as f64;
    let y = TOP + (rows - n) * PITCH / 2.0 + i as f64 * PITCH + PITCH / 2.0;
    (FIRST_X + step as f64 * column, y)
}

fn draw(
    root: &Root,
    search: &[Vec<Considered>],
    best: &[(usize, usize)],
    greedy: &[(usize, f64)],
    text_of: &dyn Fn(usize) -> String,
) -> (Vec<Element>, f64) {
    let rows = search.iter().map(Vec::len).max().unwrap_or(1) as f64;
    let middle = TOP + rows * PITCH / 2.0;
    let full = visible(&root.text);
    let context = cut_start(&full, FIRST_X - 16.0, Font::Mono, 12.0);
    let mut edges = Element::new("g").class("tbf-o");
    let mut path = Element::new("g").class("tbf-line");
    let mut kept_boxes = Element::new("g").class("tbf-tok tbf-c0");
    let mut labels = Element::new("g").class("tbf-m").attr("font-size", 12.0);
    let mut scores = Element::new("g").class("tbf-s tbf-dim");
    let on_best = |step: usize, i: usize| best.contains(&(step, i));
    for (step, considered) in search.iter().enumerate() {
        for (i, c) in considered.iter().enumerate() {
            let (x, y) = place(search, step, i);
            let (px, py) = match c.from {
                Some(from) => {
                    let (px, py) = place(search, step - 1, from);
                    (px + LABEL + SCORE, py)
                }
                None => (FIRST_X - 10.0, middle),
            };
            let edge = line("", px, py, x - 2.0, y);
            if on_best(step, i) {
                path.push(edge);
            } else {
                edges.push(edge);
            }
            if c.kept {
                let width = LABEL + SCORE + 2.0;
                kept_boxes.push(rect("", x - 2.0, y - 11.0, width, 22.0).attr("rx", 3.0));
            }
            let label = if c.ended {
                ENDED.into()
            } else {
                text_of(c.node)
            };
            let shown = Shown::fit(&label, LABEL - 6.0, Font::Mono, 12.0);
            let class = if c.kept { "tbf-b" } else { "tbf-dim" };
            labels.push(shown.append_to(text(x + 1.0, y + 4.0).class(class)));
            scores.push(text(x + LABEL + 1.0, y + 4.0).text(signed(c.score, 1)));
        }
    }
    let [head, prompt_label] = prompt_column(root.head, &full, &context, middle);
    let mut body = vec![head, edges, path, kept_boxes, prompt_label, labels, scores];
    let right = drawn_width(search);
    let paragraphs = notes(search, best, greedy, text_of);
    let (lines, last) = wrapped_notes(&paragraphs, 0.0, TOP + rows * PITCH + 20.0, right, 15.0);
    body.extend(lines);
    (body, last + 9.0)
}

/// The column titles (the first one `first`), and the end of the prompt (`context` of
/// `full`) the tree grows from, at `middle`.
fn prompt_column(first: &str, full: &str, context: &str, middle: f64) -> [Element; 2] {
    let head = Element::new("g")
        .class("tbf-s tbf-dim")
        .child(text(0.0, 12.0).text(first))
        .child(text(FIRST_X, 12.0).text("step 1 →   (total ln p after each token)"));
    let line = text(0.0, middle + 4.0)
        .class("tbf-m")
        .attr("font-size", 12.0);
    [head, titled(line, context, full).text(context.to_string())]
}

/// An encoder-decoder's figure: a `source` line with the source text above the tree
/// (moved down by [`SOURCE_LINE`]); a decoder-only one's, as it is.
fn with_source(root: &Root, body: Vec<Element>, height: f64, right: f64) -> (Vec<Element>, f64) {
    let Some(source) = &root.source else {
        return (body, height);
    };
    let shown = cut(source, right - FIRST_X, Font::Mono, 12.0);
    let line = text(FIRST_X, 12.0).class("tbf-m").attr("font-size", 12.0);
    let tree = body.into_iter().fold(
        Element::new("g").attr("transform", format!("translate(0 {SOURCE_LINE})")),
        Element::child,
    );
    let lines = vec![
        text(0.0, 12.0).class("tbf-s tbf-dim").text("source"),
        titled(line, &shown, source).text(shown.clone()),
        tree,
    ];
    (lines, height + SOURCE_LINE)
}

/// The nodes a path of `(step, index)` writes: an ended branch's steps after its `</s>`
/// write nothing.
fn path_nodes(search: &[Vec<Considered>], path: &[(usize, usize)]) -> Vec<usize> {
    let on = path.iter().map(|&(s, i)| &search[s][i]);
    on.filter(|c| !c.ended).map(|c| c.node).collect()
}

/// The tokens on a path, as one string with visible spaces.
fn spelled(nodes: &[usize], text_of: &dyn Fn(usize) -> String) -> String {
    visible(&nodes.iter().map(|&n| text_of(n)).collect::<String>())
}

fn notes(
    search: &[Vec<Considered>],
    best: &[(usize, usize)],
    greedy: &[(usize, f64)],
    text_of: &dyn Fn(usize) -> String,
) -> Vec<String> {
    let width = search.first().map_or(0, |s| s.len());
    let mut lines = vec![format!(
        "each step keeps the {} extensions with the highest total ln p (boxed)",
        search
            .get(1)
            .map_or(width, |s| s.iter().filter(|c| c.kept).count())
    )];
    if search.iter().flatten().any(|c| c.ended) {
        lines.push(format!(
            "{ENDED}: a branch that wrote </s> has ended; it stays, its total ln p unchanged"
        ));
    }
    let best_nodes = path_nodes(search, best);
    if let Some(&(s, i)) = best.last() {
        lines.push(format!(
            "beam: \"{}\", ln p {}",
            spelled(&best_nodes, text_of),
            signed(search[s][i].score, 2)
        ));
    }
    let greedy_nodes: Vec<usize> = greedy.iter().map(|g| g.0).collect();
    if let Some(&(_, score)) = greedy.last() {
        lines.push(format!(
            "greedy (top token each step): \"{}\", ln p {}",
            spelled(&greedy_nodes, text_of),
            signed(score, 2)
        ));
    }
    lines
}

fn describe(
    after: &str,
    width: usize,
    search: &[Vec<Considered>],
    best: &[(usize, usize)],
    greedy: &[(usize, f64)],
    text_of: &dyn Fn(usize) -> String,
) -> String {
    let best_nodes = path_nodes(search, best);
    let greedy_nodes: Vec<usize> = greedy.iter().map(|g| g.0).collect();
    let best_score = best.last().map_or(0.0, |&(s, i)| search[s][i].score);
    let greedy_score = greedy.last().map_or(0.0, |g| g.1);
    format!(
        "Beam search of width {width} over {} steps {after}: each step extends the \
         kept continuations by their likeliest next tokens and keeps the {width} with the \
         highest total log-probability. It ends with {:?} (ln p {}); greedy decoding writes \
         {:?} (ln p {}).",
        search.len(),
        best_nodes.iter().map(|&n| text_of(n)).collect::<String>(),
        signed(best_score, 2),
        greedy_nodes.iter().map(|&n| text_of(n)).collect::<String>(),
        signed(greedy_score, 2),
    )
}

#[cfg(test)]
#[path = "beam_tests.rs"]
mod tests;
