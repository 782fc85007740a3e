//! `figure tokens`: the prompt as GPT-2 sees it, one box per token with its text and
//! vocabulary id, pieces of one word drawn close together, wrapped onto rows.
//!
//! Options: `prompt`, `caption`, `spans` (show each token's byte span in the prompt text,
//! default false), `positions` (number the tokens, default false).

use crate::draw::wrapped_note;
use crate::error::FigureError;
use crate::figure::Figure;
use crate::heatmap::token_key;
use crate::options::Block;
use crate::relations::Relation;
use crate::svg::{text_width, Canvas, Css, Element, Font, CATEGORY_COUNT};
use crate::token_text::{one_line, Shown, NEWLINE, SPACE};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::Token;

pub const KIND: &str = "tokens";

const WIDTH: f64 = crate::svg::FIGURE_WIDTH;
const TEXT_SIZE: f64 = 15.0;
const PAD_X: f64 = 7.0;
const BOX_HEIGHT: f64 = 30.0;
const GAP: f64 = 7.0;
/// Pieces of one word sit this close, so a split word still reads as one.
const PIECE_GAP: f64 = 2.0;

/// What to draw under and above each token box.
#[derive(Debug, Clone, Copy)]
struct Show {
    spans: bool,
    positions: bool,
}

/// One token box, placed.
#[derive(Debug, Clone)]
struct Placed {
    x: f64,
    row: usize,
    width: f64,
}

/// The options of `tokens`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    spans: bool,
    #[serde(default)]
    positions: bool,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let show = Show {
        spans: block.options.spans,
        positions: block.options.positions,
    };
    let tokens = &prompt.trace.meta.tokens;
    if tokens.is_empty() {
        return Err(FigureError::at(
            "prompt",
            format!("the trace of \"{}\" has no tokens", prompt.name),
        )
        .with_hint("re-run `tracebook trace` to rewrite it"));
    }
    let placed = layout(tokens, show);
    let rows = placed.last().map_or(1, |p| p.row + 1);
    let row_height = row_height(show);
    let mut body = draw(&prompt.name, tokens, &placed, show);
    let legend_y = rows as f64 * row_height + 6.0;
    let (note, last) = wrapped_note(&legend(tokens, show), 1.0, legend_y, WIDTH, 15.0);
    body.push(note);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: last + 10.0,
        title: format!(
            "The prompt \"{}\" as {} tokens",
            one_line(&prompt.trace.meta.prompt.text),
            tokens.len()
        ),
        desc: describe(tokens),
        css: Css::default(),
    };
    let vocab = prompt.config().vocab_size;
    let figure = Figure::new(canvas, body, caption, &prompt);
    Ok(figure.with_relations(relations(tokens, show, vocab)))
}

/// What a reader can check among the numbers under and above the boxes: every id is a row
/// of the vocabulary, the spans run through the prompt in order without overlapping, and
/// the positions count up.
fn relations(tokens: &[Token], show: Show, vocab: usize) -> Vec<Relation> {
    let mut out: Vec<Relation> = tokens
        .iter()
        .map(|t| Relation::Bound {
            value: t.id.to_string(),
            low: 0.0,
            high: vocab.saturating_sub(1) as f64,
            why: "a vocabulary id, below the vocabulary's size",
        })
        .collect();
    if show.spans {
        out.push(Relation::Order {
            values: tokens
                .iter()
                .flat_map(|t| [t.start.to_string(), t.end.to_string()])
                .collect(),
            descending: false,
        });
    }
    if show.positions {
        out.push(Relation::Order {
            values: (0..tokens.len()).map(|i| i.to_string()).collect(),
            descending: false,
        });
    }
    out
}

fn row_height(show: Show) -> f64 {
    let above = if show.positions { 14.0 } else { 0.0 };
    let below = if show.spans { 30.0 } else { 17.0 };
    above + BOX_HEIGHT + below + 10.0
}

fn box_top(row: usize, show: Show) -> f64 {
    let above = if show.positions { 14.0 } else { 0.0 };
    row as f64 * row_height(show) + above + 1.0
}

/// The shown text of a token, cut so its box fits one row.
fn label(token: &Token) -> Shown {
    Shown::fit(
        &token.text,
        WIDTH - 2.0 * PAD_X - 2.0,
        Font::Mono,
        TEXT_SIZE,
    )
}

fn box_width(token: &Token, show: Show) -> f64 {
    let text = text_width(&label(token).text(), Font::Mono, TEXT_SIZE) + 2.0 * PAD_X;
    let id = text_width(&token.id.to_string(), Font::Sans, 12.0) + 6.0;
    let span = if show.spans {
        text_width(&span_label(token), Font::Sans, 12.0) + 6.0
    } else {
        0.0
    };
    text.max(id).max(span).clamp(24.0, WIDTH - 2.0).ceil()
}

