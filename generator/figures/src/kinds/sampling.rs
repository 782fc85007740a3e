//! `figure sampling`: which next tokens survive top-k and top-p (nucleus) sampling, and
//! the probabilities they are then drawn with. As tracebook's sampler (candle's) does it:
//! divide the logits by the temperature and softmax over all V (`logits.last`); sort;
//! keep a token if it is among the top k and the tokens before it hold less than top_p;
//! renormalize the survivors. Temperature 0 is greedy: only the likeliest survives.
//!
//! Options: `prompt`, `caption`, `top_k`, `top_p` (both default to the prompt's own
//! sampling options; with neither anywhere, top_p = 0.9), `temperature` (default the
//! prompt's, else 1), `k` (rows shown, default 10, at most the trace's top_k).

use super::strips::WIDTH;
use super::temperature::column;
use crate::candidates;
use crate::chart::label_column;
use crate::draw::{line, note, rect, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{percent, thousands};
use crate::options::Options;
use crate::svg::{Canvas, Css, Element, Font};
use crate::token_text::{one_line, Shown};
use crate::Traces;

pub const KIND: &str = "sampling";

const PITCH: f64 = 22.0;
const TOP: f64 = 66.0;

/// The sampler's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    pub temperature: f64,
    pub top_k: Option<usize>,
    pub top_p: Option<f64>,
}

impl Rules {
    /// Whether the token at rank `rank` (0 = likeliest), with `before` the probability
    /// the tokens ranked above it hold, survives.
    pub fn keeps(&self, rank: usize, before: f64) -> bool {
        if self.temperature == 0.0 {
            return rank == 0;
        }
        self.top_k.is_none_or(|k| rank < k) && self.top_p.is_none_or(|p| rank == 0 || before < p)
    }

    fn describe(&self) -> String {
        let mut parts = vec![format!("temperature {}", self.temperature)];
        if let Some(k) = self.top_k {
            parts.push(format!("top_k {k}"));
        }
        if let Some(p) = self.top_p {
            parts.push(format!("top_p {p}"));
        }
        parts.join(", ")
    }
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let options = Options::new(KIND, table, &["top_k", "top_p", "temperature", "k"])?;
    let prompt = options.prompt(traces)?;
    let caption = options.caption()?;
    let own = &prompt.trace.meta.prompt.options;
    let n = prompt.tokens()?.len();
    let distribution = candidates::at(&prompt, n - 1)?;
    let logits = distribution.all_logits.clone().unwrap_or_default();
    let vocab = logits.len();
    let stored = distribution.candidates.len();
    let given = table.contains_key("top_k") || table.contains_key("top_p");
    let top_k = options
        .optional_integer("top_k", 1..=vocab as i64)?
        .map(|k| k as usize);
    let top_p = options.optional_float("top_p", 1e-9..=1.0)?;
    let (top_k, top_p) = match (given, own.top_k, own.top_p) {
        (true, _, _) => (top_k, top_p),
        (false, None, None) => (None, Some(0.9)),
        (false, k, p) => (k, p),
    };
    let temperature = options.float("temperature", own.temperature.unwrap_or(1.0), 0.0..=10.0)?;
    let rules = Rules {
        temperature,
        top_k,
        top_p,
    };
    let k = options.integer("k", stored.min(10) as i64, 1..=stored as i64)? as usize;
    // Every token, sorted, so survivors beyond the stored candidates are counted too.
    let all_ids: Vec<u32> = (0..vocab as u32).collect();
    let mut probs: Vec<(u32, f64)> = all_ids
        .iter()
        .copied()
        .zip(column(&logits, &all_ids, temperature).probs)
        .collect();
    probs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut before = 0.0;
    let mut kept = Vec::new();
    for (rank, &(_, p)) in probs.iter().enumerate() {
        if !rules.keeps(rank, before) {
            break;
        }
        kept.push(p);
        before += p;
    }
    let mass: f64 = kept.iter().sum();
    let shown: Vec<(u32, f64)> = probs[..k].to_vec();
    let texts: Vec<String> = shown
        .iter()
        .map(|(id, _)| {
            prompt
                .trace
                .meta
                .token_texts
                .get(id)
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let context = format!(
        "next token after “{}”",
        one_line(&prompt.trace.meta.prompt.text)
    );
    let mut body = vec![
        text(0.0, 14.0).class("tbf-s").text(context),
        text(0.0, 31.0).class("tbf-s tbf-b").text(rules.describe()),
    ];
    body.extend(table_rows(&shown, &texts, kept.len(), mass));
    let bottom = TOP + k as f64 * PITCH;
    let mut notes = vec![format!(
        "{} of {} tokens survive, holding {} of the probability",
        thousands(kept.len()),
        thousands(vocab),
        percent(mass)
    )];
    if kept.len() > k {
        notes.push(format!(
            "{} more survivors are not shown",
            thousands(kept.len() - k)
        ));
    }
    for (i, line_text) in notes.iter().enumerate() {
        body.push(note(
            line_text.clone(),
            0.0,
            bottom + 18.0 + i as f64 * 15.0,
        ));
    }
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: bottom + 26.0 + notes.len() as f64 * 15.0,
        title: format!("Sampling: which tokens survive ({})", rules.describe()),
        desc: describe(&rules, &texts, &shown, kept.len(), mass),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, &prompt))
}

