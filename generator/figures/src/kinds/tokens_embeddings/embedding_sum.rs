//! `figure embedding-sum`: the input to the first layer, token embedding + position
//! embedding, drawn per token as three heat strips: the token's embedding (`embed`), its
//! position's (`pos_embed`), and their sum as the model computed it (`blocks.0.resid_pre`).
//!
//! Options: `prompt`, `caption`, `token` (one token, by position; negative counts from
//! the end; default every token, the last 5 of longer prompts), `dims` (default 24, at
//! most 64), `spread`.

use super::embedding::{length_relations, token_label};
use super::positional::{length_quantity, positions_of};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::short;
use crate::kinds::strips::{self, window, window_note, DimPick, StripFigure};
use crate::options::{Block, Dims, Layer, TokenKey};
use crate::prompt::{Checked, Gpt2Part, Prompt};
use crate::relations::{printed, Relation};
use crate::shared::{Domain, SharedScale};
use crate::strip::{norm, StripRow};
use crate::svg::Canvas;
use crate::token_text::{one_line, Shown};
use crate::Traces;
use serde::Deserialize;
use std::ops::Range;

pub const KIND: &str = "embedding-sum";

const MAX_GROUPS: usize = 5;

/// The three vectors of the sum.
struct Parts {
    embed: Checked,
    pos: Checked,
    input: Checked,
}

/// The options of `embedding-sum`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    /// One token; every token (the last few of a longer prompt) when absent.
    token: Option<TokenKey>,
    dims: Option<Dims>,
    #[serde(default)]
    spread: bool,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let Opts {
        token,
        dims,
        spread,
    } = block.options;
    let d = block.prompt.config().n_embd;
    let pick = DimPick::read(dims, spread, d, 24)?;
    let n = block.prompt.tokens()?.len();
    let picked = token.is_some();
    let shown = match token {
        Some(token) => {
            let t = block.token(token)?.0;
            t..t + 1
        }
        None => window(n, MAX_GROUPS),
    };
    let (prompt, caption) = (block.prompt, block.caption);
    prompt.needs(KIND, Gpt2Part::LearnedPositions)?;
    let parts = Parts {
        embed: prompt.shaped("embed", &[n, d])?,
        // The positions every figure of the model shows (see `positional::positions_of`).
        pos: positions_of(&prompt, traces, n)?,
        input: prompt.block(Layer(0), "resid_pre", d)?,
    };
    let figure = StripFigure {
        rows: rows(&prompt, &parts, shown.clone(), &pick),
        header: pick.header(),
        summary_title: "length",
        legend_title: "value".to_string(),
        notes: if picked {
            Vec::new()
        } else {
            window_note(&shown, n).into_iter().collect()
        },
    };
    let (body, height, css) = strips::draw(&figure, 0.0, shared);
    let canvas = Canvas {
        kind: KIND,
        width: strips::WIDTH,
        height,
        title: format!(
            "Token + position = input, for \"{}\"",
            one_line(&prompt.trace.meta.prompt.text)
        ),
        desc: describe(&prompt, &parts, &shown, &pick),
        css,
    };
    let domain = figure.domain();
    let relations = relations(&prompt, &figure.rows, shown, shared);
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

/// What a reader can check among the lengths: each is a length (see
/// `embedding::length_relations`), the input's is bounded by its parts', and each position's
/// is the one every figure of the model prints (`positional::length_quantity`).
fn relations(
    prompt: &Prompt<'_>,
    rows: &[StripRow],
    shown: Range<usize>,
    shared: Option<&SharedScale>,
) -> Vec<Relation> {
    let mut out = length_relations(rows, shared);
    out.extend(rows.chunks(3).filter_map(triangle));
    let model = &prompt.trace.meta.model;
    let positions = shown.zip(rows.chunks(3));
    out.extend(positions.map(|(p, rows)| length_quantity(model, p, &rows[1].summary)));
    out
}

