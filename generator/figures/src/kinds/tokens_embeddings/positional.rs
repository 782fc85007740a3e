//! `figure positional`: GPT-2's learned position embeddings (rows of wpe, traced as
//! `pos_embed`) for the prompt's positions, as heat strips with their lengths. They do
//! not depend on the tokens: position 3 gets the same vector in every prompt.
//!
//! So that it also prints the same in every figure, the rows come from one trace per model
//! (see [`positions_of`]): a trace stores each prompt's rows on its own, within its precision,
//! and two prompts' copies of one row can differ in the last printed digit of its length.
//!
//! Options: `prompt`, `caption`, `dims` (default 32, at most 64), `spread`. Prompts longer
//! than 16 tokens show their last 16 positions.

use super::embedding::{length_relations, range_text, rows_of, MAX_ROWS};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::thousands;
use crate::kinds::strips::{self, window, window_note, DimPick, StripFigure};
use crate::options::Block;
use crate::prompt::{Checked, Gpt2Part, Prompt};
use crate::relations::Relation;
use crate::shared::{Domain, SharedScale};
use crate::svg::Canvas;
use crate::token_text::Shown;
use crate::Traces;
use tracebook_trace::ModelInfo;

/// `positional` takes the same options as `embedding`.
pub(in crate::kinds) use super::embedding::Opts;

pub const KIND: &str = "positional";

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    prompt.needs(KIND, Gpt2Part::LearnedPositions)?;
    let config = prompt.config();
    let pick = DimPick::read(block.options.dims, block.options.spread, config.n_embd, 32)?;
    let n = prompt.tokens()?.len();
    let pos = positions_of(&prompt, traces, n)?;
    let shown = window(n, MAX_ROWS);
    let rows = rows_of(&pos, shown.clone(), &pick, |t| Shown::plain(t.to_string()));
    let figure = StripFigure {
        rows,
        header: pick.header(),
        summary_title: "length ‖p‖",
        legend_title: "position embedding value".to_string(),
        notes: window_note(&shown, n).into_iter().collect(),
    };
    let (body, height, css) = strips::draw(&figure, 0.0, shared);
    let desc = format!(
        "Learned position embeddings for positions {} to {}: each is a row of the {} × {} \
         position embedding matrix, the same whatever the token, drawn by {} ({}), blue \
         below zero and red above.",
        shown.start,
        shown.end - 1,
        thousands(config.n_positions),
        thousands(config.n_embd),
        pick.header(),
        range_text(&figure)
    );
    let canvas = Canvas {
        kind: KIND,
        width: strips::WIDTH,
        height,
        title: format!(
            "Position embeddings, positions {}–{}",
            shown.start,
            shown.end - 1
        ),
        desc,
        css,
    };
    let domain = figure.domain();
    let mut relations = length_relations(&figure.rows, shared);
    let model = &prompt.trace.meta.model;
    let lengths = shown.clone().zip(&figure.rows);
    relations.extend(lengths.map(|(p, row)| length_quantity(model, p, &row.summary)));
    relations.push(Relation::Order {
        values: shown.map(|p| p.to_string()).collect(),
        descending: false,
    });
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

/// The length of position `p`'s embedding in `model`, as printed (`length`): one quantity
/// every figure of a site prints alike, whatever the prompt (see [`positions_of`]).
pub fn length_quantity(model: &ModelInfo, p: usize, length: &str) -> Relation {
    let sha = model
        .weights_sha256
        .get(..12)
        .unwrap_or(&model.weights_sha256);
    Relation::Quantity {
        name: format!(
            "{} ({sha}): the length of position {p}'s embedding",
            model.id
        ),
        value: length.to_string(),
    }
}

/// The position embeddings of positions 0 to `n` − 1 for `prompt`'s model, from one trace of
/// that model whatever the prompt: of the traces `traces` holds of the same model (its id,
/// weights and sizes), the one with the most positions, the first by name on a tie. Rows do
/// not depend on the tokens, but each trace stores its own copy within its precision; read
/// from one, a position's strip and length print the same in every figure and prompt. A
/// prompt whose own rows are not that trace's within both traces' bounds (another vector,
/// not another rounding of it) keeps its own.
pub fn positions_of(
    prompt: &Prompt<'_>,
    traces: &dyn Traces,
    n: usize,
) -> Result<Checked, FigureError> {
    let d = prompt.config().n_embd;
    let own = prompt.shaped("pos_embed", &[n, d])?;
    let Some(source) = source(prompt, traces, n) else {
        return Ok(own);
    };
    let rows = source.trace.shape("pos_embed").map_or(0, |s| s[0]);
    let theirs = source.shaped("pos_embed", &[rows, d])?;
    let bounds = |p: &Prompt<'_>| p.trace.bound("pos_embed").ok();
    let (Some(own_bound), Some(their_bound)) = (bounds(prompt), bounds(&source)) else {
        return Ok(own);
    };
    let agree = (0..n * d).all(|i| {
        let gap = f64::from(own.data[i] - theirs.data[i]).abs();
        gap <= own_bound[i] + their_bound[i] + 1e-6
    });
    if !agree {
        return Ok(own);
    }
    Ok(Checked {
        shape: vec![n, d],
        data: theirs.data[..n * d].to_vec(),
    })
}