/// Header, then per row: label, probability bar, running total, sampling probability.
fn table_rows(shown: &[(u32, f64)], texts: &[String], survivors: usize, mass: f64) -> Vec<Element> {
    let labels: Vec<Shown> = texts
        .iter()
        .map(|t| Shown::fit(t, 90.0, Font::Mono, 12.0))
        .collect();
    let mut heads = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    heads.push(text(220.0, TOP - 10.0).text("probability"));
    heads.push(text(330.0, TOP - 10.0).text("running total"));
    heads.push(text(WIDTH, TOP - 10.0).text("sampled with"));
    let full = shown.first().map_or(1.0, |s| s.1).max(1e-12);
    let (mut kept_bars, mut cut_bars) = (
        Element::new("g").class("tbf-bar"),
        Element::new("g").class("tbf-mute"),
    );
    let mut numbers = Element::new("g").class("tbf-s").attr("text-anchor", "end");
    let mut before = 0.0;
    for (r, (_, p)) in shown.iter().enumerate() {
        let y = TOP + r as f64 * PITCH;
        let survives = r < survivors;
        let bar = rect("", 100.0, y + 4.0, (p / full * 70.0).max(0.5), PITCH - 8.0);
        if survives {
            kept_bars.push(bar);
        } else {
            cut_bars.push(bar);
        }
        before += p;
        numbers.push(text(220.0, y + 15.0).text(percent(*p)));
        numbers.push(text(330.0, y + 15.0).text(percent(before)));
        let sampled = if survives {
            percent(p / mass)
        } else {
            "cut".to_string()
        };
        let cell = text(WIDTH, y + 15.0).text(sampled);
        numbers.push(if survives {
            cell.class("tbf-b")
        } else {
            cell.class("tbf-dim")
        });
    }
    let mut out = vec![
        heads,
        label_column(&labels, 94.0, TOP + 3.0, PITCH, 12.0),
        cut_bars,
        kept_bars,
        numbers,
    ];
    if survivors < shown.len() {
        let y = TOP + survivors as f64 * PITCH;
        out.push(line("tbf-ax", 0.0, y, WIDTH, y));
    }
    out
}

fn describe(
    rules: &Rules,
    texts: &[String],
    shown: &[(u32, f64)],
    survivors: usize,
    mass: f64,
) -> String {
    let kept: Vec<String> = texts
        .iter()
        .zip(shown)
        .take(survivors.min(shown.len()))
        .map(|(t, (_, p))| format!("{t:?} {}", percent(p / mass)))
        .collect();
    format!(
        "Sampling the next token with {}: sorted by probability, a token survives if it is \
         among the top k and the tokens before it hold less than top_p; the survivors are \
         renormalized. {} token{} survive, holding {} of the probability; sampled with: {}{}.",
        rules.describe(),
        thousands(survivors),
        if survivors == 1 { "" } else { "s" },
        percent(mass),
        kept.join(", "),
        if survivors > shown.len() {
            ", and more"
        } else {
            ""
        }
    )
}

#[cfg(test)]
#[path = "sampling_tests.rs"]
mod tests;