/// The input's length against its parts' as printed (token, position, input; or any two
/// vectors and their sum): a sum of two vectors is no longer than their lengths added and no
/// shorter than their difference.
pub(in crate::kinds) fn triangle(rows: &[StripRow]) -> Option<Relation> {
    let [token, position, input] = rows else {
        return None;
    };
    let (a, b) = (printed(&token.summary)?, printed(&position.summary)?);
    let slack = a.half_unit + b.half_unit;
    Some(Relation::Bound {
        value: input.summary.clone(),
        low: ((a.value - b.value).abs() - slack).max(0.0),
        high: a.value + b.value + slack,
        why: "the length of a sum of two vectors (the triangle inequality)",
    })
}

fn rows(prompt: &Prompt<'_>, parts: &Parts, shown: Range<usize>, pick: &DimPick) -> Vec<StripRow> {
    let mut rows = Vec::new();
    for t in shown.clone() {
        let entries = [
            (token_label(prompt, t), &parts.embed),
            (Shown::plain(format!("+ position {t}")), &parts.pos),
            (Shown::plain("= input"), &parts.input),
        ];
        for (i, (label, tensor)) in entries.into_iter().enumerate() {
            let row = tensor.row(&[t]);
            rows.push(StripRow {
                label,
                values: pick.take(&row),
                summary: short(norm(&row)),
                gap_before: if i == 0 && t > shown.start { 10.0 } else { 0.0 },
            });
        }
    }
    rows
}

fn describe(prompt: &Prompt<'_>, parts: &Parts, shown: &Range<usize>, pick: &DimPick) -> String {
    let t = shown.end - 1;
    let length = |tensor: &Checked| short(norm(&tensor.row(&[t])));
    format!(
        "The input to the first layer is each token's embedding plus its position's \
         embedding, added dimension by dimension; drawn by {} for {} token{}. For {:?} at \
         position {t}: token embedding of length {}, position embedding of length {}, \
         input of length {}.",
        pick.header(),
        shown.len(),
        if shown.len() == 1 { "" } else { "s" },
        prompt.trace.meta.tokens[t].text,
        length(&parts.embed),
        length(&parts.pos),
        length(&parts.input)
    )
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::format::short;
    use crate::strip::norm;
    use crate::testing::test_forward::{wpe, wte};
    use crate::testing::test_svg::texts_in;
    use crate::testing::test_traces::{options, trace_of, TestTraces};
    use crate::{Figure, FigureError};

    fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
        let traces = TestTraces::with("p", trace_of(ids));
        render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None)
            .map(|(figure, _)| figure)
    }

    #[test]
    fn each_token_gets_its_embedding_its_position_and_their_sum() {
        let figure = draw(&[10, 11, 12, 13], "").unwrap();
        let labels = texts_in(&figure.svg, "tbf-m");
        assert_eq!(labels.len(), 12);
        assert_eq!(&labels[3..6], ["·robots", "+ position 1", "= input"]);
        let lengths = texts_in(&figure.svg, "tbf-s");
        let sum: Vec<f64> = wte(11).iter().zip(wpe(1)).map(|(a, b)| a + b).collect();
        assert_eq!(
            &lengths[3..6],
            [
                short(norm(&wte(11))),
                short(norm(&wpe(1))),
                short(norm(&sum))
            ]
        );
    }

    #[test]
    fn one_token_can_be_picked_from_either_end() {
        let last = draw(&[10, 11, 12, 13], "token = -1").unwrap();
        assert_eq!(
            texts_in(&last.svg, "tbf-m"),
            ["·bring", "+ position 3", "= input"]
        );
        assert!(
            last.alt.contains("For \" bring\" at position 3"),
            "{}",
            last.alt
        );
        let first = draw(&[10, 11, 12, 13], "token = 0").unwrap();
        assert_eq!(texts_in(&first.svg, "tbf-m")[0], "The");
        assert_eq!(
            draw(&[10, 11], "token = 2").unwrap_err().key.as_deref(),
            Some("token")
        );
    }

    #[test]
    fn long_prompts_show_their_last_five_tokens() {
        let ids: Vec<u32> = (0..9).collect();
        let figure = draw(&ids, "").unwrap();
        assert_eq!(texts_in(&figure.svg, "tbf-m").len(), 15);
        assert!(figure
            .svg
            .contains(">showing the last 5 of 9 tokens</text>"));
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(draw(&[10, 11], "dims = 6").unwrap().svg);
    }
}
