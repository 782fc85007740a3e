//! `figure bpe`: how byte-pair encoding built the tokens of one word of the prompt, merge
//! by merge. The word starts as its bytes; each row joins the neighbouring pair whose merge
//! rule has the lowest rank (was learned first), until no rule applies; the last row is the
//! word's tokens as the model receives them.
//!
//! The merges are the tokenizer's own, recorded in the trace (`meta.merges`) when it was
//! made, so the figure needs no tokenizer and shows exactly what tokenized the prompt.
//!
//! Options: `prompt`, `caption`, `word` (the word to show, as written in the prompt, its
//! leading space optional; default the word cut into the most tokens).

use crate::draw::{rect, text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::thousands;
use crate::kinds::strips::WIDTH;
use crate::options::Block;
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{text_width, wide_width, Canvas, Css, Element, Font};
use crate::token_text::{one_line, Shown, SPACE};
use crate::Traces;
use serde::Deserialize;
use std::ops::Range;
use tracebook_trace::suggest::did_you_mean;
use tracebook_trace::WordMerges;

pub const KIND: &str = "bpe";

const TEXT_SIZE: f64 = 13.0;
const PITCH: f64 = 26.0;
const BOX_HEIGHT: f64 = 20.0;
const PAD: f64 = 3.5;
const GAP: f64 = 3.0;
const TOP: f64 = 22.0;
/// The step column on the left and the rank column on the right.
const STEP_WIDTH: f64 = 44.0;
const RANK_WIDTH: f64 = 46.0;
/// Between two ids under the last row, and from one line of them to the next.
const ID_GAP: f64 = 4.0;
const ID_PITCH: f64 = 14.0;

/// The options of `bpe`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    word: Option<String>,
}

/// One row: the word's parts after a number of merges, as byte ranges of the word, with the
/// part just made and the rank of the rule that made it.
struct Row {
    parts: Vec<Range<usize>>,
    merged: Option<(usize, u32)>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let word = pick(&prompt, block.options.word.as_deref())?;
    let text = prompt.trace.meta.prompt.text.as_bytes();
    let bytes = text.get(word.start..word.end).ok_or_else(|| {
        prompt.broken(format!(
            "a word of its merges spans bytes {}..{}, beyond the prompt",
            word.start, word.end
        ))
    })?;
    let rows = replay(word).ok_or_else(|| {
        prompt.broken("a merge of its `meta.merges` joins parts that are not there".into())
    })?;
    let ids: Vec<u32> = final_ids(word);
    let shown = String::from_utf8_lossy(bytes);
    let (body, width, height) = draw(bytes, &rows, &ids);
    let canvas = Canvas {
        kind: KIND,
        width,
        height,
        title: format!("Byte-pair encoding of \"{}\"", one_line(&shown)),
        desc: describe(bytes, &rows, &ids),
        css: Css::default(),
    };
    let vocab = prompt.config().vocab_size;
    let figure = Figure::new(canvas, body, caption, &prompt);
    Ok(figure.with_relations(relations(bytes, &rows, &ids, vocab)))
}

/// What a reader can check: each merge joins two parts into one, so the bytes are the tokens
/// plus the merges; the steps count up; each step's rule ranks no lower than the last one's
/// (the lowest-ranked pair goes first, and a pair a merge makes was learned after it); and
/// every id is a row of the vocabulary.
fn relations(bytes: &[u8], rows: &[Row], ids: &[u32], vocab: usize) -> Vec<Relation> {
    let merges = rows.len() - 1;
    let mut out = vec![
        Relation::Sum {
            terms: vec![ids.len().to_string(), merges.to_string()],
            total: bytes.len().to_string(),
        },
        Relation::Order {
            values: (1..rows.len()).map(|r| r.to_string()).collect(),
            descending: false,
        },
        Relation::Order {
            values: rows
                .iter()
                .filter_map(|row| row.merged.map(|(_, rank)| thousands(rank as usize)))
                .collect(),
            descending: false,
        },
    ];
    out.extend(ids.iter().map(|id| Relation::Bound {
        value: id.to_string(),
        low: 0.0,
        high: vocab.saturating_sub(1) as f64,
        why: "a vocabulary id, below the vocabulary's size",
    }));
    out
}

