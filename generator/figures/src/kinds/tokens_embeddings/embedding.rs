//! `figure embedding`: each token's embedding (its row of the token embedding matrix
//! wte, traced as `embed`) as a heat strip of its first dimensions, with its length.
//!
//! Options: `prompt`, `caption`, `dims` (dimensions shown, default 32, at most 64),
//! `spread` (show dimensions spread evenly over the vector instead of the first ones).
//! Prompts longer than 16 tokens show their last 16.

use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, signed, thousands};
use crate::kinds::strips::{self, window, window_note, DimPick, StripFigure};
use crate::options::{Block, Dims};
use crate::prompt::{Checked, Prompt};
use crate::relations::Relation;
use crate::shared::{Domain, SharedScale};
use crate::strip::{norm, StripRow};
use crate::svg::{Canvas, Font};
use crate::token_text::{one_line, Shown};
use crate::Traces;
use serde::Deserialize;
use std::ops::Range;

pub const KIND: &str = "embedding";

/// Most rows a vector figure draws.
pub const MAX_ROWS: usize = 16;

/// The options of `embedding`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    pub(super) dims: Option<Dims>,
    #[serde(default)]
    pub(super) spread: bool,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let d = prompt.config().n_embd;
    let pick = DimPick::read(block.options.dims, block.options.spread, d, 32)?;
    let tokens = prompt.tokens()?;
    let embed = prompt.shaped("embed", &[tokens.len(), d])?;
    let shown = window(tokens.len(), MAX_ROWS);
    let rows = rows_of(&embed, shown.clone(), &pick, |t| token_label(&prompt, t));
    let figure = StripFigure {
        rows,
        header: pick.header(),
        summary_title: "length ‖x‖",
        legend_title: "embedding value".to_string(),
        notes: window_note(&shown, tokens.len()).into_iter().collect(),
    };
    let (body, height, css) = strips::draw(&figure, 0.0, shared);
    let canvas = Canvas {
        kind: KIND,
        width: strips::WIDTH,
        height,
        title: format!(
            "Token embeddings of \"{}\"",
            one_line(&prompt.trace.meta.prompt.text)
        ),
        desc: describe(&prompt, &embed, &figure, &pick, &shown),
        css,
    };
    let domain = figure.domain();
    let relations = length_relations(&figure.rows, shared);
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

/// What a reader can check among a strip figure's lengths: each is a length, so not
/// negative; and, on the figure's own scale, whose legend ends at the largest |value| on
/// show, the longest vector is at least as long as that one number of it.
pub fn length_relations(rows: &[StripRow], shared: Option<&SharedScale>) -> Vec<Relation> {
    let mut out: Vec<Relation> = rows
        .iter()
        .map(|row| Relation::Bound {
            value: row.summary.clone(),
            low: 0.0,
            high: f64::INFINITY,
            why: "a vector's length",
        })
        .collect();
    let largest = |row: &StripRow| row.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let holder = rows.iter().max_by(|a, b| largest(a).total_cmp(&largest(b)));
    if let (None, Some(row)) = (shared, holder) {
        out.push(Relation::Order {
            values: vec![row.summary.clone(), legend_limit(largest(row))],
            descending: true,
        });
    }
    out
}

/// The legend's end for a diverging scale to `limit`, as `strip::signed_legend` prints it.
fn legend_limit(limit: f64) -> String {
    let decimals = if limit >= 10.0 { 0 } else { 1 };
    let decimals = if limit < 0.5 { 2 } else { decimals };
    signed(limit, decimals)
}

/// A token's text as a row label.
pub fn token_label(prompt: &Prompt<'_>, t: usize) -> Shown {
    Shown::fit(&prompt.trace.meta.tokens[t].text, 96.0, Font::Mono, 12.0)
}

/// One strip per position in `shown` of the T×d `tensor`, with the vector's length.
pub fn rows_of(
    tensor: &Checked,
    shown: Range<usize>,
    pick: &DimPick,
    label: impl Fn(usize) -> Shown,
) -> Vec<StripRow> {
    shown
        .map(|t| {
            let row = tensor.row(&[t]);
            StripRow {
                label: label(t),
                values: pick.take(&row),
                summary: short(norm(&row)),
                gap_before: 0.0,
            }
        })
        .collect()
}

/// The value range on show, for alt text: "from −0.41 to 0.38".
pub fn range_text(figure: &StripFigure) -> String {
    let values = figure.rows.iter().flat_map(|r| r.values.iter().copied());
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    format!("from {} to {}", signed(lo, 2), signed(hi, 2))
}

fn describe(
    prompt: &Prompt<'_>,
    embed: &Checked,
    figure: &StripFigure,
    pick: &DimPick,
    shown: &Range<usize>,
) -> String {
    let config = prompt.config();
    let norms: Vec<(f64, usize)> = shown.clone().map(|t| (norm(&embed.row(&[t])), t)).collect();
    let longest = norms.iter().max_by(|a, b| a.0.total_cmp(&b.0));
    let shortest = norms.iter().min_by(|a, b| a.0.total_cmp(&b.0));
    let quote = |t: usize| format!("{:?}", prompt.trace.meta.tokens[t].text);
    let mut out = format!(
        "Token embeddings of {} tokens: each is a row of the {} × {} token embedding matrix, \
         drawn by {} ({}), blue below zero and red above.",
        shown.len(),
        thousands(config.vocab_size),
        thousands(config.n_embd),
        pick.header(),
        range_text(figure)
    );
    if let (Some(long), Some(short_one)) = (longest, shortest) {
        out.push_str(&format!(
            " Lengths range from {} ({}) to {} ({}).",
            short(short_one.0),
            quote(short_one.1),
            short(long.0),
            quote(long.1)
        ));
    }
    out
}

#[cfg(test)]
#[path = "embedding_tests.rs"]
mod tests;
