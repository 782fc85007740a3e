//! `figure saliency`: how much each prompt token mattered to one next token, by two methods
//! of input saliency that a prompt traced with `attribute = { targets = [...] }` records
//! (`meta.attribution`): gradient × input, and integrated gradients from all-zero token
//! embeddings (positions kept). A row per method, a column per token (turned for a prompt too
//! long for legible columns), each cell coloured on the diverging scale (red: the token raises
//! ln p of the target, blue: lowers it) and carrying its value where the numbers fit. The
//! headline gives ln p at the prompt and at the baseline; the note under it says whether the
//! integrated gradients add up to the change between them (completeness), as they should up to
//! the quadrature's error, or how far they fall short.
//!
//! Options: `prompt`, `caption`, `target` (as `attribute` lists it; default the first). With
//! several targets every target's grid is drawn for the page's target picker, on one scale.

use super::effect_grid::{self, hundredths, tenths, Scale, Table};
use crate::draw::{text, wrapped_note};
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

pub const KIND: &str = "saliency";

/// The widest a token's label may be before the grid turns.
const LABEL_WIDTH: f64 = 60.0;

/// A gap larger than this share of |change| is said to fall short.
const COMPLETE: f64 = 0.05;

/// The options of `saliency`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    target: Option<String>,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let a = traced(&prompt)?;
    let asked = block.options.target.as_deref();
    let t = super::targets::index(&prompt, &a.targets, asked, super::targets::ATTRIBUTION)?;
    let own = effect_grid::limit(
        (a.grad_input.iter().chain(&a.integrated))
            .flatten()
            .map(|&v| f64::from(v)),
    );
    let limit = shared::signed_limit(shared, own);
    let mut relations = Vec::new();
    let panels: Vec<(Panel, f64, f64)> = (0..a.targets.len())
        .map(|i| {
            let scale = Scale {
                limit,
                label: if limit < 1.0 { hundredths } else { tenths },
                title: format!("effect on ln p({}), nats", visible(&a.targets[i].text)),
                shared: shared::note(shared),
            };
            let (body, right, bottom, found) = panel(&prompt, a, i, &scale);
            relations.extend(found);
            let key = vec![("target", i)];
            (Panel { key, body }, right, bottom)
        })
        .collect();
    let (width, height) = panels::extent(&panels, WIDTH);
    let canvas = Canvas {
        kind: KIND,
        width,
        height,
        title: format!(
            "How much each token mattered to p({})",
            visible(&a.targets[t].text)
        ),
        desc: describe(&prompt, a, t),
        css: Ramp::signed().css(),
    };
    let label = |_: &str, i: usize| a.targets.get(i).map(|n| visible(&n.text));
    let panels = panels.into_iter().map(|p| p.0).collect();
    let (body, live, _) = panels::by_target(panels, t, &label, false);
    let figure = (Figure::new(canvas, body, caption, &prompt))
        .with_relations(relations)
        .with_live_if(live);
    Ok((figure, Domain::Signed { limit: own }))
}

/// The prompt's attribution with its saliency, or an error that says how to ask for one.
fn traced<'p>(prompt: &'p Prompt<'_>) -> Result<&'p Attribution, FigureError> {
    let a = super::logit_attribution::traced(prompt)?;
    let n = prompt.trace.meta.tokens.len();
    let k = a.targets.len();
    let shaped = |rows: &[Vec<f32>]| {
        rows.len() == n
            && rows
                .iter()
                .all(|r| r.len() == k && r.iter().all(|v| v.is_finite()))
    };
    let finite = |v: &[f32]| v.len() == k && v.iter().all(|x| x.is_finite());
    if a.grad_input.is_empty() && a.integrated.is_empty() {
        return Err(FigureError::at(
            "prompt",
            format!(
                "the trace of \"{}\" records an attribution without saliency (it was made \
                 before tracebook recorded saliency)",
                prompt.name
            ),
        )
        .with_hint(format!(
            "run `tracebook trace --only {} --force`",
            prompt.name
        )));
    }
    if !(shaped(&a.grad_input)
        && shaped(&a.integrated)
        && finite(&a.logprob)
        && finite(&a.baseline_logprob))
    {
        return Err(prompt.broken(format!(
            "the saliency in the trace of \"{}\" does not cover its {n} tokens for each of \
             its {k} targets, or holds a number that is not finite",
            prompt.name
        )));
    }
    Ok(a)
}

/// Target `t`'s ln p at the prompt and the baseline, their change and the integrated
/// gradients' sum, each as printed.
struct Sums {
    at: String,
    baseline: String,
    change: String,
    sum: String,
    complete: bool,
}

fn sums(a: &Attribution, t: usize) -> Sums {
    let (at, baseline) = (f64::from(a.logprob[t]), f64::from(a.baseline_logprob[t]));
    let change = at - baseline;
    let sum: f64 = a.integrated.iter().map(|row| f64::from(row[t])).sum();
    Sums {
        at: signed(at, 2),
        baseline: signed(baseline, 2),
        change: signed(change, 2),
        sum: signed(sum, 2),
        complete: (sum - change).abs() <= COMPLETE * change.abs().max(0.01),
    }
}

