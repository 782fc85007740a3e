//! `figure compare`: two prompts side by side on the same measure, with the difference
//! (e.g. "The cat sat" and "The cats sat"). Prompt A is drawn in blue, B in orange.
//!
//! - `of = "next-token"` (default): the likeliest next tokens after either prompt (the
//!   union of each one's top `k`), each with its probability after A and after B
//!   (exact: both traces keep every logit at their last position) and the change B − A
//!   in percentage points.
//! - `of = "loss"`: the surprise −ln p of each token, position by position, for both
//!   prompts, and the change B − A in nats, over the positions both prompts have.
//!
//! Options: `prompt` (A), `other` (B, required), `caption`, `of`, `k` (next-token:
//! candidates taken from each prompt, default 5, at most the traces' top_k).

use super::compare_views::{describe, loss_rows, next_token_rows, Pair, Row};
use crate::chart::label_column;
use crate::draw::{note, rect, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::kinds::strips::WIDTH;
use crate::options::{choice, resolve_prompt, Block, Int};
use crate::prompt::Prompt;
use crate::relations::{printed, Relation};
use crate::svg::{Canvas, Css, Element, Font};
use crate::token_text::{cut, one_line, titled, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "compare";

const PITCH: f64 = 22.0;
const TOP: f64 = 84.0;
const BARS: [f64; 2] = [104.0, 222.0];
const ROOM: f64 = 62.0;

choice! {
    /// The measure compared.
    enum Of { NextToken = "next-token", Loss = "loss" } default NextToken
}

/// The options of `compare`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    /// Prompt B, compared with `prompt` (A).
    other: Option<String>,
    #[serde(default)]
    of: Of,
    /// Next-token candidates shown.
    k: Option<Int<1, 64, 5>>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (a, caption, options) = (block.prompt, block.caption, block.options);
    let b = other(options.other.as_deref(), traces)?;
    let loss = options.of == Of::Loss;
    let pair = Pair { a, b };
    let (rows, unit, what) = if loss {
        (loss_rows(&pair)?, "nats", "surprise −ln p of each token")
    } else {
        let k = options.k.map(Int::get);
        (
            next_token_rows(&pair, k)?,
            "pt",
            "probability of the next token",
        )
    };
    let full = rows.iter().flat_map(|r| [r.a, r.b]).fold(1e-12, f64::max);
    let mut body = headline(&pair, what);
    body.extend(draw_rows(&rows, full, loss));
    let bottom = TOP + rows.len() as f64 * PITCH;
    let change = format!(
        "change: B − A, in {}",
        if unit == "pt" {
            "percentage points"
        } else {
            "nats"
        }
    );
    body.push(note(change, 0.0, bottom + 16.0));
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: bottom + 26.0,
        title: title(&pair),
        desc: describe(&pair, &rows, loss),
        css: Css::default(),
    };
    let relations = relations(&rows, loss);
    Ok(Figure::new(canvas, body, caption, &pair.a)
        .also_from(&pair.b)
        .with_relations(relations))
}

/// What a reader can check in each row: B − A is the difference of the two printed values
/// (in percentage points between percentages, in nats between losses).
fn relations(rows: &[Row], loss: bool) -> Vec<Relation> {
    let unit = if loss { 1.0 } else { 0.01 };
    let mut out: Vec<Relation> = rows
        .iter()
        .map(|row| Relation::Change {
            from: row.format(row.a),
            to: row.format(row.b),
            change: row.change(loss),
            unit,
        })
        .collect();
    out.retain(|r| r.texts().iter().all(|t| printed(t).is_some()));
    out
}

/// "Comparing “A” and “B”", or for one text on two models "“A” on model A and model B".
fn title(pair: &Pair<'_>) -> String {
    let [a, b] = [&pair.a, &pair.b].map(|p| one_line(&p.trace.meta.prompt.text));
    match pair.models() {
        Some([ma, mb]) if a == b => format!("“{a}” on {ma} and {mb}"),
        Some([ma, mb]) => format!("Comparing “{a}” on {ma} and “{b}” on {mb}"),
        None => format!("Comparing “{a}” and “{b}”"),
    }
}

/// The `other` prompt, required, resolved like `prompt`.
fn other<'t>(name: Option<&str>, traces: &'t dyn Traces) -> Result<Prompt<'t>, FigureError> {
    let name = name.ok_or_else(|| {
        FigureError::at(
            "other",
            "figure `compare` needs `other`, the prompt to compare with",
        )
        .with_hint("add a line other = \"name\", naming one of the site's prompts")
    })?;
    resolve_prompt(name, traces).map_err(|mut e| {
        e.key = Some("other".to_string());
        e
    })
}

/// The two prompts, colour-keyed, and the column titles.
fn headline(pair: &Pair<'_>, what: &str) -> Vec<Element> {
    let mut out = Vec::new();
    for (i, (name, full)) in ["A", "B"].into_iter().zip(pair.labels()).enumerate() {
        let y = 14.0 + i as f64 * 18.0;
        out.push(rect(&format!("tbf-c{i}"), 0.0, y - 9.0, 10.0, 10.0));
        let shown = cut(&full, WIDTH - 40.0, Font::Mono, 12.0);
        let line = text(16.0, y).class("tbf-m").attr("font-size", 12.0);
        out.push(titled(line, &shown, &full).text(format!("{name}: {shown}")));
    }
    let mut heads = Element::new("g").class("tbf-s tbf-dim");
    heads.push(text(0.0, TOP - 12.0).text(what));
    heads.push(text(BARS[0], TOP - 26.0).text("A"));
    heads.push(text(BARS[1], TOP - 26.0).text("B"));
    heads.push(
        text(WIDTH - 2.0, TOP - 26.0)
            .attr("text-anchor", "end")
            .text("B − A"),
    );
    out.push(heads);
    out
}

fn draw_rows(rows: &[Row], full: f64, loss: bool) -> Vec<Element> {
    let labels: Vec<Shown> = rows.iter().map(|r| r.label.clone()).collect();
    let mut out = vec![label_column(&labels, BARS[0] - 6.0, TOP + 3.0, PITCH, 12.0)];
    let mut values = Element::new("g").class("tbf-s");
    let mut changes = Element::new("g")
        .class("tbf-s tbf-b")
        .attr("text-anchor", "end");
    for (class, x, pick) in [("tbf-c0", BARS[0], 0), ("tbf-c1", BARS[1], 1)] {
        let mut bars = Element::new("g").class(class);
        for (r, row) in rows.iter().enumerate() {
            let value = if pick == 0 { row.a } else { row.b };
            let y = TOP + r as f64 * PITCH;
            let length = (value / full * ROOM).max(0.5);
            bars.push(rect("", x, y + 4.0, length, PITCH - 8.0));
            values.push(text(x + length + 4.0, y + 15.0).text(row.format(value)));
        }
        out.push(bars);
    }
    for (r, row) in rows.iter().enumerate() {
        changes.push(text(WIDTH, TOP + r as f64 * PITCH + 15.0).text(row.change(loss)));
    }
    out.extend([values, changes]);
    out
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
