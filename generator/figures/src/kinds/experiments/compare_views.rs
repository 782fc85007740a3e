//! The measures `figure compare` can put side by side: next-token probabilities after
//! each prompt, and the per-token surprise of each; as rows of A's value, B's value and
//! the change.

use crate::candidates;
use crate::error::FigureError;
use crate::format::{percent, short, signed};
use crate::kinds::strips::window;
use crate::prompt::Prompt;
use crate::svg::Font;
use crate::token_text::{one_line, visible, Shown};

/// The two prompts compared: A (`prompt`) and B (`other`).
pub struct Pair<'t> {
    pub a: Prompt<'t>,
    pub b: Prompt<'t>,
}

impl Pair<'_> {
    /// The two models as readers see them, when the prompts were traced with different ones
    /// (one text on two models); `None` when one model made both.
    pub fn models(&self) -> Option<[String; 2]> {
        let (a, b) = (
            self.a.trace.meta.model.shown(),
            self.b.trace.meta.model.shown(),
        );
        (a != b).then_some([a, b])
    }

    /// What the figure calls prompt A and B: their texts; when the models differ, each model's
    /// name before its text ("tracebook-tiny-en: I like cats and"), or the names alone for one
    /// text on two models (the title gives the text).
    pub fn labels(&self) -> [String; 2] {
        let texts = [&self.a, &self.b].map(|p| one_line(&p.trace.meta.prompt.text));
        match self.models() {
            Some(models) if texts[0] == texts[1] => models,
            Some(models) => [0, 1].map(|i| format!("{}: {}", models[i], texts[i])),
            None => texts,
        }
    }
}

/// Most rows of the loss view: the last positions both prompts have.
const MAX_LOSS_ROWS: usize = 16;

/// One row: what it is about, A's value and B's.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub label: Shown,
    /// The raw text of the row's token (A's, for the loss view).
    pub text: String,
    pub a: f64,
    pub b: f64,
    /// Values are probabilities (else nats).
    pub probability: bool,
}

impl Row {
    pub fn format(&self, value: f64) -> String {
        if self.probability {
            percent(value)
        } else {
            short(value)
        }
    }

    /// B − A: percentage points for probabilities, nats for losses.
    pub fn change(&self, _loss: bool) -> String {
        let delta = self.b - self.a;
        let text = if self.probability {
            signed(delta * 100.0, 1)
        } else {
            signed(delta, 2)
        };
        if delta > 0.0 && !text.trim_start_matches(['0', '.']).is_empty() {
            format!("+{text}")
        } else {
            text
        }
    }
}

/// The union of each prompt's `k` (default 5) likeliest next tokens, with both
/// probabilities.
pub fn next_token_rows(pair: &Pair<'_>, k: Option<usize>) -> Result<Vec<Row>, FigureError> {
    let a = last(&pair.a)?;
    let b = last(&pair.b)?;
    let stored = a.candidates.len().min(b.candidates.len());
    let k = k.unwrap_or(5.min(stored));
    if k > stored {
        return Err(
            FigureError::at("k", format!("k = {k} is out of range")).with_hint(format!(
                "k must be between 1 and {stored}: the traces keep the top {stored} candidates"
            )),
        );
    }
    let mut ids: Vec<(u32, String)> = Vec::new();
    for c in a.candidates[..k].iter().chain(&b.candidates[..k]) {
        if !ids.iter().any(|(id, _)| *id == c.id) {
            ids.push((c.id, c.text.clone()));
        }
    }
    let prob = |d: &candidates::Distribution, id: u32| d.prob_of(id);
    let mut rows: Vec<Row> = ids
        .into_iter()
        .map(|(id, text)| Row {
            label: Shown::fit(&text, 96.0, Font::Mono, 12.0),
            a: prob(&a, id),
            b: prob(&b, id),
            text,
            probability: true,
        })
        .collect();
    rows.sort_by(|x, y| y.a.max(y.b).total_cmp(&x.a.max(x.b)));
    Ok(rows)
}

/// The candidates after the last token, where the trace keeps every logit.
fn last(prompt: &Prompt<'_>) -> Result<candidates::Distribution, FigureError> {
    let n = prompt.tokens()?.len();
    candidates::at(prompt, n - 1)
}

/// Surprise per position, over the positions both prompts have (their last 16).
pub fn loss_rows(pair: &Pair<'_>) -> Result<Vec<Row>, FigureError> {
    let (a, b) = (
        candidates::surprise(&pair.a)?,
        candidates::surprise(&pair.b)?,
    );
    let common = a.len().min(b.len());
    if common == 0 {
        return Err(FigureError::new(
            "one of the prompts has a single token, so no losses to compare",
        )
        .with_hint("compare prompts of at least two tokens"));
    }
    let text = |p: &Prompt<'_>, i: usize| p.trace.meta.tokens[i + 1].text.clone();
    Ok(window(common, MAX_LOSS_ROWS)
        .map(|i| {
            let (ta, tb) = (text(&pair.a, i), text(&pair.b, i));
            let label = if ta == tb {
                Shown::fit(&ta, 96.0, Font::Mono, 12.0)
            } else {
                let both = format!("{}/{}", visible(&ta), visible(&tb));
                Shown::fit(&both, 96.0, Font::Mono, 12.0)
            };
            Row {
                label,
                text: ta,
                a: a[i],
                b: b[i],
                probability: false,
            }
        })
        .collect())
}

/// The alt text: the headline numbers and the largest change.
pub fn describe(pair: &Pair<'_>, rows: &[Row], loss: bool) -> String {
    let [a, b] = match pair.models() {
        Some([ma, mb]) => [
            format!("{:?} on {ma}", pair.a.trace.meta.prompt.text),
            format!("{:?} on {mb}", pair.b.trace.meta.prompt.text),
        ],
        None => [&pair.a, &pair.b].map(|p| format!("{:?}", p.trace.meta.prompt.text)),
    };
    let biggest = rows
        .iter()
        .max_by(|x, y| (x.b - x.a).abs().total_cmp(&(y.b - y.a).abs()));
    let mut out = if loss {
        let mean = |f: fn(&Row) -> f64| rows.iter().map(f).sum::<f64>() / rows.len().max(1) as f64;
        format!(
            "Surprise per token for A, {a}, and B, {b}, position by position: mean {} nats for \
             A and {} for B over {} positions.",
            short(mean(|r| r.a)),
            short(mean(|r| r.b)),
            rows.len()
        )
    } else {
        let top = |pick: fn(&Row) -> f64| rows.iter().max_by(|x, y| pick(x).total_cmp(&pick(y)));
        let (ta, tb) = (top(|r| r.a), top(|r| r.b));
        format!(
            "Next-token probabilities after A, {a}, and B, {b}. After A the likeliest is {:?} \
             ({}); after B, {:?} ({}).",
            ta.map_or("", |r| r.text.as_str()),
            percent(ta.map_or(0.0, |r| r.a)),
            tb.map_or("", |r| r.text.as_str()),
            percent(tb.map_or(0.0, |r| r.b))
        )
    };
    if let Some(row) = biggest {
        out.push_str(&format!(
            " The largest change is {:?}: {} for A, {} for B.",
            row.text,
            row.format(row.a),
            row.format(row.b)
        ));
    }
    out
}
