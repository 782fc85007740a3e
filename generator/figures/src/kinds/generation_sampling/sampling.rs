//! `figure sampling`: which next tokens survive top-k and top-p (nucleus) sampling, and
//! the probabilities they are then drawn with. As tracebook's sampler (candle's) does it:
//! divide the logits by the temperature and softmax over all V (`logits.last`); sort;
//! keep a token if it is among the top k and the tokens before it hold less than top_p;
//! renormalize the survivors. Temperature 0 is greedy: only the likeliest survives.
//!
//! Options: `prompt`, `caption`, `top_k`, `top_p` (both default to the prompt's own
//! sampling options; with neither anywhere, top_p = 0.9), `temperature` (default the
//! prompt's, else 1), `k` (rows shown, default 10, at most the trace's top_k).
//!
//! On a page with scripts, a temperature slider, a top-k box and a top-p slider start at
//! the figure's rules and redraw the table from numbers embedded at build time (see
//! [`crate::live`]); a figure whose top_k exceeds what a page embeds stays static.

use crate::candidates::{self, Candidate};
use crate::chart::label_column;
use crate::draw::{line, note, rect, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{percent, thousands};
use crate::kinds::strips::WIDTH;
use crate::live::{Live, LiveCache, HEAD};
use crate::options::{capped, Block, Probability, Temperature, TopK, TopKRule};
use crate::relations::{printed, Relation};
use crate::sampler::{sample, Rules};
use crate::svg::{Canvas, Css, Element, Font};
use crate::token_text::Shown;
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::PromptOptions;

pub const KIND: &str = "sampling";

const PITCH: f64 = 22.0;
const TOP: f64 = 80.0;
/// Right edge of the token labels; the bars start just after it.
const LABELS: f64 = 80.0;
/// A bar at probability 1: every bar is to that one scale, so 0.8% never looks like 25%.
const BAR: f64 = 60.0;
/// Right edges of the probability, running total and sampled-with columns.
const NUMBERS: [f64; 3] = [202.0, 290.0, WIDTH - 2.0];

/// The options of `sampling`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    /// The sampling rules drawn; the prompt's own when neither top_k nor top_p is given.
    top_k: Option<TopKRule>,
    top_p: Option<Probability>,
    temperature: Option<Temperature>,
    k: Option<TopK>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption, options) = (block.prompt, block.caption, block.options);
    let n = prompt.tokens()?.len();
    let distribution = candidates::at(&prompt, n - 1)?;
    let logits = distribution.all_logits.clone().unwrap_or_default();
    let vocab = logits.len();
    let rules = rules(&options, &prompt.trace.meta.prompt.options, vocab)?;
    let k = capped(options.k, 10, distribution.candidates.len())?;
    // Every token, sorted, so survivors beyond the stored candidates are counted too.
    let mut sampled = sample(&logits, rules);
    in_stored_order(&mut sampled.sorted, &distribution.candidates);
    let (survivors, mass) = (sampled.survivors, sampled.mass);
    let shown: Vec<(u32, f64)> = sampled.sorted[..k].to_vec();
    let texts: Vec<String> = shown
        .iter()
        .map(|(id, _)| {
            let texts = &prompt.trace.meta.token_texts;
            texts.get(id).cloned().unwrap_or_default()
        })
        .collect();
    let mut body = vec![
        super::after_line(&prompt.trace.meta.prompt.text, WIDTH, 14.0),
        text(0.0, 31.0)
            .class("tbf-s tbf-b")
            .attr("data-tb-rules", 0)
            .text(rules.describe()),
    ];
    body.extend(table_rows(&shown, &texts, survivors, mass));
    let bottom = TOP + k as f64 * PITCH;
    let notes = notes(survivors, vocab, mass, k);
    for (i, line_text) in notes.iter().enumerate() {
        body.push(
            note(line_text.clone(), 0.0, bottom + 18.0 + i as f64 * 15.0).attr("data-tb-note", i),
        );
    }
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: bottom + 26.0 + notes.len() as f64 * 15.0,
        title: format!("Sampling: which tokens survive ({})", rules.describe()),
        desc: describe(&rules, &texts, &shown, survivors, mass),
        css: Css::default(),
    };
    let figure = Figure::new(canvas, body, caption, &prompt)
        .with_relations(relations(&shown, survivors, mass));
    Ok(match live_json(&logits, rules, k, traces.live_cache()) {
        Some(json) => figure.with_live(json),
        None => figure,
    })
}