/// The trace `positions_of` reads for `prompt`, when it is another prompt's.
fn source<'t>(prompt: &Prompt<'_>, traces: &'t dyn Traces, n: usize) -> Option<Prompt<'t>> {
    let model = &prompt.trace.meta.model;
    let mut names = traces.names();
    names.sort();
    let rows = |name: &str| -> Option<usize> {
        let trace = traces.get(name)?;
        let same = trace.meta.model.id == model.id
            && trace.meta.model.weights_sha256 == model.weights_sha256
            && trace.meta.model.config == model.config;
        match trace.shape("pos_embed") {
            Some(&[rows, cols]) if same && cols == model.config.n_embd && rows >= n => Some(rows),
            _ => None,
        }
    };
    // The most rows, then the first name: `max_by_key` keeps the last of equals.
    let (_, name) = names
        .iter()
        .rev()
        .filter_map(|name| rows(name).map(|r| (r, name)))
        .max_by_key(|(r, _)| *r)?;
    if *name == prompt.name {
        return None;
    }
    Some(Prompt {
        name: name.clone(),
        trace: traces.get(name)?,
    })
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::format::short;
    use crate::strip::norm;
    use crate::testing::test_forward::wpe;
    use crate::testing::test_svg::{desc, texts_in};
    use crate::testing::test_traces::{options, trace_of, trace_with, TestTraces};
    use std::collections::BTreeMap;
    use tracebook_trace::{Precision, Trace};

    fn draw(ids: &[u32], body: &str) -> crate::Figure {
        let traces = TestTraces::with("p", trace_of(ids));
        render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None)
            .unwrap()
            .0
    }

    #[test]
    fn rows_are_positions_with_their_lengths_whatever_the_tokens() {
        let robots = draw(&[10, 11, 12, 13], "");
        assert_eq!(texts_in(&robots.svg, "tbf-m"), ["0", "1", "2", "3"]);
        let lengths: Vec<String> = (0..4).map(|p| short(norm(&wpe(p)))).collect();
        assert_eq!(texts_in(&robots.svg, "tbf-s"), lengths);
        let other = draw(&[1, 2, 3, 4], "");
        assert_eq!(robots.svg, other.svg, "positions do not depend on tokens");
    }

    /// `trace` with its position embeddings `scale` times as long: another vector, not another
    /// rounding of it.
    fn scaled_positions(trace: &Trace, scale: f32) -> Trace {
        let mut out = Trace::new(trace.meta.clone());
        for name in trace.tensor_names() {
            let tensor = trace.tensor(name).unwrap();
            let data: Vec<f32> = match name {
                "pos_embed" => tensor.data.iter().map(|v| v * scale).collect(),
                _ => tensor.data,
            };
            out.insert(name, tensor.shape, &data).unwrap();
        }
        out
    }

    fn lengths(traces: &TestTraces, prompt: &str) -> Vec<String> {
        let table = options(&format!("prompt = \"{prompt}\""));
        let (figure, _) = render(&table, traces, None).unwrap();
        texts_in(&figure.svg, "tbf-s")
    }

    /// embeddings.html printed position 1's length as 0.493 from one prompt's trace and 0.497
    /// from another's: each compact trace rounds its own copy of the rows. Every prompt of a
    /// model now reads them from the model's longest trace, where they agree within the
    /// traces' bounds.
    #[test]
    fn a_position_prints_the_same_from_every_prompt_of_a_model() {
        let traces = TestTraces(BTreeMap::from([
            ("long".to_string(), trace_of(&[10, 11, 12, 13])),
            (
                "short".to_string(),
                trace_with(&[12, 13], Precision::Compact),
            ),
        ]));
        let long = lengths(&traces, "long");
        assert_eq!(lengths(&traces, "short"), long[..2]);
        // Alone, the compact trace prints its own rounding, off in the last digit.
        let alone = TestTraces::with("short", trace_with(&[12, 13], Precision::Compact));
        assert_ne!(lengths(&alone, "short"), long[..2]);
        let exact: Vec<String> = (0..2).map(|p| short(norm(&wpe(p)))).collect();
        assert_eq!(long[..2], exact[..]);
        // A trace whose rows are another vector is no source: each prompt keeps its own.
        let traces = TestTraces(BTreeMap::from([
            (
                "long".to_string(),
                scaled_positions(&trace_of(&[10, 11, 12]), 2.0),
            ),
            ("short".to_string(), trace_of(&[12, 13])),
        ]));
        assert_eq!(lengths(&traces, "short"), exact);
        let doubled: Vec<String> = (0..2).map(|p| short(2.0 * norm(&wpe(p)))).collect();
        assert_eq!(lengths(&traces, "long")[..2], doubled[..]);
    }

    #[test]
    fn alt_text_names_the_positions_and_the_matrix() {
        let figure = draw(&[10, 11, 12, 13], "dims = 4");
        assert_eq!(desc(&figure.svg), figure.alt);
        assert!(figure.alt.starts_with(
            "Learned position embeddings for positions 0 to 3: each is a row of the 64 × 8"
        ));
        assert!(figure.alt.contains("dimensions 0–3 of 8"), "{}", figure.alt);
    }

    #[test]
    fn long_prompts_show_their_last_positions() {
        let ids: Vec<u32> = (0..20).collect();
        let figure = draw(&ids, "");
        let labels = texts_in(&figure.svg, "tbf-m");
        assert_eq!(labels.first().map(String::as_str), Some("4"));
        assert_eq!(labels.len(), 16);
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(draw(&[10, 11, 12, 13], "dims = 6").svg);
    }
}