/// True when `token` continues the word `previous` ends, e.g. "believ" after "un".
fn continues_word(previous: &Token, token: &Token) -> bool {
    let ends_word = previous
        .text
        .chars()
        .last()
        .is_some_and(char::is_alphanumeric);
    let starts_word = token.text.chars().next().is_some_and(char::is_alphanumeric);
    ends_word && starts_word
}

/// Places boxes left to right, wrapping before a word that would not fit on the row
/// (or inside a word that does not fit on any row).
fn layout(tokens: &[Token], show: Show) -> Vec<Placed> {
    let widths: Vec<f64> = tokens.iter().map(|t| box_width(t, show)).collect();
    let mut placed: Vec<Placed> = Vec::with_capacity(tokens.len());
    let (mut x, mut row) = (1.0, 0);
    for i in 0..tokens.len() {
        let joined = i > 0 && continues_word(&tokens[i - 1], &tokens[i]);
        let gap = if i == 0 {
            0.0
        } else if joined {
            PIECE_GAP
        } else {
            GAP
        };
        let needed = if joined {
            widths[i]
        } else {
            word_width(tokens, &widths, i)
        };
        let fits_row = x + gap + needed <= WIDTH - 1.0;
        let fits_empty_row = 1.0 + needed <= WIDTH - 1.0;
        if i > 0 && !fits_row && (fits_empty_row || x + gap + widths[i] > WIDTH - 1.0) {
            row += 1;
            x = 1.0;
        } else {
            x += gap;
        }
        placed.push(Placed {
            x,
            row,
            width: widths[i],
        });
        x += widths[i];
    }
    placed
}

/// Width of the word starting at token `start`: it and the pieces that continue it.
fn word_width(tokens: &[Token], widths: &[f64], start: usize) -> f64 {
    let mut width = widths[start];
    let mut i = start + 1;
    while i < tokens.len() && continues_word(&tokens[i - 1], &tokens[i]) {
        width += PIECE_GAP + widths[i];
        i += 1;
    }
    width
}

/// The drawing, grouped by role so shared attributes are written once per group.
fn draw(prompt_name: &str, tokens: &[Token], placed: &[Placed], show: Show) -> Vec<Element> {
    let mut boxes = Element::new("g").class("tbf-tok");
    let mut texts = Element::new("g")
        .class("tbf-m")
        .attr("font-size", TEXT_SIZE)
        .attr("text-anchor", "middle");
    let mut numbers = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "middle");
    for (i, (token, place)) in tokens.iter().zip(placed).enumerate() {
        let top = box_top(place.row, show);
        let centre = place.x + place.width / 2.0;
        let key = token_key(prompt_name, i);
        boxes.push(
            Element::new("rect")
                .class(&format!("tbf-c{}", i % CATEGORY_COUNT))
                .attr("data-tb-tok", key.clone())
                .attr("x", place.x)
                .attr("y", top)
                .attr("width", place.width)
                .attr("height", BOX_HEIGHT)
                .attr("rx", 4.0),
        );
        texts.push(label(token).append_to(at(centre, top + 20.0).attr("data-tb-tok", key)));
        numbers.push(at(centre, top + BOX_HEIGHT + 15.0).text(token.id.to_string()));
        if show.spans {
            numbers.push(at(centre, top + BOX_HEIGHT + 29.0).text(span_label(token)));
        }
        if show.positions {
            numbers.push(at(centre, top - 4.0).text(i.to_string()));
        }
    }
    vec![boxes, texts, numbers]
}

/// An empty `<text>` at `(x, y)`.
fn at(x: f64, y: f64) -> Element {
    Element::new("text").attr("x", x).attr("y", y)
}

fn span_label(token: &Token) -> String {
    format!("{}–{}", token.start, token.end)
}

/// What the markers that appear and the numbers mean, in words.
fn legend(tokens: &[Token], show: Show) -> String {
    let has = |test: fn(char) -> bool| tokens.iter().any(|t| t.text.chars().any(test));
    let mut markers = Vec::new();
    if has(|c| c.is_whitespace() && c != '\n') {
        markers.push(format!("{SPACE} is a space"));
    }
    if has(|c| c == '\n') {
        markers.push(format!("{NEWLINE} a newline"));
    }
    let below = if show.spans {
        "its id and its bytes in the prompt, from–to (to not included)"
    } else {
        "its id"
    };
    let numbers = if show.positions {
        format!("above each token: its position; below: {below}")
    } else {
        format!("below each token: {below}")
    };
    let mut parts = vec![numbers];
    if !markers.is_empty() {
        parts.insert(0, markers.join(", "));
    }
    parts.join("; ")
}

fn describe(tokens: &[Token]) -> String {
    let list: Vec<String> = tokens
        .iter()
        .map(|t| format!("{:?} ({})", t.text, t.id))
        .collect();
    format!("{} tokens: {}.", tokens.len(), list.join(", "))
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
