//! `figure logit-attribution`: what each part of the model wrote into one next token's logit
//! (direct logit attribution). A prompt traced with `attribute = { targets = [...] }` records,
//! for each target at the last position, the share of its logit that the embedding, every
//! attention head, every MLP and the biases wrote into the residual stream, read through the
//! final norm with its scale held (`meta.attribution`). The headline prints the sum (logit =
//! embedding + heads + MLPs + biases); the grid has a row per layer and a column per head,
//! then one for the layer's MLP, each cell coloured on the diverging scale (red where the part
//! pushes the target up, blue where it pushes it down) and, where the numbers fit, carrying
//! its share in logit units.
//!
//! Options: `prompt`, `caption`, `target` (the target's text as `attribute` lists it, leading
//! space included; default the first). With several targets every target's grid is drawn, all
//! but the figure's own hidden, for the page's target picker, on one colour scale.

use super::effect_grid::{self, hundredths, tenths, Scale, Table};
use super::targets;
use crate::draw::{line, text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::signed;
use crate::kinds::strips::WIDTH;
use crate::options::Block;
use crate::panels::{self, Panel};
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::shared::{self, Domain, SharedScale};
use crate::svg::{Canvas, Element, Font, Ramp, WIDE_FONT};
use crate::token_text::{fitted, visible, Shown};
use crate::Traces;
use serde::Deserialize;

use tracebook_trace::Attribution;

pub const KIND: &str = "logit-attribution";

/// The most cells (over every target's grid) a figure carries in the page itself.
const DEFER_CELLS: usize = 120;

/// The options of `logit-attribution`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    target: Option<String>,
}

/// The attribution, checked: per target, per layer, the heads' shares then the MLP's.
struct Shares<'a> {
    attribution: &'a Attribution,
    layers: usize,
    heads: usize,
    /// `[target][layer][column]` (columns: heads, then the MLP).
    grid: Vec<Vec<Vec<f64>>>,
}

impl Shares<'_> {
    fn target(&self, t: usize) -> &str {
        &self.attribution.targets[t].text
    }

    /// The four terms of the headline's sum: embedding, heads, MLPs, biases.
    fn terms(&self, t: usize) -> [f64; 4] {
        let a = self.attribution;
        let grid = &self.grid[t];
        let heads: f64 = grid
            .iter()
            .map(|row| row[..self.heads].iter().sum::<f64>())
            .sum();
        let mlp: f64 = grid.iter().map(|row| row[self.heads]).sum();
        [f64::from(a.embed[t]), heads, mlp, f64::from(a.bias[t])]
    }

    fn logit(&self, t: usize) -> f64 {
        f64::from(self.attribution.logit[t])
    }
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let attribution = traced(&prompt)?;
    let shares = read(&prompt, attribution)?;
    let asked = block.options.target.as_deref();
    let t = targets::index(&prompt, &attribution.targets, asked, targets::ATTRIBUTION)?;
    let own = effect_grid::limit(shares.grid.iter().flatten().flatten().copied());
    let limit = shared::signed_limit(shared, own);
    let scale = |t: usize| Scale {
        limit,
        label: if limit < 1.0 { hundredths } else { tenths },
        title: format!("share of logit({}), logit units", visible(shares.target(t))),
        shared: shared::note(shared),
    };
    let (panels, relations) = panels_of(&shares, &scale);
    let (width, height) = panels::extent(&panels, WIDTH);
    let canvas = Canvas {
        kind: KIND,
        width,
        height,
        title: format!(
            "What each head and MLP wrote into logit({})",
            visible(shares.target(t))
        ),
        desc: describe(&shares, t),
        css: Ramp::signed().css(),
    };
    // Past a few dozen cells a target's grid weighs kilobytes (GPT-2 small: 156 numbered
    // cells): the other targets' grids then wait in a file the page loads on the first pick.
    let cells = shares.layers * (shares.heads + 1) * panels.len();
    let label = |_: &str, i: usize| attribution.targets.get(i).map(|n| visible(&n.text));
    let panels = panels.into_iter().map(|p| p.0).collect();
    let (body, live, deferred) = panels::by_target(panels, t, &label, cells > DEFER_CELLS);
    let figure = (Figure::new(canvas, body, caption, &prompt))
        .with_relations(relations)
        .with_deferred(deferred)
        .with_live_if(live);
    Ok((figure, Domain::Signed { limit: own }))
}