/// The word the block asks for, or the one cut into the most tokens (then the longest).
fn pick<'a>(prompt: &Prompt<'a>, word: Option<&str>) -> Result<&'a WordMerges, FigureError> {
    let meta = &prompt.trace.meta;
    if meta.merges.is_empty() {
        return Err(FigureError::at(
            "prompt",
            format!("the trace of \"{}\" records no BPE merges", prompt.name),
        )
        .with_hint(format!(
            "re-trace it with this tracebook: `tracebook trace --only {} --force` (traces \
             written before tracebook recorded merges, and tokenizers that are not byte-level \
             BPE, have none)",
            prompt.name
        )));
    }
    let text = &meta.prompt.text;
    let word_text = |w: &WordMerges| text.get(w.start..w.end).unwrap_or_default();
    let Some(wanted) = word else {
        let tokens = |w: &WordMerges| w.bytes.len() - w.merges.len();
        let best = meta
            .merges
            .iter()
            .rev()
            .max_by_key(|w| (tokens(w), w.end - w.start));
        return best.ok_or_else(|| prompt.broken("its `meta.merges` is empty".into()));
    };
    let found = meta.merges.iter().find(|w| {
        let t = word_text(w);
        t == wanted || t.trim_start() == wanted.trim_start()
    });
    found.ok_or_else(|| {
        let words: Vec<String> = meta
            .merges
            .iter()
            .map(|w| format!("{:?}", word_text(w).trim_start()))
            .collect();
        let trimmed: Vec<&str> = meta
            .merges
            .iter()
            .map(|w| word_text(w).trim_start())
            .collect();
        let hint = match did_you_mean(wanted.trim_start(), trimmed.iter().copied()) {
            Some(near) => format!("{near} The words of the prompt: {}", words.join(", ")),
            None => format!("the words of the prompt: {}", words.join(", ")),
        };
        FigureError::at(
            "word",
            format!("the prompt \"{}\" has no word {wanted:?}", prompt.name),
        )
        .with_hint(hint)
    })
}

/// Every state of the word, from its bytes to its tokens; `None` if a merge is out of place.
fn replay(word: &WordMerges) -> Option<Vec<Row>> {
    let mut parts: Vec<Range<usize>> = (0..word.bytes.len()).map(|i| i..i + 1).collect();
    let mut rows = vec![Row {
        parts: parts.clone(),
        merged: None,
    }];
    for merge in &word.merges {
        let right = parts.get(merge.at + 1)?.end;
        let left = parts.get(merge.at)?.start;
        parts[merge.at] = left..right;
        parts.remove(merge.at + 1);
        rows.push(Row {
            parts: parts.clone(),
            merged: Some((merge.at, merge.rank)),
        });
    }
    Some(rows)
}

/// The ids the word ends as: its bytes' ids with every merge applied.
fn final_ids(word: &WordMerges) -> Vec<u32> {
    let mut ids = word.bytes.clone();
    for merge in &word.merges {
        if merge.at + 1 < ids.len() {
            ids.splice(merge.at..merge.at + 2, [merge.id]);
        }
    }
    ids
}