/// Ties in the sampler's order put in the trace's order of its stored candidates, as every
/// other figure ranks them (`candidates`): the stored logits are rounded, so two tokens can
/// share one (" him" and " her" after "The robots will bring"), while the stored ranking
/// (`logits.topk_ids`) is the model's own. Tied tokens have equal probabilities, so the
/// survivors and their mass stay as they were.
fn in_stored_order(sorted: &mut [(u32, f64)], stored: &[Candidate]) {
    let Some(last) = stored.len().checked_sub(1).filter(|&l| l < sorted.len()) else {
        return;
    };
    let mut end = last + 1;
    while end < sorted.len() && sorted[end].1 == sorted[last].1 {
        end += 1;
    }
    let rank = |id: u32| stored.iter().position(|c| c.id == id).unwrap_or(usize::MAX);
    sorted[..end].sort_by(|a, b| {
        (b.1.total_cmp(&a.1))
            .then(rank(a.0).cmp(&rank(b.0)))
            .then(a.0.cmp(&b.0))
    });
}

/// What a reader can check: the probabilities fall from the top; each running total is the
/// one before plus the row's probability; a survivor is sampled with its probability over
/// the survivors' share; and where every survivor is shown, the last running total is that
/// share and what they are sampled with makes 100%.
fn relations(shown: &[(u32, f64)], survivors: usize, mass: f64) -> Vec<Relation> {
    let probs: Vec<String> = shown.iter().map(|&(_, p)| percent(p)).collect();
    let totals: Vec<String> = (shown.iter())
        .scan(0.0, |before, &(_, p)| {
            *before += p;
            Some(percent(*before))
        })
        .collect();
    let kept = survivors.min(shown.len());
    let drawn: Vec<String> = shown[..kept]
        .iter()
        .map(|&(_, p)| percent(p / mass))
        .collect();
    let share = percent(mass);
    let mut out = vec![Relation::Order {
        values: probs.clone(),
        descending: true,
    }];
    out.push(Relation::Same {
        a: probs[0].clone(),
        b: totals[0].clone(),
    });
    for (pair, p) in totals.windows(2).zip(&probs[1..]) {
        out.push(Relation::Sum {
            terms: vec![pair[0].clone(), p.clone()],
            total: pair[1].clone(),
        });
    }
    for (p, d) in probs.iter().zip(&drawn) {
        out.push(Relation::Product {
            factors: vec![d.clone(), share.clone()],
            result: p.clone(),
        });
    }
    if survivors <= shown.len() {
        out.push(Relation::Same {
            a: totals[kept - 1].clone(),
            b: share,
        });
        out.push(Relation::Whole { parts: drawn });
    }
    out.retain(|r| r.texts().iter().all(|t| printed(t).is_some()));
    out
}

/// The rules drawn: the options' top_k and top_p if either is given, else the prompt's own
/// (`own`), else top_p = 0.9; the options' temperature, else the prompt's, else 1.
fn rules(options: &Opts, own: &PromptOptions, vocab: usize) -> Result<Rules, FigureError> {
    let given = options.top_k.is_some() || options.top_p.is_some();
    let top_k = match options.top_k {
        Some(rule) => Some(capped(Some(rule), vocab, vocab)?),
        None => None,
    };
    let top_p = options.top_p.map(|p| p.0);
    let (top_k, top_p) = match (given, own.top_k, own.top_p) {
        (true, _, _) => (top_k, top_p),
        (false, None, None) => (None, Some(0.9)),
        (false, k, p) => (k, p),
    };
    let temperature = options
        .temperature
        .map_or(own.temperature.unwrap_or(1.0), |t| t.0);
    Ok(Rules {
        temperature,
        top_k,
        top_p,
    })
}

/// The lines under the table: how many survive, then how many of them are not shown.
fn notes(survivors: usize, vocab: usize, mass: f64, k: usize) -> Vec<String> {
    let mut notes = vec![format!(
        "{} of {} tokens survive, holding {} of the probability",
        thousands(survivors),
        thousands(vocab),
        percent(mass)
    )];
    // The second line is always there (empty when all survivors show) for the controls.
    notes.push(if survivors > k {
        format!("{} more survivors are not shown", thousands(survivors - k))
    } else {
        String::new()
    });
    notes
}

