//! `figure heads`: one token's query (or key, value, or head output) cut into the
//! model's heads. A bar split into H equal slices of dh dimensions, then one heat strip
//! per head with its slice's first dimensions and its length.
//!
//! Options: `prompt`, `caption`, `layer` (required), `token` (default -1), `of` = "q"
//! (default) | "k" | "v" | "z" (the head's attention output), `dims` (per head, default
//! 16, at most dh).

use crate::draw::{note, rect, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{short, thousands};
use crate::kinds::strips::{self, DimPick, StripFigure};
use crate::kinds::tokens_embeddings::embedding::length_relations;
use crate::options::{capped, choice, Block, Dims, LayerKey, TokenKey};
use crate::prompt::Checked;
use crate::relations::Relation;
use crate::shared::{Domain, SharedScale};
use crate::strip::{norm, StripRow};
use crate::svg::{Canvas, Element, Font, CATEGORY_COUNT};
use crate::token_text::{fitted, visible, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "heads";

const SPLIT_TOP: f64 = 18.0;
const SPLIT_HEIGHT: f64 = 22.0;

choice! {
    /// Which of a token's per-head vectors to cut.
    enum Of { Q = "q", K = "k", V = "v", Z = "z" } default Q
}

/// The options of `heads`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    #[serde(default)]
    token: TokenKey,
    #[serde(default)]
    of: Of,
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
    let of = block.options.of.word();
    let (prompt, caption) = (block.prompt, block.caption);
    let heads = prompt.heads(layer, &format!("attn.{of}"))?;
    let (h_count, dh) = (heads.shape[0], heads.shape[2]);
    let dims = capped(block.options.dims, 16, dh.clamp(1, strips::MAX_DIMS))?;
    let pick = DimPick::new(dims, dh, false);
    let rows = head_rows(&heads, t, &pick);
    let name = vector_name(of);
    let token = visible(&prompt.trace.meta.tokens[t].text);
    let mut body = split_bar(h_count, dh, &format!("{name} of {token} (token {t})"));
    let figure = StripFigure {
        rows,
        header: format!("each head's {}", pick.header()),
        summary_title: "length",
        legend_title: "value".to_string(),
        notes: Vec::new(),
    };
    let (strips, height, css) = strips::draw(&figure, SPLIT_TOP + SPLIT_HEIGHT + 30.0, shared);
    body.extend(strips);
    let lengths: Vec<String> = figure
        .rows
        .iter()
        .map(|r| format!("{} {}", r.label.text(), r.summary))
        .collect();
    let desc = format!(
        "In layer {}, the {name} of {:?} (token {t}), {} numbers, is cut into {h_count} heads \
         of {dh} consecutive dimensions; each head works with its own slice. Lengths: {}.",
        layer.0,
        prompt.trace.meta.tokens[t].text,
        thousands(h_count * dh),
        lengths.join(", ")
    );
    let canvas = Canvas {
        kind: KIND,
        width: strips::WIDTH,
        height,
        title: format!("Layer {}: the {name} split into {h_count} heads", layer.0),
        desc,
        css,
    };
    let domain = figure.domain();
    let mut relations = length_relations(&figure.rows, shared);
    relations.extend(split_relations(h_count, dh));
    let figure = Figure::new(canvas, body, caption, &prompt).with_relations(relations);
    Ok((figure, domain))
}

/// The split bar's numbers: the vector's width is the heads times their width, and the heads
/// are numbered in order.
fn split_relations(heads: usize, dh: usize) -> [Relation; 2] {
    [
        Relation::Product {
            factors: vec![heads.to_string(), dh.to_string()],
            result: thousands(heads * dh),
        },
        Relation::Order {
            values: (0..heads).map(|h| h.to_string()).collect(),
            descending: false,
        },
    ]
}

fn vector_name(of: &str) -> &'static str {
    match of {
        "k" => "key",
        "v" => "value",
        "z" => "attention output",
        _ => "query",
    }
}

/// A strip per head of `heads` at token `t`: the dimensions `pick` shows, and its length.
fn head_rows(heads: &Checked, t: usize, pick: &DimPick) -> Vec<StripRow> {
    (0..heads.shape[0])
        .map(|h| {
            let row = heads.row(&[h, t]);
            StripRow {
                label: Shown::plain(format!("head {h}")),
                values: pick.take(&row),
                summary: short(norm(&row)),
                gap_before: 0.0,
            }
        })
        .collect()
}

/// A bar standing for the whole vector, cut into `heads` slices of `dh`, numbered.
fn split_bar(heads: usize, dh: usize, title: &str) -> Vec<Element> {
    let width = strips::WIDTH - 2.0;
    let slice = width / heads.max(1) as f64;
    let mut boxes = Element::new("g").class("tbf-tok");
    let mut numbers = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "middle");
    for h in 0..heads {
        let x = 1.0 + h as f64 * slice;
        let class = format!("tbf-c{}", h % CATEGORY_COUNT);
        boxes.push(rect(&class, x, SPLIT_TOP, slice - 2.0, SPLIT_HEIGHT));
        if slice >= 14.0 {
            numbers.push(text(x + slice / 2.0 - 1.0, SPLIT_TOP + 15.0).text(h.to_string()));
        }
    }
    let total = thousands(heads * dh);
    vec![
        fitted(
            text(0.0, 12.0).class("tbf-s"),
            &format!("{title}: {total} = {heads} heads × {dh}"),
            strips::WIDTH,
            Font::Sans,
            12.0,
        ),
        boxes,
        numbers,
        note("head number", 0.0, SPLIT_TOP + SPLIT_HEIGHT + 14.0),
    ]
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::format::short;
    use crate::strip::norm;
    use crate::testing::test_forward::{key, query};
    use crate::testing::test_svg::{all_texts, texts_in, texts_in_last};
    use crate::testing::test_traces::{options, trace_of, TestTraces};
    use crate::{Figure, FigureError};

    fn draw(body: &str) -> Result<Figure, FigureError> {
        let traces = TestTraces::with("p", trace_of(&[10, 11, 12, 13]));
        render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None)
            .map(|(figure, _)| figure)
    }

    #[test]
    fn one_strip_per_head_with_the_length_of_its_slice() {
        let figure = draw("layer = 1\ntoken = 1").unwrap();
        assert_eq!(texts_in(&figure.svg, "tbf-m"), ["head 0", "head 1"]);
        let expected: Vec<String> = (0..2).map(|h| short(norm(&query(1, h, 1)))).collect();
        assert_eq!(texts_in_last(&figure.svg, "tbf-s")[..], expected[..]);
        let texts = all_texts(&figure.svg);
        assert!(texts.contains(&"query of ·robots (token 1): 8 = 2 heads × 4".to_string()));
        assert!(
            figure.alt.contains("cut into 2 heads of 4"),
            "{}",
            figure.alt
        );
    }

    #[test]
    fn keys_values_and_outputs_can_be_split_too() {
        let figure = draw("layer = 0\nof = \"k\"").unwrap();
        let expected: Vec<String> = (0..2).map(|h| short(norm(&key(0, h, 3)))).collect();
        assert_eq!(texts_in_last(&figure.svg, "tbf-s")[..], expected[..]);
        assert!(draw("layer = 0\nof = \"z\"")
            .unwrap()
            .alt
            .contains("attention output"));
        let error = draw("layer = 0\nof = \"w\"").unwrap_err();
        assert_eq!(error.key.as_deref(), Some("of"));
        assert_eq!(
            draw("layer = 0\ndims = 5").unwrap_err().key.as_deref(),
            Some("dims")
        );
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(draw("layer = 0\ndims = 3").unwrap().svg);
    }
}