/// A part's text as drawn: its bytes as text, or in hex when they are not whole characters.
fn part_text(bytes: &[u8]) -> Shown {
    match std::str::from_utf8(bytes) {
        Ok(text) => Shown::fit(text, f64::INFINITY, Font::Mono, TEXT_SIZE),
        Err(_) => Shown::plain(
            bytes
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

fn box_width(shown: &Shown) -> f64 {
    (text_width(&shown.text(), Font::Mono, TEXT_SIZE) + 2.0 * PAD)
        .max(12.0)
        .ceil()
}

/// The rows of boxes, the step and rank columns, the tokens' ids and the notes; returns
/// them with the figure's width and height.
fn draw(bytes: &[u8], rows: &[Row], ids: &[u32]) -> (Vec<Element>, f64, f64) {
    let width = figure_width(bytes, rows);
    let rank_x = width - 2.0;
    let mut boxes = Element::new("g").class("tbf-box");
    let mut made = Element::new("g").class("tbf-tok");
    let mut texts = Element::new("g")
        .class("tbf-m")
        .attr("font-size", TEXT_SIZE)
        .attr("text-anchor", "middle");
    let mut steps = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    let mut ranks = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    let last = rows.len() - 1;
    for (r, row) in rows.iter().enumerate() {
        let y = TOP + r as f64 * PITCH;
        let mut x = STEP_WIDTH;
        for (i, part) in row.parts.iter().enumerate() {
            let shown = part_text(&bytes[part.clone()]);
            let w = box_width(&shown);
            let is_new = row.merged.is_some_and(|(at, _)| at == i);
            let class = if is_new { "tbf-c0" } else { "" };
            let target = if is_new { &mut made } else { &mut boxes };
            target.push(rect(class, x, y, w, BOX_HEIGHT).attr("rx", 3.0));
            texts.push(shown.append_to(text(x + w / 2.0, y + 14.5)));
            x += w + GAP;
        }
        let step = if r == 0 {
            "bytes".to_string()
        } else {
            r.to_string()
        };
        steps.push(text(STEP_WIDTH - 6.0, y + 14.0).text(step));
        if let Some((_, rank)) = row.merged {
            ranks.push(text(rank_x, y + 14.0).text(thousands(rank as usize)));
        }
    }
    let mut body = vec![heads(rank_x), boxes, made, texts, steps, ranks];
    let bottom = TOP + rows.len() as f64 * PITCH;
    let (labels, lines) = token_ids(bytes, &rows[last], ids, bottom - PITCH + BOX_HEIGHT + 14.0);
    body.push(labels);
    let bottom = bottom + (lines - 1) as f64 * ID_PITCH;
    let (note, last) = wrapped_note(&notes(bytes, rows, ids), 0.0, bottom + 24.0, width, 15.0);
    body.push(note);
    (body, width, last + 15.0)
}

/// The figure's width: the usual one, or wider when the widest row of boxes needs it.
fn figure_width(bytes: &[u8], rows: &[Row]) -> f64 {
    let widest = rows
        .iter()
        .map(|row| {
            row.parts
                .iter()
                .map(|p| box_width(&part_text(&bytes[p.clone()])) + GAP)
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    WIDTH.max((STEP_WIDTH + widest + 8.0 + RANK_WIDTH).ceil())
}

/// The titles of the step and rank columns.
fn heads(rank_x: f64) -> Element {
    Element::new("g")
        .class("tbf-s tbf-dim")
        .child(
            text(STEP_WIDTH - 6.0, 12.0)
                .attr("text-anchor", "end")
                .text("step"),
        )
        .child(text(rank_x, 12.0).attr("text-anchor", "end").text("rank"))
}

/// The vocabulary id under each box of the last row, the tokens the model receives, from
/// the baseline `y`; with the number of lines they take. Each is centred under its box, as
/// "id N" on one line while they clear each other. Where tokens are narrower than their
/// ids, only the first says "id" and an id that would touch the one before it goes down to
/// the first line where it clears the last id there (see [`stagger`]).
fn token_ids(bytes: &[u8], row: &Row, ids: &[u32], y: f64) -> (Element, usize) {
    let mut group = Element::new("g")
        .class("tbf-s tbf-b")
        .attr("text-anchor", "middle");
    let mut x = STEP_WIDTH;
    let mut centres = Vec::new();
    for part in &row.parts {
        let w = box_width(&part_text(&bytes[part.clone()]));
        centres.push(x + w / 2.0);
        x += w + GAP;
    }
    let place = |labels: &[String]| {
        let spans: Vec<(f64, f64)> = centres
            .iter()
            .zip(labels)
            .map(|(&c, l)| (c, wide_width(l, Font::Sans, 12.0)))
            .collect();
        stagger(&spans)
    };
    let mut labels: Vec<String> = ids.iter().map(|id| format!("id {id}")).collect();
    let mut lines = place(&labels);
    if lines.iter().any(|&line| line > 0) {
        labels = ids.iter().map(|id| id.to_string()).collect();
        if let (Some(first), Some(id)) = (labels.first_mut(), ids.first()) {
            *first = format!("id {id}");
        }
        lines = place(&labels);
    }
    for ((centre, label), line) in centres.into_iter().zip(labels).zip(&lines) {
        group.push(text(centre, y + *line as f64 * ID_PITCH).text(label));
    }
    (group, lines.iter().max().map_or(1, |l| l + 1))
}

/// The line (0 the first) of each of a row of labels, `(centre, width)` from left to right:
/// the first line on which it clears the last label put there by [`ID_GAP`].
fn stagger(labels: &[(f64, f64)]) -> Vec<usize> {
    // The right end of the last label on each line so far.
    let mut ends: Vec<f64> = Vec::new();
    labels
        .iter()
        .map(|&(centre, width)| {
            let left = centre - width / 2.0;
            let line = ends
                .iter()
                .position(|&end| end + ID_GAP <= left)
                .unwrap_or(ends.len());
            if line == ends.len() {
                ends.push(0.0);
            }
            ends[line] = centre + width / 2.0;
            line
        })
        .collect()
}

/// What the rows mean, in this word's numbers.
fn notes(bytes: &[u8], rows: &[Row], ids: &[u32]) -> String {
    let mut text = format!(
        "{} bytes → {} merges → {} token{}; each step joins the neighbours whose rule ranks \
         lowest (was learned first); the new part is coloured.",
        bytes.len(),
        rows.len() - 1,
        ids.len(),
        if ids.len() == 1 { "" } else { "s" }
    );
    if bytes.contains(&b' ') {
        text.push_str(&format!(
            " {SPACE} is a space, part of the word's first token."
        ));
    }
    text
}

fn describe(bytes: &[u8], rows: &[Row], ids: &[u32]) -> String {
    let word = String::from_utf8_lossy(bytes);
    let Some(last) = rows.last() else {
        return format!("No merges for {word:?}.");
    };
    let tokens: Vec<String> = last
        .parts
        .iter()
        .zip(ids)
        .map(|(p, id)| format!("{:?} ({id})", String::from_utf8_lossy(&bytes[p.clone()])))
        .collect();
    let steps: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            let (at, rank) = row.merged?;
            let part = &row.parts[at];
            Some(format!(
                "{:?} (rule {})",
                String::from_utf8_lossy(&bytes[part.clone()]),
                thousands(rank as usize)
            ))
        })
        .collect();
    format!(
        "Byte-pair encoding of {word:?}: {} bytes joined by {} merges, each the neighbouring \
         pair whose rule ranks lowest: {}. The result is {} token{}: {}.",
        bytes.len(),
        steps.len(),
        steps.join(", "),
        ids.len(),
        if ids.len() == 1 { "" } else { "s" },
        tokens.join(", ")
    )
}

#[cfg(test)]
#[path = "bpe_tests.rs"]
mod tests;