/// The controls' numbers, starting at the figure's own rules; `None` when its top_k is
/// past what a page embeds.
fn live_json(
    logits: &[f32],
    rules: Rules,
    rows: usize,
    cache: Option<&LiveCache>,
) -> Option<String> {
    if rules.top_k.is_some_and(|k| k > HEAD) || logits.is_empty() {
        return None;
    }
    let live = Live::new(
        logits,
        &[rules.temperature],
        &rules.top_p.into_iter().collect::<Vec<_>>(),
        cache,
    );
    let p = rules.top_p.map_or(-1, |p| live.top_p_stop(p) as i64);
    Some(format!(
        "{{\"kind\":\"{KIND}\",\"rows\":{rows},\"t\":{},\"k\":{},\"p\":{p},\"top\":{TOP},\"pitch\":{PITCH},\"room\":{BAR},{}}}",
        live.temp_stop(rules.temperature),
        rules.top_k.unwrap_or(0),
        live.json_fields()
    ))
}

/// Header, then per row: label, probability bar, running total, sampling probability.
fn table_rows(shown: &[(u32, f64)], texts: &[String], survivors: usize, mass: f64) -> Vec<Element> {
    let labels: Vec<Shown> = texts
        .iter()
        .map(|t| Shown::fit(t, LABELS - 6.0, Font::Mono, 12.0))
        .collect();
    let (mut kept_bars, mut cut_bars) = (
        Element::new("g").class("tbf-bar").attr("data-tb-g", "kept"),
        Element::new("g").class("tbf-mute").attr("data-tb-g", "cut"),
    );
    let mut numbers = Element::new("g").class("tbf-s").attr("text-anchor", "end");
    let mut before = 0.0;
    for (r, (_, p)) in shown.iter().enumerate() {
        let y = TOP + r as f64 * PITCH;
        let survives = r < survivors;
        let bar =
            rect("", LABELS + 6.0, y + 4.0, (p * BAR).max(0.5), PITCH - 8.0).attr("data-tb-bar", r);
        if survives {
            kept_bars.push(bar);
        } else {
            cut_bars.push(bar);
        }
        before += p;
        for cell in row_numbers(r, *p, before, survives.then_some(mass)) {
            numbers.push(cell);
        }
    }
    vec![
        column_heads(),
        label_column(&labels, LABELS, TOP + 3.0, PITCH, 12.0),
        cut_bars,
        kept_bars,
        numbers,
        cut_line(survivors, shown.len()),
    ]
}

/// The titles over the number columns.
fn column_heads() -> Element {
    let mut heads = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    for (x, words) in NUMBERS.iter().zip([
        ["", "probability"],
        ["running", "total"],
        ["sampled", "with"],
    ]) {
        if !words[0].is_empty() {
            heads.push(text(*x, TOP - 24.0).text(words[0]));
        }
        heads.push(text(*x, TOP - 10.0).text(words[1]));
    }
    heads
}

/// Row `r`'s probability `p`, the running total `before` (up to and with it), and the
/// probability it is sampled with: renormalized over the survivors' `mass`, or "cut".
fn row_numbers(r: usize, p: f64, before: f64, mass: Option<f64>) -> [Element; 3] {
    let y = TOP + r as f64 * PITCH;
    let sampled = match mass {
        Some(mass) => percent(p / mass),
        None => "cut".to_string(),
    };
    let cell = text(NUMBERS[2], y + 15.0)
        .attr("data-tb-pct", r)
        .text(sampled);
    [
        text(NUMBERS[0], y + 15.0)
            .attr("data-tb-p", r)
            .text(percent(p)),
        text(NUMBERS[1], y + 15.0)
            .attr("data-tb-cum", r)
            .text(percent(before)),
        if mass.is_some() {
            cell.class("tbf-b")
        } else {
            cell.class("tbf-dim")
        },
    ]
}

/// The line between the survivors and the cut tokens; always drawn, hidden when nothing
/// shown is cut, so the page's controls can move it.
fn cut_line(survivors: usize, shown: usize) -> Element {
    let y = TOP + survivors.min(shown) as f64 * PITCH;
    let cut = line("tbf-ax", 0.0, y, WIDTH, y).attr("data-tb-cut", 0);
    if survivors < shown {
        cut
    } else {
        cut.attr("visibility", "hidden")
    }
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
