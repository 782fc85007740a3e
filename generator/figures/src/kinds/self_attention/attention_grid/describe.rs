//! The alt text of `attention-grid`: what the tiles show, how many heads have the shapes
//! people look for (resting on the first token, looking at the previous one), and, for one
//! layer, where the last token looks in each head.

use super::{Grid, Stack, View};
use tracebook_trace::Token;

/// Where each head's last query looks, and how many heads have the familiar shapes; for an
/// encoder-decoder, which stack the heads are in and what it masks.
pub(super) fn describe(view: &View<'_>, grid: &Grid) -> String {
    let heads = grid.heads();
    let mut out = format!(
        "Attention patterns of {} heads ({} layer{} × {heads} heads){} over {}.",
        grid.layers.len() * heads,
        grid.layers.len(),
        if grid.layers.len() == 1 { "" } else { "s" },
        view.stack
            .map_or(String::new(), |s| format!(" of the {}", s.word())),
        if grid.gap() {
            format!("the first and the last {} tokens", grid.shown.len() - 1)
        } else {
            format!("the last {} tokens", grid.shown.len())
        }
    );
    let (first, previous) = shapes(grid);
    out.push_str(&format!(
        " {first} put most of their weight on the first token, {previous} on the previous token."
    ));
    out.push_str(match view.stack {
        None => "",
        Some(Stack::Encoder) => {
            " Nothing is masked: every source token attends to every other, before and after it."
        }
        Some(Stack::Decoder) => {
            " Each position attends to itself and the ones before it: the decoder's start \
             token, then what it wrote."
        }
    });
    if grid.layers.len() == 1 {
        out.push_str(&last_looks(view.tokens, grid));
    }
    out
}

/// How many heads put more than half their weight, on average over the queries shown, on
/// the first token, and how many on the previous one.
fn shapes(grid: &Grid) -> (usize, usize) {
    let (mut first, mut previous) = (0, 0);
    for pattern in &grid.patterns {
        for head in 0..grid.heads() {
            let queries: Vec<usize> = grid.shown.iter().copied().filter(|&q| q > 0).collect();
            let mean = |key: &dyn Fn(usize) -> usize| {
                let total: f64 = queries
                    .iter()
                    .map(|&q| pattern.at(&[head, q, key(q)]))
                    .sum();
                total / queries.len().max(1) as f64
            };
            first += usize::from(mean(&|_| 0) > 0.5);
            previous += usize::from(mean(&|q| q - 1) > 0.5);
        }
    }
    (first, previous)
}

/// Where the last token looks most in each head of the one layer, as a sentence.
fn last_looks(tokens: &[Token], grid: &Grid) -> String {
    let last = grid.shown[grid.shown.len() - 1];
    let pattern = &grid.patterns[0];
    let looks: Vec<String> = (0..grid.heads())
        .map(|h| {
            let k = grid
                .shown
                .iter()
                .copied()
                .max_by(|&a, &b| {
                    pattern
                        .at(&[h, last, a])
                        .total_cmp(&pattern.at(&[h, last, b]))
                })
                .unwrap_or(last);
            format!(
                "head {h} to {:?} ({:.2})",
                tokens[k].text,
                pattern.at(&[h, last, k])
            )
        })
        .collect();
    format!(
        " The last token, {:?}, attends most: {}.",
        tokens[last].text,
        looks.join(", ")
    )
}
