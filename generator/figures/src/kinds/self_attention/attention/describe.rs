//! The alt text of `figure attention`: what the stage shows, where the last token looks,
//! and (for the pattern) the strongest other link.

use super::matrix::Matrix;
use super::scale::Scale;
use super::Stage;
use crate::format::{signed, weight};
use crate::options::Head;
use tracebook_trace::Token;

/// The alt text of `head` of the layer `layer` names ("Layer 1", "Encoder layer 1"), over
/// the `tokens` on show.
pub(super) fn describe(
    matrix: &Matrix,
    scale: &Scale,
    layer: &str,
    head: Head,
    tokens: &[Token],
) -> String {
    let quote = |i: usize| format!("{:?}", tokens[i - matrix.first].text);
    let mut out = format!(
        "{layer}, head {}, over {} tokens. {}",
        head.0,
        tokens.len(),
        what(scale, matrix.causal)
    );
    let last = matrix.n - 1;
    if let Some(k) = matrix.top_key(last) {
        let verb = if scale.stage == Stage::Pattern {
            "attends most to"
        } else {
            "scores highest with"
        };
        let value = scale.label(matrix.at(last, k));
        out.push_str(&format!(
            " The last token, {}, {verb} {} ({value}).",
            quote(last),
            quote(k)
        ));
    }
    if scale.stage == Stage::Pattern {
        if let Some((q, k)) = strongest_other_link(matrix) {
            let value = weight(matrix.at(q, k));
            out.push_str(&format!(
                " The strongest other link is {} to {} ({value}).",
                quote(q),
                quote(k)
            ));
        }
    }
    out
}

/// The (query, key) with the highest weight among the queries' top keys, leaving out the
/// last row (described on its own) and, when causal, the first (it attends only to itself).
fn strongest_other_link(matrix: &Matrix) -> Option<(usize, usize)> {
    let last = matrix.n - 1;
    matrix
        .shown()
        .skip(usize::from(matrix.causal))
        .filter(|&q| q != last)
        .filter_map(|q| matrix.top_key(q).map(|k| (q, k)))
        .max_by(|a, b| matrix.at(a.0, a.1).total_cmp(&matrix.at(b.0, b.1)))
}

/// What the stage shows, in a sentence; `causal` unless an encoder's, which masks nothing.
fn what(scale: &Scale, causal: bool) -> String {
    if !causal {
        return match scale.stage {
            Stage::Pattern => "Attention pattern: each row is a source token (the query) and how \
                               it divides its attention, summing to 1, among every source token, \
                               before and after it."
                .to_string(),
            _ => format!(
                "Attention scores q·k/√dₕ, every one used (the encoder masks nothing), from {} \
                 to {}.",
                signed(-scale.limit, 2),
                signed(scale.limit, 2)
            ),
        };
    }
    match scale.stage {
        Stage::Pattern => "Attention pattern: each row is a token (the query) and how it divides \
                           its attention, summing to 1, among itself and the tokens before it."
            .to_string(),
        Stage::Scores => format!(
            "Attention scores q·k/√dₕ before the causal mask, from {} to {}.",
            signed(-scale.limit, 2),
            signed(scale.limit, 2)
        ),
        Stage::Masked => {
            "Attention scores q·k/√dₕ after the causal mask: each token (row) keeps \
                          its scores for itself and earlier tokens, and later tokens are set to −∞."
                .to_string()
        }
    }
}
