//! `figure positional`: GPT-2's learned position embeddings (rows of wpe, traced as
//! `pos_embed`) for the prompt's positions, as heat strips with their lengths. They do
//! not depend on the tokens: position 3 gets the same vector in every prompt.
//!
//! Options: `prompt`, `caption`, `dims` (default 32, at most 64), `spread`. Prompts longer
//! than 16 tokens show their last 16 positions.

use super::embedding::{range_text, rows_of, MAX_ROWS};
use super::strips::{self, window, window_note, DimPick, StripFigure};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::thousands;
use crate::options::Block;
use crate::prompt::Gpt2Part;
use crate::shared::{Domain, SharedScale};
use crate::svg::Canvas;
use crate::token_text::Shown;
use crate::Traces;

/// `positional` takes the same options as `embedding`.
pub(super) use super::embedding::Opts;

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
    let pos = prompt.shaped("pos_embed", &[n, config.n_embd])?;
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
    Ok((Figure::new(canvas, body, caption, &prompt), domain))
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::format::short;
    use crate::strip::norm;
    use crate::test_forward::wpe;
    use crate::test_svg::{desc, texts_in};
    use crate::test_traces::{options, trace_of, TestTraces};

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