/// One target's panel: the headline, the completeness note, the grid (methods by tokens) and
/// its legend; with its right edge, bottom and relations.
fn panel(
    prompt: &Prompt<'_>,
    a: &Attribution,
    t: usize,
    scale: &Scale,
) -> (Vec<Element>, f64, f64, Vec<Relation>) {
    let s = sums(a, t);
    let target = visible(&a.targets[t].text);
    let head = text(0.0, 12.0).class("tbf-s tbf-b");
    let first = format!("ln p({target}) = {}", s.at);
    let mut body = vec![fitted(head, &first, WIDTH / WIDE_FONT, Font::Sans, 12.0)];
    let note = if s.complete && s.sum == s.change {
        format!(
            "from all-zero token embeddings {}; integrated gradients sum to {}, the change \
             (completeness); each cell: a token's share, in nats",
            s.baseline, s.sum
        )
    } else if s.complete {
        format!(
            "from all-zero token embeddings {}; integrated gradients sum to {}, within 5% of \
             the change {} (completeness); each cell: a token's share, in nats",
            s.baseline, s.sum, s.change
        )
    } else {
        format!(
            "from all-zero token embeddings {}; integrated gradients sum to {}, not the \
             change {}: 50 points of the path miss part of it, so read the cells with care; \
             each cell: a token's share, in nats",
            s.baseline, s.sum, s.change
        )
    };
    let (note, last) = wrapped_note(&note, 0.0, 30.0, WIDTH, 15.0);
    body.push(note);
    let table = grid(prompt, a, t);
    let drawn = effect_grid::draw(&table, scale, last + 12.0);
    let mut relations = vec![Relation::Change {
        from: s.baseline.clone(),
        to: s.at.clone(),
        change: s.change.clone(),
        unit: 1.0,
    }];
    if !drawn.relations.is_empty() {
        // The cells are printed: the integrated row's add up to the printed sum.
        let integrated = table.values.len() / 2;
        let cells = if table.rows.len() == 2 {
            table.values[integrated..].to_vec()
        } else {
            table.values.iter().skip(1).step_by(2).copied().collect()
        };
        relations.push(Relation::Sum {
            terms: cells.iter().map(|&v| (scale.label)(v)).collect(),
            total: s.sum.clone(),
        });
    }
    body.extend(drawn.body);
    relations.extend(drawn.relations);
    (body, drawn.right, drawn.bottom, relations)
}

/// Methods down, tokens across (turned for a prompt too long for legible columns).
fn grid(prompt: &Prompt<'_>, a: &Attribution, t: usize) -> Table {
    let cols = (prompt.trace.meta.tokens.iter())
        .map(|token| Shown::fit(&token.text, LABEL_WIDTH, Font::Mono, 12.0))
        .collect();
    let row = |rows: &[Vec<f32>]| rows.iter().map(|r| f64::from(r[t])).collect::<Vec<_>>();
    let table = Table {
        rows: vec![Shown::plain("grad × input"), Shown::plain("integrated")],
        cols,
        values: [row(&a.grad_input), row(&a.integrated)].concat(),
        corner: ("method", "token"),
    };
    if effect_grid::fits(&table) {
        table
    } else {
        table.turned()
    }
}

/// The alt text: ln p and its change, the tokens that raise and lower it most by integrated
/// gradients, whether the sum holds, the other targets.
fn describe(prompt: &Prompt<'_>, a: &Attribution, t: usize) -> String {
    let s = sums(a, t);
    let tokens = &prompt.trace.meta.tokens;
    let mut ranked: Vec<(usize, f64)> = (a.integrated.iter().enumerate())
        .map(|(i, row)| (i, f64::from(row[t])))
        .collect();
    ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let said = |&(i, v): &(usize, f64)| format!("{:?} {}", tokens[i].text, signed(v, 2));
    let up: Vec<String> = ranked
        .iter()
        .filter(|r| r.1 > 0.0)
        .take(3)
        .map(said)
        .collect();
    let down: Vec<String> = (ranked.iter().rev())
        .filter(|r| r.1 < 0.0)
        .take(2)
        .map(said)
        .collect();
    let mut out = format!(
        "Input saliency of the log-probability that the next token is {:?}, {} (from all-zero \
         token embeddings, positions kept: {}), per prompt token, by gradient × input and by \
         integrated gradients.",
        a.targets[t].text, s.at, s.baseline
    );
    if !up.is_empty() {
        out.push_str(&format!(" Raise it most: {}.", up.join(", ")));
    }
    if !down.is_empty() {
        out.push_str(&format!(" Lower it most: {}.", down.join(", ")));
    }
    out.push_str(&match s.complete {
        true => format!(" The integrated gradients sum to {}, the change.", s.sum),
        false => format!(
            " The integrated gradients sum to {}, not the change {}.",
            s.sum, s.change
        ),
    });
    let others: Vec<String> = (0..a.targets.len())
        .filter(|&o| o != t)
        .map(|o| format!("{:?}", a.targets[o].text))
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
#[path = "saliency_tests.rs"]
mod tests;
