//! `figure sinusoidal`: the original Transformer's fixed position encoding, computed here
//! (not traced), for comparison with GPT-2's learned one (`figure positional`):
//! PE(p, 2i) = sin(p / 10000^(2i/d)) and PE(p, 2i+1) = cos(p / 10000^(2i/d)), with the
//! model's width d. Each row is one dimension across the positions, a wave: rows are
//! sine/cosine pairs spread evenly over the frequencies, fast waves at the top.
//!
//! Options: `prompt` (for the model's width), `caption`, `positions` (columns, default
//! 64, at most 128), `dims` (rows, an even number, default 16, at most 64).

use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::thousands;
use crate::kinds::strips::{self, DimPick, StripFigure};
use crate::options::{capped, Block, Dims, Int};
use crate::relations::Relation;
use crate::shared::{Domain, SharedScale};
use crate::strip::StripRow;
use crate::svg::Canvas;
use crate::token_text::Shown;
use crate::Traces;
use serde::Deserialize;
use std::f64::consts::TAU;

pub const KIND: &str = "sinusoidal";

/// The encoding's value at position `p`, dimension `j`, for width `d`.
pub fn encoding(p: usize, j: usize, d: usize) -> f64 {
    let angle = p as f64 / wavelength_base(j - j % 2, d);
    if j.is_multiple_of(2) {
        angle.sin()
    } else {
        angle.cos()
    }
}

/// 10000^(2i/d) for the even dimension `two_i`.
fn wavelength_base(two_i: usize, d: usize) -> f64 {
    10000f64.powf(two_i as f64 / d as f64)
}

/// The options of `sinusoidal`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    positions: Int<2, 128, 64>,
    /// Sine/cosine pairs, so an even number.
    dims: Option<Dims>,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let d = prompt.config().n_embd;
    let positions = block.options.positions.get();
    let most = (d - d % 2).clamp(2, strips::MAX_DIMS);
    let dims = capped(block.options.dims, 16, most)?;
    if dims % 2 == 1 {
        return Err(FigureError::at("dims", format!("dims = {dims} is odd"))
            .with_hint("dimensions come in sine/cosine pairs: use an even number"));
    }
    let pick = pairs(dims / 2, d);
    let rows: Vec<StripRow> = pick
        .indices
        .iter()
        .map(|&j| StripRow {
            label: Shown::plain(format!("{j} {}", if j % 2 == 0 { "sin" } else { "cos" })),
            values: (0..positions).map(|p| encoding(p, j, d)).collect(),
            summary: wavelength(j, d),
            gap_before: if j % 2 == 0 && j > 0 { 4.0 } else { 0.0 },
        })
        .collect();
    let figure = StripFigure {
        rows,
        header: format!("position 0 → {}", positions - 1),
        summary_title: "wavelength",
        legend_title: "sin or cos value".to_string(),
        notes: vec![
            format!("rows: a dimension of {} and its function", thousands(d)),
            "computed, not traced: GPT-2 learns its position embeddings".to_string(),
        ],
    };
    let (body, height, css) = strips::draw(&figure, 0.0, shared);
    let desc = describe(&pick, positions, d);
    let canvas = Canvas {
        kind: KIND,
        width: strips::WIDTH,
        height,
        title: format!(
            "Sinusoidal position encoding, positions 0–{}",
            positions - 1
        ),
        desc,
        css,
    };
    let domain = figure.domain();
    let relations = relations(&figure.rows);
    let figure = Figure::new(canvas, body, caption, &prompt).with_source(Source::Computed);
    Ok((figure.with_relations(relations), domain))
}

/// What a reader can check among the wavelengths: a sine and the cosine after it share theirs,
/// they grow down the rows (the frequencies are spread from fast to slow), and each is
/// 2π·10000^(2i/d), between 2π and 2π·10000.
fn relations(rows: &[StripRow]) -> Vec<Relation> {
    let wavelengths: Vec<String> = rows.iter().map(|r| r.summary.clone()).collect();
    let mut out: Vec<Relation> = wavelengths
        .chunks(2)
        .filter(|pair| pair.len() == 2)
        .map(|pair| Relation::Same {
            a: pair[0].clone(),
            b: pair[1].clone(),
        })
        .collect();
    out.extend(wavelengths.iter().map(|w| Relation::Bound {
        value: w.clone(),
        low: TAU,
        high: TAU * 10_000.0,
        why: "a wavelength 2π·10000^(2i/d)",
    }));
    out.push(Relation::Order {
        values: wavelengths,
        descending: false,
    });
    out
}