/// Every target's panel (with its right edge and bottom), and the relations of them all.
fn panels_of(
    shares: &Shares<'_>,
    scale: &dyn Fn(usize) -> Scale,
) -> (Vec<(Panel, f64, f64)>, Vec<Relation>) {
    let mut relations = Vec::new();
    let panels = (0..shares.attribution.targets.len())
        .map(|i| {
            let (body, right, bottom, found) = panel(shares, i, &scale(i));
            relations.extend(found);
            let key = vec![("target", i)];
            (Panel { key, body }, right, bottom)
        })
        .collect();
    (panels, relations)
}

/// The prompt's attribution, or an error that says how to ask for one.
pub(super) fn traced<'p>(prompt: &'p Prompt<'_>) -> Result<&'p Attribution, FigureError> {
    prompt.trace.meta.attribution.as_ref().ok_or_else(|| {
        FigureError::at(
            "prompt",
            format!("the trace of \"{}\" records no attribution", prompt.name),
        )
        .with_hint(format!(
            "give the prompt `attribute = {{ targets = [{:?}] }}` in its table (the next \
             tokens whose logit is split among the model's parts), then run `tracebook trace \
             --only {}`",
            super::ablation::likeliest(prompt).unwrap_or_else(|| " Paris".to_string()),
            prompt.name
        ))
    })
}

/// The shares of every target, checked to cover every head and MLP of the model.
fn read<'a>(prompt: &Prompt<'_>, a: &'a Attribution) -> Result<Shares<'a>, FigureError> {
    let config = prompt.config();
    let (layers, heads) = (config.n_layer, config.n_head);
    let k = a.targets.len();
    let finite = |v: &[f32]| v.len() == k && v.iter().all(|x| x.is_finite());
    let shaped = k > 0
        && a.heads.len() == layers
        && a.mlp.len() == layers
        && a.heads
            .iter()
            .all(|row| row.len() == heads * k && finite(&row[..k]))
        && a.heads.iter().flatten().all(|x| x.is_finite())
        && a.mlp.iter().all(|row| finite(row))
        && finite(&a.logit)
        && finite(&a.embed)
        && finite(&a.bias);
    if !shaped {
        return Err(prompt.broken(format!(
            "the attribution in the trace of \"{}\" does not cover the model's {layers} layers \
             of {heads} heads and their MLPs for each of its {k} targets, or holds a number \
             that is not finite",
            prompt.name
        )));
    }
    let grid = (0..k)
        .map(|t| {
            (0..layers)
                .map(|l| {
                    (0..heads)
                        .map(|h| f64::from(a.heads[l][h * k + t]))
                        .chain([f64::from(a.mlp[l][t])])
                        .collect()
                })
                .collect()
        })
        .collect();
    Ok(Shares {
        attribution: a,
        layers,
        heads,
        grid,
    })
}

/// The headline's sum, as printed: "logit( his) = 6.41 = embedding 1.20 + heads 3.05 + MLPs
/// 2.00 + biases 0.16", with the relation that the terms add up to the logit.
fn headline(shares: &Shares<'_>, t: usize) -> (String, String, Relation) {
    let logit = signed(shares.logit(t), 2);
    let terms: Vec<String> = shares.terms(t).iter().map(|&v| signed(v, 2)).collect();
    let names = ["embedding", "heads", "MLPs", "biases"];
    let parts: Vec<String> = (names.iter().zip(&terms))
        .map(|(n, v)| format!("{n} {v}"))
        .collect();
    let first = format!("logit({}) = {logit}", visible(shares.target(t)));
    let second = format!("= {}", parts.join(" + "));
    let relation = Relation::Sum {
        terms,
        total: logit,
    };
    (first, second, relation)
}

