//! `figure patching`: activation patching. A prompt traced with `patch = { corrupted, answer,
//! wrong }` records a corrupted prompt (as many tokens as the traced, clean one) run again with
//! one activation of the clean run copied in at a time, and the logit difference
//! logit(answer) − logit(wrong) after each (`meta.patching`). Each cell is coloured (diverging,
//! around 0) by the normalised score (patched − corrupted) / (clean − corrupted), so 0 is the
//! corrupted run and 1 the clean one, and carries it where the numbers fit the figure's width.
//! a: the residual stream entering each layer, patched at one position (a row per layer, a
//! column per position, labelled with the clean token, "clean→corrupted" where the prompts
//! differ; positions down and layers across for a prompt too long for legible columns); b: each
//! head's output, patched at every position (a row per layer, a column per head). Each grid
//! colours over its own largest |score|, or both over a shared `scale`.
//!
//! With `estimate = "attribution"` the grids are attribution patching's instead: each cell's
//! first-order estimate from one forward and one backward pass of the corrupted run
//! ((clean − corrupted activation) · the gradient of the logit difference there, normalised the
//! same way), which the trace records beside the exact runs; `estimate = "both"` draws each
//! exact grid with its estimate under it, on one colour scale, so a reader sees where the
//! cheap approximation holds and where it does not.
//!
//! Options: `prompt`, `caption`, `view` (`both`, default: a over b; `resid`: a; `heads`: b),
//! `estimate` (`exact`, default; `attribution`; `both`).

use super::effect_grid::{self, hundredths, Scale, Table};
use crate::draw::{text, wrapped_note, wrapped_title};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::signed;
use crate::kinds::strips::WIDTH;
use crate::options::{choice, Block};
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::shared::{self, Domain, SharedScale};
use crate::svg::{Canvas, Element, Font, Ramp, WIDE_FONT};
use crate::token_text::{cut, one_line, titled, visible, Shown};
use crate::Traces;
use describe::describe;
use serde::Deserialize;
use tracebook_trace::Patching;

mod describe;

pub const KIND: &str = "patching";

choice! {
    /// Which activations' patching to draw.
    enum View { Both = "both", Resid = "resid", Heads = "heads" } default Both
}

choice! {
    /// Which scores the grids hold: the exact runs', attribution patching's estimates, or both.
    enum Estimate { Exact = "exact", Attribution = "attribution", Both = "both" } default Exact
}

/// The options of `patching`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    view: View,
    #[serde(default)]
    estimate: Estimate,
}

/// Widest a position's label is drawn ("·Eiffel→·Colosseum" fits); longer ones are cut.
const LABEL_WIDTH: f64 = 130.0;

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption, view) = (block.prompt, block.caption, block.options.view);
    let estimate = block.options.estimate;
    let patching = traced(&prompt)?;
    check(&prompt, patching)?;
    if estimate != Estimate::Exact {
        check_estimates(&prompt, patching)?;
    }
    let (mut body, top) = headline(&prompt, patching);
    let mut relations = describe::relations(&prompt, patching, view);
    let drawn = grids(&prompt, patching, (view, estimate), shared, top);
    body.extend(drawn.body);
    relations.extend(drawn.relations);
    let (right, top, own) = (drawn.right, drawn.bottom, drawn.limit);
    let canvas = Canvas {
        kind: KIND,
        width: right.ceil(),
        height: top - 20.0,
        title: format!(
            "Activation patching: logit({}) − logit({}) restored",
            visible(&patching.answer.text),
            visible(&patching.wrong.text)
        ),
        desc: describe(&prompt, patching, view) + estimated(estimate),
        css: Ramp::signed().css(),
    };
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, Domain::Signed { limit: own }))
}

/// The grids drawn under the headline, what they print, and where they end.
struct Grids {
    body: Vec<Element>,
    relations: Vec<Relation>,
    right: f64,
    bottom: f64,
    /// The largest |score| drawn: the figure's own colour domain.
    limit: f64,
}

