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
//! Options: `prompt`, `caption`, `view` (`both`, default: a over b; `resid`: a; `heads`: b).

use super::effect_grid::{self, hundredths, Scale, Table};
use crate::draw::{text, wrapped_note, wrapped_title};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::signed;
use crate::kinds::strips::WIDTH;
use crate::options::{choice, Block};
use crate::prompt::Prompt;
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

/// The options of `patching`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    view: View,
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
    let patching = traced(&prompt)?;
    check(&prompt, patching)?;
    let (mut body, mut top) = headline(&prompt, patching);
    let mut right = WIDTH;
    let mut own = 0.0f64;
    let mut relations = describe::relations(&prompt, patching, view);
    let parts = [
        (View::Resid, resid_table(&prompt, patching)),
        (View::Heads, heads_table(patching)),
    ];
    for (i, (part, table)) in parts.into_iter().enumerate() {
        if view != View::Both && view != part {
            continue;
        }
        let letter = if view == View::Both {
            ["a. ", "b. "][i]
        } else {
            ""
        };
        let (titles, last) = wrapped_title(&format!("{letter}{}", title(part)), top, WIDTH, 15.0);
        body.extend(titles);
        let limit = effect_grid::limit(table.values.iter().copied());
        own = own.max(limit);
        let scale = Scale {
            limit: shared::signed_limit(shared, limit),
            label: hundredths,
            title: "score: 0 = corrupted run, 1 = clean run".to_string(),
            shared: shared::note(shared),
        };
        let drawn = effect_grid::draw(&table, &scale, last + 12.0);
        relations.extend(drawn.relations);
        body.extend(drawn.body);
        right = right.max(drawn.right);
        top = drawn.bottom + 26.0;
    }
    let canvas = Canvas {
        kind: KIND,
        width: right.ceil(),
        height: top - 20.0,
        title: format!(
            "Activation patching: logit({}) − logit({}) restored",
            visible(&patching.answer.text),
            visible(&patching.wrong.text)
        ),
        desc: describe(&prompt, patching, view),
        css: Ramp::signed().css(),
    };
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, Domain::Signed { limit: own }))
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

/// Layers down, positions across (turned for a prompt too long for that), each position
/// labelled with its clean token, and its corrupted one where that differs.
fn resid_table(prompt: &Prompt<'_>, patching: &Patching) -> Table {
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
        rows: layer_labels(patching.resid.len()),
        cols,
        values: flat(&patching.resid),
        corner: ("layer", "token"),
    };
    if effect_grid::fits(&table) {
        table
    } else {
        table.turned()
    }
}

fn heads_table(patching: &Patching) -> Table {
    let heads = patching.heads.first().map_or(0, Vec::len);
    Table {
        rows: layer_labels(patching.heads.len()),
        cols: (0..heads).map(|h| Shown::plain(h.to_string())).collect(),
        values: flat(&patching.heads),
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