/// One target's panel: the headline and its sum, the note on what a cell is, the grid with
/// the MLP column set apart, the legend; with its right edge, bottom and relations.
fn panel(shares: &Shares<'_>, t: usize, scale: &Scale) -> (Vec<Element>, f64, f64, Vec<Relation>) {
    let (first, second, sum) = headline(shares, t);
    let head = text(0.0, 12.0).class("tbf-s tbf-b");
    let mut body = vec![fitted(head, &first, WIDTH / WIDE_FONT, Font::Sans, 12.0)];
    let (sum_line, below_sum) = wrapped_note(&second, 0.0, 30.0, WIDTH, 15.0);
    body.push(sum_line);
    let what = "each cell: what that head (last column: the layer's MLP) wrote into the \
                residual stream at the last position, read through the final norm at the \
                run's scale; in logit units";
    let (note, last) = wrapped_note(what, 0.0, below_sum + 18.0, WIDTH, 15.0);
    body.push(note);
    let table = Table {
        rows: (0..shares.layers)
            .map(|l| Shown::plain(l.to_string()))
            .collect(),
        cols: (0..shares.heads)
            .map(|h| Shown::plain(h.to_string()))
            .chain([Shown::plain("MLP")])
            .collect(),
        values: shares.grid[t].iter().flatten().copied().collect(),
        corner: ("layer", "head"),
    };
    let drawn = effect_grid::draw(&table, scale, last + 12.0);
    let cell = drawn.width / (shares.heads + 1) as f64;
    let x = drawn.left + shares.heads as f64 * cell - 0.5;
    let bottom = drawn.grid_top + shares.layers as f64 * cell;
    body.extend(drawn.body);
    body.push(line("tbf-ax", x, drawn.grid_top - 3.0, x, bottom + 2.0));
    let mut relations = vec![sum];
    relations.extend(drawn.relations);
    (body, drawn.right, drawn.bottom, relations)
}

/// A part of the model by name: "head 3 of layer 9", "the MLP of layer 9".
fn part(shares: &Shares<'_>, layer: usize, column: usize) -> String {
    if column == shares.heads {
        format!("the MLP of layer {layer}")
    } else {
        format!("head {column} of layer {layer}")
    }
}

/// The alt text: the sum, the parts that push the target up and down most, the other targets.
fn describe(shares: &Shares<'_>, t: usize) -> String {
    let [embed, heads, mlp, bias] = shares.terms(t).map(|v| signed(v, 2));
    let mut cells: Vec<(usize, usize, f64)> = (0..shares.layers)
        .flat_map(|l| (0..=shares.heads).map(move |c| (l, c)))
        .map(|(l, c)| (l, c, shares.grid[t][l][c]))
        .collect();
    cells.sort_by(|a, b| b.2.total_cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    let said =
        |&(l, c, v): &(usize, usize, f64)| format!("{}, {}", part(shares, l, c), signed(v, 2));
    let up: Vec<String> = cells
        .iter()
        .filter(|c| c.2 > 0.0)
        .take(3)
        .map(said)
        .collect();
    let down: Vec<String> = (cells.iter().rev())
        .filter(|c| c.2 < 0.0)
        .take(2)
        .map(said)
        .collect();
    let mut out = format!(
        "What each of the model's {} attention heads in {} layers, and each layer's MLP, wrote \
         into the logit of {:?} as the next token (direct logit attribution, read through the \
         final norm at the run's scale): the logit {} is the embedding's {embed}, the heads' \
         {heads}, the MLPs' {mlp} and the biases' {bias}.",
        shares.layers * shares.heads,
        shares.layers,
        shares.target(t),
        signed(shares.logit(t), 2),
    );
    if !up.is_empty() {
        out.push_str(&format!(" Largest pushes up: {}.", up.join("; ")));
    }
    if !down.is_empty() {
        out.push_str(&format!(" Largest pushes down: {}.", down.join("; ")));
    }
    let others: Vec<String> = (0..shares.attribution.targets.len())
        .filter(|&o| o != t)
        .map(|o| format!("{:?}", shares.target(o)))
        .collect();
    if !others.is_empty() {
        out.push_str(&format!(
            " A picker shows the same for {}.",
            others.join(", ")
        ));
    }
    out
}

#[cfg(test)]
#[path = "logit_attribution_tests.rs"]
mod tests;