/// The grids of `view` from `top` down, each exact grid followed by its estimate where
/// `estimate` asks for both (the two on one scale, so their colours compare).
fn grids(
    prompt: &Prompt<'_>,
    patching: &Patching,
    (view, estimate): (View, Estimate),
    shared: Option<&SharedScale>,
    mut top: f64,
) -> Grids {
    let mut out = Grids {
        body: Vec::new(),
        relations: Vec::new(),
        right: WIDTH,
        bottom: top,
        limit: 0.0,
    };
    let parts = parts(prompt, patching, estimate);
    for (i, (part, tables)) in parts.into_iter().enumerate() {
        if view != View::Both && view != part {
            continue;
        }
        let letter = if view == View::Both {
            ["a. ", "b. "][i]
        } else {
            ""
        };
        let limit = effect_grid::limit(tables.iter().flat_map(|t| t.1.values.iter().copied()));
        out.limit = out.limit.max(limit);
        let scale = Scale {
            limit: shared::signed_limit(shared, limit),
            label: hundredths,
            title: "score: 0 = corrupted run, 1 = clean run".to_string(),
            shared: shared::note(shared),
        };
        for (which, table) in tables {
            let heading = format!("{letter}{}{}", title(part), which);
            let (titles, last) = wrapped_title(&heading, top, WIDTH, 15.0);
            out.body.extend(titles);
            let drawn = effect_grid::draw(&table, &scale, last + 12.0);
            out.relations.extend(drawn.relations);
            out.body.extend(drawn.body);
            out.right = out.right.max(drawn.right);
            top = drawn.bottom + 26.0;
        }
    }
    out.bottom = top;
    out
}

/// The prompt's patching, or an error that says how to ask for one.
fn traced<'p>(prompt: &'p Prompt<'_>) -> Result<&'p Patching, FigureError> {
    prompt.trace.meta.patching.as_ref().ok_or_else(|| {
        let answer = super::ablation::likeliest(prompt).unwrap_or_else(|| " Paris".to_string());
        FigureError::at(
            "prompt",
            format!(
                "the trace of \"{}\" records no activation patching",
                prompt.name
            ),
        )
        .with_hint(format!(
            "give the prompt `patch = {{ corrupted = \"...\", answer = {answer:?}, wrong = \
             \"...\" }}` in its table (a corrupted text of as many tokens, and the two next \
             tokens whose logit difference is measured), then run `tracebook trace --only {}`",
            prompt.name
        ))
    })
}

/// That the patching covers the model and the prompt, and that its score is defined.
fn check(prompt: &Prompt<'_>, patching: &Patching) -> Result<(), FigureError> {
    let config = prompt.config();
    let (layers, heads) = (config.n_layer, config.n_head);
    let n = prompt.tokens()?.len();
    let rows = |grid: &[Vec<f32>], cols: usize| {
        grid.len() == layers
            && grid.iter().flatten().all(|v| v.is_finite())
            && grid.iter().all(|row| row.len() == cols)
    };
    let spread = patching.clean_diff - patching.corrupted_diff;
    if !spread.is_finite() || spread.abs() < 1e-6 {
        return Err(FigureError::at(
            "prompt",
            format!(
                "the clean and corrupted runs of \"{}\" give the same logit difference ({}), \
                 so no patching score is defined",
                prompt.name,
                signed(f64::from(patching.clean_diff), 2)
            ),
        )
        .with_hint("pick a corrupted text or answer and wrong tokens the two runs disagree on"));
    }
    if patching.corrupted_tokens.len() != n
        || !rows(&patching.resid, n)
        || !rows(&patching.heads, heads)
    {
        return Err(prompt.broken(format!(
            "the patching in the trace of \"{}\" does not cover its {n} positions and the \
             model's {layers} layers of {heads} heads",
            prompt.name
        )));
    }
    Ok(())
}

/// That the trace holds attribution patching's estimates for every cell.
fn check_estimates(prompt: &Prompt<'_>, patching: &Patching) -> Result<(), FigureError> {
    let same = |a: &[Vec<f32>], b: &[Vec<f32>]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| x.len() == y.len())
            && a.iter().flatten().all(|v| v.is_finite())
    };
    if patching.attrib_resid.is_empty() && patching.attrib_heads.is_empty() {
        return Err(FigureError::at(
            "estimate",
            format!(
                "the trace of \"{}\" records no attribution patching (it was made before \
                 tracebook recorded the estimates)",
                prompt.name
            ),
        )
        .with_hint(format!(
            "run `tracebook trace --only {} --force`, or leave out `estimate`",
            prompt.name
        )));
    }
    if !same(&patching.attrib_resid, &patching.resid)
        || !same(&patching.attrib_heads, &patching.heads)
    {
        return Err(prompt.broken(format!(
            "the attribution patching in the trace of \"{}\" does not cover the cells of its \
             exact patching, or holds a number that is not finite",
            prompt.name
        )));
    }
    Ok(())
}