/// The wavelength of dimension `j` in positions, 2π·10000^(2i/d): "6.3", "1,234".
fn wavelength(j: usize, d: usize) -> String {
    crate::format::short(TAU * wavelength_base(j - j % 2, d))
}

/// `count` sine/cosine pairs spread evenly over the `d / 2` frequencies.
fn pairs(count: usize, d: usize) -> DimPick {
    let n_pairs = d / 2;
    let count = count.min(n_pairs).max(1);
    let indices = (0..count)
        .flat_map(|i| {
            let pair = i * n_pairs / count;
            [2 * pair, 2 * pair + 1]
        })
        .collect();
    DimPick {
        indices,
        total: d,
        spread: true,
    }
}

/// The figure in words: the positions, the width, and the wavelengths it spans.
fn describe(pick: &DimPick, positions: usize, d: usize) -> String {
    let last_pair = pick.indices[pick.indices.len() - 2];
    format!(
        "The sinusoidal position encoding of the original Transformer, computed for \
         positions 0 to {} with width d = {}: each row is one dimension across the \
         positions, a sine or cosine wave, for {} of the {} frequencies. Wavelengths run \
         from {} positions at dimension 0 to {} at dimension {last_pair}, so the top rows \
         change quickly from one position to the next and the bottom ones slowly. GPT-2 \
         learns its position embeddings instead.",
        positions - 1,
        thousands(d),
        pick.indices.len() / 2,
        thousands(d / 2),
        wavelength(0, d),
        wavelength(last_pair, d),
    )
}

#[cfg(test)]
mod tests {
    use super::{encoding, pairs, render};
    use crate::testing::test_svg::{texts_in, texts_in_last};
    use crate::testing::test_traces::{options, tiny_trace, TestTraces};
    use crate::{Figure, FigureError};

    fn draw(body: &str) -> Result<Figure, FigureError> {
        let traces = TestTraces::with("p", tiny_trace());
        render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None)
            .map(|(figure, _)| figure)
    }

    #[test]
    fn the_encoding_is_the_papers_formula() {
        assert_eq!(encoding(0, 0, 768), 0.0);
        assert_eq!(encoding(0, 1, 768), 1.0);
        assert!((encoding(1, 0, 768) - 1f64.sin()).abs() < 1e-12);
        let slow = 1.0 / 10000f64.powf(700.0 / 768.0);
        assert!((encoding(3, 701, 768) - (3.0 * slow).cos()).abs() < 1e-12);
        // Every position's vector has the same length, √(d/2).
        for p in [0, 5, 40] {
            let length: f64 = (0..768).map(|j| encoding(p, j, 768).powi(2)).sum();
            assert!((length - 384.0).abs() < 1e-9);
        }
    }

    #[test]
    fn columns_are_sine_cosine_pairs_spread_over_the_frequencies() {
        assert_eq!(pairs(4, 768).indices, [0, 1, 192, 193, 384, 385, 576, 577]);
        assert_eq!(pairs(8, 8).indices, [0, 1, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn rows_are_positions_and_options_are_checked() {
        let figure = draw("positions = 5\ndims = 4").unwrap();
        assert_eq!(
            texts_in(&figure.svg, "tbf-m"),
            ["0 sin", "1 cos", "4 sin", "5 cos"]
        );
        let tau = std::f64::consts::TAU;
        let slow = crate::format::short(tau * 10000f64.powf(0.5));
        assert_eq!(
            texts_in_last(&figure.svg, "tbf-s"),
            ["6.28", "6.28", &slow, &slow]
        );
        assert!(figure.alt.contains("positions 0 to 4 with width d = 8"));
        assert!(figure.svg.contains("computed, not traced"));
        assert_eq!(draw("dims = 3").unwrap_err().key.as_deref(), Some("dims"));
        assert_eq!(draw("dims = 10").unwrap_err().key.as_deref(), Some("dims"));
        assert_eq!(
            draw("positions = 129").unwrap_err().key.as_deref(),
            Some("positions")
        );
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(draw("positions = 4\ndims = 4").unwrap().svg);
    }
}
