//! `figure head-mix`: how the heads' outputs become one vector again. For one token, each
//! head's output z (`attn.z`, dh numbers) as a heat strip; they are concatenated into d
//! numbers and multiplied by the output matrix W_O (d × d, plus a bias), giving
//! `attn_out`, which is then added to the residual stream (its lengths before and after,
//! from `resid_pre` and `resid_mid`, in a note).
//!
//! Options: `prompt`, `caption`, `layer` (required), `token` (default -1), `dims`
//! (dimensions per strip, default 16, at most dh).

use crate::draw::text;
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, thousands};
use crate::kinds::strips::{self, DimPick, StripFigure};
use crate::kinds::tokens_embeddings::embedding::length_relations;
use crate::kinds::tokens_embeddings::embedding_sum::triangle;
use crate::options::{capped, Block, Dims, Layer, LayerKey, TokenKey};
use crate::prompt::{Checked, Prompt};
use crate::relations::Relation;
use crate::shared::{Domain, SharedScale};
use crate::strip::{norm, StripRow};
use crate::svg::{wide_width, Canvas, Element, Font};
use crate::token_text::{visible, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "head-mix";

/// Room between the head rows and the rows after the projection, for the arrow text.
const GAP: f64 = 30.0;

/// The lengths the alt text reports.
struct Lengths {
    heads: Vec<f64>,
    out: f64,
    before: f64,
    after: f64,
}

/// The options of `head-mix`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    #[serde(default)]
    token: TokenKey,
    dims: Option<Dims>,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let layer = block.layer(KIND, block.options.layer)?;
    let t = block.token(block.options.token)?.0;
    let (prompt, caption) = (block.prompt, block.caption);
    let config = prompt.config();
    let d = config.n_embd;
    let z = prompt.heads(layer, "attn.z")?;
    let (heads, dh) = (z.shape[0], z.shape[2]);
    let most = dh.clamp(1, strips::MAX_DIMS);
    let pick = DimPick::new(capped(block.options.dims, 16, most)?, dh, false);
    let out = prompt.block(layer, "attn_out", d)?.row(&[t]);
    let before = prompt.block(layer, "resid_pre", d)?.row(&[t]);
    let after = prompt.block(layer, "resid_mid", d)?.row(&[t]);
    let figure = StripFigure {
        rows: strips_of(&z, t, &pick, [&out, &before, &after]),
        header: format!(
            "{} (token {t}): first {} dimensions of each",
            visible(&prompt.trace.meta.tokens[t].text),
            pick.indices.len()
        ),
        summary_title: "length",
        legend_title: "value".to_string(),
        // Short enough to fit beside the strips in any sans font (DejaVu Sans runs wider
        // than the width estimate).
        notes: vec!["resid_mid = resid_pre + attn_out".to_string()],
    };
    let drawn = strips::draw_placed(&figure, 0.0, shared);
    let mut body = drawn.elements;
    let arrow_y = drawn.row_tops[heads] - GAP / 2.0 + 3.0;
    let bias = has_output_bias(&prompt);
    body.push(join_line((heads, dh, d), bias, drawn.left, arrow_y));
    let lengths = Lengths {
        heads: (0..heads).map(|h| norm(&z.row(&[h, t]))).collect(),
        out: norm(&out),
        before: norm(&before),
        after: norm(&after),
    };
    let canvas = Canvas {
        kind: KIND,
        width: strips::WIDTH,
        height: drawn.height,
        title: format!("Layer {}: mixing the heads' outputs", layer.0),
        desc: describe(&prompt, layer, t, &lengths),
        css: drawn.css,
    };
    let domain = figure.domain();
    let relations = relations(&figure.rows, (heads, dh), shared);
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

/// What a reader can check: the lengths (see `embedding::length_relations`), resid_mid's
/// against resid_pre's and attn_out's (the note's sum), and the joined heads' width.
fn relations(
    rows: &[StripRow],
    (heads, dh): (usize, usize),
    shared: Option<&SharedScale>,
) -> Vec<Relation> {
    let mut out = length_relations(rows, shared);
    out.extend(triangle(&rows[heads..]));
    out.push(Relation::Product {
        factors: vec![heads.to_string(), dh.to_string()],
        result: thousands(heads * dh),
    });
    out
}

/// A strip per head's z at token `t`, then attn_out, resid_pre and resid_mid.
fn strips_of(
    z: &Checked,
    t: usize,
    pick: &DimPick,
    [out, before, after]: [&[f64]; 3],
) -> Vec<StripRow> {
    let mut rows: Vec<StripRow> = (0..z.shape[0])
        .map(|h| strip(format!("head {h}"), &z.row(&[h, t]), pick, 0.0))
        .collect();
    rows.push(strip("attn_out".to_string(), out, pick, GAP));
    rows.push(strip("resid_pre".to_string(), before, pick, 6.0));
    rows.push(strip("resid_mid".to_string(), after, pick, 0.0));
    rows
}

fn strip(label: String, row: &[f64], pick: &DimPick, gap_before: f64) -> StripRow {
    StripRow {
        label: Shown::plain(label),
        values: pick.take(row),
        summary: short(norm(row)),
        gap_before,
    }
}

/// The line between the heads and the output: how the heads are joined and projected (with
/// GPT-2's bias; the Llama family's projection has none), from `left` if it fits there, else
/// from the left edge.
fn join_line(sizes: (usize, usize, usize), bias: bool, left: f64, y: f64) -> Element {
    let (heads, dh, d) = sizes;
    let join = format!(
        "↓ concatenate {heads} × {dh} = {0} → × W_O ({0} × {1}){2}",
        thousands(heads * dh),
        thousands(d),
        if bias { " + b" } else { "" }
    );
    let fits = left + wide_width(&join, Font::Sans, 12.0) <= strips::WIDTH;
    let x = if fits { left } else { 0.0 };
    text(x, y).class("tbf-s").text(join)
}

fn describe(prompt: &Prompt<'_>, layer: Layer, t: usize, lengths: &Lengths) -> String {
    let config = prompt.config();
    let by_length = |a: &(usize, &f64), b: &(usize, &f64)| a.1.total_cmp(b.1);
    let longest = lengths.heads.iter().enumerate().max_by(by_length);
    let shortest = lengths.heads.iter().enumerate().min_by(by_length);
    let mut out = format!(
        "In layer {}, the outputs of the {} heads for {:?} (token {t}), {} numbers each, are \
         concatenated into one vector of {} and multiplied by the output matrix W_O ({} × {}, \
         plus a bias), giving attn_out of length {}, which is added to the residual stream: \
         length {} before, {} after.",
        layer.0,
        config.n_head,
        prompt.trace.meta.tokens[t].text,
        config.n_embd / config.n_head.max(1),
        thousands(config.n_embd),
        thousands(config.n_embd),
        thousands(config.n_embd),
        short(lengths.out),
        short(lengths.before),
        short(lengths.after)
    );
    if let (Some(long), Some(brief)) = (longest, shortest) {
        out.push_str(&format!(
            " Head outputs range in length from {} (head {}) to {} (head {}).",
            short(*brief.1),
            brief.0,
            short(*long.1),
            long.0
        ));
    }
    out
}

/// Whether W_O has a bias: GPT-2's always does; a Llama-family model's where its trace says
/// so (`attention_bias`), and none in a trace that does not record it.
fn has_output_bias(prompt: &Prompt<'_>) -> bool {
    let config = prompt.config();
    config.model_type() == "gpt2" || config.decoder.as_ref().is_some_and(|d| d.o_bias)
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::format::short;
    use crate::strip::norm;
    use crate::testing::test_svg::{all_texts, texts_in, texts_in_last};
    use crate::testing::test_traces::{options, trace_of, TestTraces};
    use crate::{Figure, FigureError};

    const ROBOTS: [u32; 4] = [10, 11, 12, 13];

    fn draw(body: &str) -> Result<Figure, FigureError> {
        let traces = TestTraces::with("p", trace_of(&ROBOTS));
        render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None)
            .map(|(figure, _)| figure)
    }

    fn row(name: &str, t: usize) -> Vec<f64> {
        let tensor = trace_of(&ROBOTS).tensor(name).unwrap();
        let d = tensor.shape[1];
        tensor.data[t * d..(t + 1) * d]
            .iter()
            .map(|&v| f64::from(v))
            .collect()
    }

    #[test]
    fn heads_then_the_projection_and_the_residual_add() {
        let figure = draw("layer = 1\ntoken = 2").unwrap();
        let labels = texts_in(&figure.svg, "tbf-m");
        assert_eq!(
            labels,
            ["head 0", "head 1", "attn_out", "resid_pre", "resid_mid"]
        );
        let lengths = texts_in_last(&figure.svg, "tbf-s");
        let out = row("blocks.1.attn_out", 2);
        let pre = row("blocks.1.resid_pre", 2);
        let sum: Vec<f64> = pre.iter().zip(&out).map(|(a, b)| a + b).collect();
        assert_eq!(
            lengths[2..],
            [short(norm(&out)), short(norm(&pre)), short(norm(&sum))]
        );
        let texts = all_texts(&figure.svg);
        assert!(texts.contains(&"↓ concatenate 2 × 4 = 8 → × W_O (8 × 8) + b".to_string()));
    }

    /// W_O's "+ b" follows the model: a Llama-family trace shows it where the config has
    /// attention biases (`decoder.o_bias`), and not otherwise.
    #[test]
    fn the_output_bias_is_shown_where_the_model_has_one() {
        let with = |o_bias: bool| {
            let mut trace = trace_of(&ROBOTS);
            let config = &mut trace.meta.model.config;
            config.model_type = Some("llama".into());
            config.decoder = Some(tracebook_trace::DecoderBlock {
                intermediate_size: 32,
                tie_word_embeddings: true,
                qkv_bias: o_bias,
                o_bias,
                mlp_bias: false,
                qk_norm: false,
            });
            let traces = TestTraces::with("p", trace);
            let (figure, _) = render(&options("prompt = \"p\"\nlayer = 1"), &traces, None).unwrap();
            all_texts(&figure.svg)
        };
        let line = "↓ concatenate 2 × 4 = 8 → × W_O (8 × 8)";
        assert!(with(true).contains(&format!("{line} + b")));
        assert!(with(false).contains(&line.to_string()));
    }

    #[test]
    fn alt_text_follows_the_vector_through() {
        let figure = draw("layer = 0").unwrap();
        assert!(figure
            .alt
            .contains("the outputs of the 2 heads for \" bring\" (token 3), 4 numbers each"));
        assert!(
            figure.alt.contains("Head outputs range in length from"),
            "{}",
            figure.alt
        );
        assert_eq!(
            draw("layer = 0\ndims = 5").unwrap_err().key.as_deref(),
            Some("dims")
        );
    }

    #[test]
    fn the_note_fits_the_drawing_in_a_wide_sans_font() {
        let figure = draw("layer = 1").unwrap();
        let note = all_texts(&figure.svg)
            .into_iter()
            .find(|t| t.starts_with("resid_mid ="))
            .unwrap();
        assert_eq!(note, "resid_mid = resid_pre + attn_out");
        let x: f64 = figure
            .svg
            .split("\">resid_mid =")
            .next()
            .and_then(|before| before.rsplit("x=\"").next())
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .parse()
            .unwrap();
        // DejaVu Sans, the usual sans on Linux, averages about 0.62 em per character.
        let wide = x + note.chars().count() as f64 * 12.0 * 0.62;
        assert!(wide <= crate::svg::FIGURE_WIDTH, "the note ends at {wide}");
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(draw("layer = 0\ndims = 3").unwrap().svg);
    }
}