/// What the score is, then the two prompts; with the baseline under them.
fn headline(prompt: &Prompt<'_>, patching: &Patching) -> (Vec<Element>, f64) {
    let head = text(0.0, 12.0).class("tbf-s tbf-b");
    let mut body = vec![head.text("Clean activations patched into the corrupted run")];
    let metric = format!(
        "1 = the clean run's logit difference logit({}) − logit({}) = {}, 0 = the corrupted \
         run's ({})",
        visible(&patching.answer.text),
        visible(&patching.wrong.text),
        signed(f64::from(patching.clean_diff), 2),
        signed(f64::from(patching.corrupted_diff), 2)
    );
    let (note, mut y) = wrapped_note(&metric, 0.0, 30.0, WIDTH, 15.0);
    body.push(note);
    for (what, prompt_text) in [
        ("clean", prompt.trace.meta.prompt.text.as_str()),
        ("corrupted", patching.corrupted.as_str()),
    ] {
        y += 16.0;
        let full = format!("{what}: {}", one_line(prompt_text));
        let shown = cut(&full, WIDTH / WIDE_FONT, Font::Sans, 12.0);
        let line = text(0.0, y).class("tbf-s tbf-dim");
        body.push(titled(line, &shown, &full).text(shown));
    }
    (body, y + 26.0)
}

fn title(part: View) -> &'static str {
    match part {
        View::Heads => "each head's output, patched at every position",
        _ => "the residual stream entering each layer, patched at one position",
    }
}

/// What the alt text adds when the grids hold estimates (it describes the exact runs).
fn estimated(estimate: Estimate) -> &'static str {
    match estimate {
        Estimate::Exact => "",
        Estimate::Attribution => {
            " The grids draw attribution patching's estimates of these scores (one forward and \
             one backward pass of the corrupted run), not the exact runs described here."
        }
        Estimate::Both => {
            " Under each exact grid, attribution patching's estimate of it (one forward and one \
             backward pass of the corrupted run), on the same colour scale."
        }
    }
}

/// The title's ending for each grid `estimate` asks for: the exact one, the estimate.
fn which(estimate: Estimate) -> Vec<(bool, &'static str)> {
    match estimate {
        Estimate::Exact => vec![(false, "")],
        Estimate::Attribution => vec![(true, ": attribution patching's estimate")],
        Estimate::Both => vec![
            (false, ": exact"),
            (true, ": attribution patching's estimate"),
        ],
    }
}

/// The residual stream's grids and the heads', each as `estimate` asks.
fn parts(
    prompt: &Prompt<'_>,
    patching: &Patching,
    estimate: Estimate,
) -> [(View, Vec<(&'static str, Table)>); 2] {
    [
        (
            View::Resid,
            tables(
                estimate,
                (&patching.resid, &patching.attrib_resid),
                &|grid| resid_table(prompt, patching, grid),
            ),
        ),
        (
            View::Heads,
            tables(
                estimate,
                (&patching.heads, &patching.attrib_heads),
                &heads_table,
            ),
        ),
    ]
}

/// Each grid `estimate` asks for, made by `table` from the exact scores or the estimates,
/// with its title's ending.
fn tables(
    estimate: Estimate,
    (exact, estimated): (&[Vec<f32>], &[Vec<f32>]),
    table: &dyn Fn(&[Vec<f32>]) -> Table,
) -> Vec<(&'static str, Table)> {
    (which(estimate).into_iter())
        .map(|(from_estimate, said)| (said, table(if from_estimate { estimated } else { exact })))
        .collect()
}

/// Layers down, positions across (turned for a prompt too long for that), each position
/// labelled with its clean token, and its corrupted one where that differs.
fn resid_table(prompt: &Prompt<'_>, patching: &Patching, grid: &[Vec<f32>]) -> Table {
    let tokens = &prompt.trace.meta.tokens;
    let cols = tokens
        .iter()
        .zip(&patching.corrupted_tokens)
        .map(|(clean, corrupted)| {
            let raw = if clean.text == corrupted.text {
                clean.text.clone()
            } else {
                format!("{}→{}", clean.text, corrupted.text)
            };
            Shown::fit(&raw, LABEL_WIDTH, Font::Mono, 12.0)
        })
        .collect();
    let table = Table {
        rows: layer_labels(grid.len()),
        cols,
        values: flat(grid),
        corner: ("layer", "token"),
    };
    if effect_grid::fits(&table) {
        table
    } else {
        table.turned()
    }
}

fn heads_table(grid: &[Vec<f32>]) -> Table {
    let heads = grid.first().map_or(0, Vec::len);
    Table {
        rows: layer_labels(grid.len()),
        cols: (0..heads).map(|h| Shown::plain(h.to_string())).collect(),
        values: flat(grid),
        corner: ("layer", "head"),
    }
}

fn layer_labels(layers: usize) -> Vec<Shown> {
    (0..layers).map(|l| Shown::plain(l.to_string())).collect()
}

fn flat(rows: &[Vec<f32>]) -> Vec<f64> {
    rows.iter().flatten().map(|&v| f64::from(v)).collect()
}

#[cfg(test)]
#[path = "patching_tests.rs"]
mod tests;
