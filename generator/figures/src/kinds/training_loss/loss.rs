//! `figure loss`: how surprised the model was by each token of the prompt: −ln p of the
//! token that actually came next, given the ones before it (in nats, from the candidates'
//! exact logits where that token is among them, else `loss.per_token`),
//! one bar per token, with p beside it and the mean (the cross-entropy training
//! minimises) as a line. The first token has no loss: nothing comes before it.
//!
//! Options: `prompt`, `caption`, `tokens` (rows shown, the last ones, default 16, at
//! most 32).

use crate::chart::{ticks, token_label_column};
use crate::draw::{line, note, rect, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{percent, short, signed};
use crate::heatmap::token_key;
use crate::kinds::strips::{window, WIDTH};
use crate::options::{Block, Int};
use crate::relations::{printed, Func, Relation};
use crate::svg::{text_width, Canvas, Css, Element, Font};
use crate::token_text::{fitted, visible, Shown};
use crate::Traces;
use serde::Deserialize;
use std::ops::Range;
use tracebook_trace::Token;

pub const KIND: &str = "loss";

const PITCH: f64 = 20.0;
const TOP: f64 = 40.0;
const BAR_X: f64 = 100.0;
/// A full-length bar, leaving room after it for its label ("12.34 · 0.02%") in a wide font.
const ROOM: f64 = WIDTH - BAR_X - 100.0;

/// The options of `loss`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    tokens: Int<1, 32, 16>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let tokens = prompt.tokens()?;
    let n = tokens.len();
    if n < 2 {
        return Err(FigureError::at(
            "prompt",
            format!(
                "the prompt \"{}\" has one token: nothing predicts it",
                prompt.name
            ),
        )
        .with_hint("use a prompt of at least two tokens"));
    }
    let losses = crate::candidates::surprise(&prompt)?;
    let chart = Chart::of(&losses, window(n - 1, block.options.tokens.get()));
    let mut body = vec![note(
        "token · surprise −ln p (nats) · p, given the tokens before it",
        0.0,
        12.0,
    )];
    body.push(chart.token_labels(tokens, &prompt.name));
    let pairs: Vec<(String, String)> = (chart.rows.iter())
        .map(|&loss| {
            (
                short(loss),
                percent(crate::candidates::prob_of_surprise(loss)),
            )
        })
        .collect();
    let value_texts: Vec<String> = pairs.iter().map(|(l, p)| format!("{l} · {p}")).collect();
    body.extend(chart.mean_line(&value_texts));
    body.extend(chart.bars(value_texts, &prompt.name));
    body.push(chart.axis());
    let lines = notes(&chart, &losses, tokens);
    for (i, l) in lines.iter().enumerate() {
        let line = text(0.0, chart.bottom() + 36.0 + i as f64 * 15.0).class("tbf-s tbf-dim");
        body.push(fitted(line, l, WIDTH, Font::Sans, 12.0));
    }
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: chart.bottom() + 48.0 + lines.len() as f64 * 15.0,
        title: "Surprise per token".to_string(),
        desc: describe(&prompt.trace.meta.tokens, &losses, chart.mean),
        css: Css::default(),
    };
    let relations = relations(&chart, &pairs, &losses);
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations))
}

/// What a reader can check: each row's surprise is −ln of its p (rows, as printed); the
/// perplexity is e to the mean; with every row shown, the mean lies between the least and
/// the most surprise; and the alt text's most and least surprising tokens, likewise.
fn relations(chart: &Chart<'_>, rows: &[(String, String)], losses: &[f64]) -> Vec<Relation> {
    let surprise = |loss: &str, p: &str| Relation::Function {
        f: Func::NegLn,
        input: p.to_string(),
        output: loss.to_string(),
    };
    let mut out: Vec<Relation> = rows.iter().map(|(l, p)| surprise(l, p)).collect();
    let mean = short(chart.mean);
    out.push(Relation::Function {
        f: Func::Exp,
        input: mean.clone(),
        output: short(chart.mean.exp()),
    });
    let least = losses.iter().copied().fold(f64::INFINITY, f64::min);
    let most = losses.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if chart.rows.len() == losses.len() {
        out.push(Relation::Order {
            values: vec![short(least), mean, short(most)],
            descending: false,
        });
    }
    for loss in [most, least] {
        out.push(surprise(&short(loss), &percent((-loss).exp())));
    }
    out.retain(|r| r.texts().iter().all(|t| printed(t).is_some()));
    out
}

/// The rows on show and the scale of their bars.
struct Chart<'l> {
    /// Positions in the losses: row r is the loss of token `shown.start + r + 1`.
    shown: Range<usize>,
    rows: &'l [f64],
    /// The mean over every token, not only the rows on show.
    mean: f64,
    /// The loss a full-length bar stands for.
    most: f64,
}

impl<'l> Chart<'l> {
    fn of(losses: &'l [f64], shown: Range<usize>) -> Chart<'l> {
        let mean = losses.iter().sum::<f64>() / losses.len() as f64;
        let most = losses.iter().fold(mean, |m, &v| m.max(v)).max(1e-9);
        Chart {
            rows: &losses[shown.clone()],
            shown,
            mean,
            most,
        }
    }

    /// The token of row 0.
    fn first(&self) -> usize {
        self.shown.start + 1
    }

    fn bottom(&self) -> f64 {
        TOP + self.rows.len() as f64 * PITCH
    }

    /// Where a loss of `value` falls on the bars' scale.
    fn x(&self, value: f64) -> f64 {
        BAR_X + value / self.most * ROOM
    }

    /// A bar's length, never quite zero.
    fn length(&self, loss: f64) -> f64 {
        (loss / self.most * ROOM).max(0.5)
    }

    /// Each row's token, highlighting with the token on the page.
    fn token_labels(&self, tokens: &[Token], prompt_name: &str) -> Element {
        let labels: Vec<Shown> = self
            .shown
            .clone()
            .map(|i| Shown::fit(&tokens[i + 1].text, 90.0, Font::Mono, 12.0))
            .collect();
        token_label_column(
            &labels,
            Some((prompt_name, self.first())),
            BAR_X - 6.0,
            TOP + 3.0,
            PITCH,
            12.0,
        )
    }

    /// The mean as a line down the rows, around their value labels, titled above them.
    fn mean_line(&self, value_texts: &[String]) -> Vec<Element> {
        let mean_x = self.x(self.mean);
        let spans: Vec<(f64, f64)> = self
            .rows
            .iter()
            .zip(value_texts)
            .map(|(&loss, label)| {
                let start = BAR_X + self.length(loss) + 5.0;
                (
                    start,
                    start + text_width(label, Font::Sans, 12.0) * LABEL_SLACK,
                )
            })
            .collect();
        let mut out: Vec<Element> = mean_segments(&spans, mean_x)
            .into_iter()
            .map(|(y1, y2)| line("tbf-line", mean_x, y1, mean_x, y2))
            .collect();
        out.push(
            text(mean_x, TOP - 10.0)
                .class("tbf-s tbf-acc")
                .attr("text-anchor", "middle")
                .text(format!("mean {}", short(self.mean))),
        );
        out
    }

    /// A bar per row, each with its value label after it.
    fn bars(&self, value_texts: Vec<String>, prompt_name: &str) -> [Element; 2] {
        let mut bars = Element::new("g").class("tbf-bar2");
        let mut values = Element::new("g").class("tbf-s");
        for (r, (&loss, label)) in self.rows.iter().zip(value_texts).enumerate() {
            let y = TOP + r as f64 * PITCH;
            let length = self.length(loss);
            bars.push(
                rect("", BAR_X, y + 3.0, length, PITCH - 6.0)
                    .attr("data-tb-tok", token_key(prompt_name, self.first() + r)),
            );
            values.push(text(BAR_X + length + 5.0, y + 14.0).text(label));
        }
        [bars, values]
    }

    /// The nats scale under the bars.
    fn axis(&self) -> Element {
        let mut axis = Element::new("g")
            .class("tbf-s tbf-dim")
            .attr("text-anchor", "middle");
        for tick in ticks(0.0, self.most, 4) {
            axis.push(text(self.x(tick), self.bottom() + 16.0).text(signed(tick, 0)));
        }
        axis
    }
}

/// The lines under the chart: the mean and perplexity, then why the first token has no
/// row, or how many rows were left out.
fn notes(chart: &Chart<'_>, losses: &[f64], tokens: &[Token]) -> Vec<String> {
    let mut lines = vec![format!(
        "nats; mean {} over {} tokens = perplexity {}",
        short(chart.mean),
        losses.len(),
        short(chart.mean.exp())
    )];
    if chart.shown.start == 0 {
        lines.push(format!(
            "the first token, {}, has no loss: nothing comes before it",
            visible(&tokens[0].text)
        ));
    } else {
        lines.push(format!(
            "showing the last {} of {} tokens",
            chart.rows.len(),
            tokens.len()
        ));
    }
    lines
}

/// How much wider than the width estimate a value label may render (DejaVu Sans, the usual
/// sans on Linux, runs about a fifth wider).
const LABEL_SLACK: f64 = 1.25;

/// The mean line, from above the first row to below the last, broken at each row whose value
/// label (`spans`, its x extent) it would cross, so it never runs through the numbers.
fn mean_segments(spans: &[(f64, f64)], mean_x: f64) -> Vec<(f64, f64)> {
    let mut segments = Vec::new();
    let mut start = Some(TOP - 6.0);
    for (r, &(from, to)) in spans.iter().enumerate() {
        let y = TOP + r as f64 * PITCH;
        let crosses = from - 3.0 <= mean_x && mean_x <= to + 3.0;
        match (crosses, start) {
            (true, Some(s)) => {
                if y + 2.0 > s {
                    segments.push((s, y + 2.0));
                }
                start = None;
            }
            (false, None) => start = Some(y - 2.0),
            _ => {}
        }
    }
    if let Some(s) = start {
        segments.push((s, TOP + spans.len() as f64 * PITCH + 2.0));
    }
    segments
}

fn describe(tokens: &[Token], losses: &[f64], mean: f64) -> String {
    let by_loss = |a: &(usize, &f64), b: &(usize, &f64)| a.1.total_cmp(b.1);
    let hardest = losses.iter().enumerate().max_by(by_loss);
    let easiest = losses.iter().enumerate().min_by(by_loss);
    let mut out = format!(
        "Surprise per token: −ln p of each actual next token given the tokens before it, in \
         nats. Mean {} nats over {} tokens, a perplexity of {}.",
        short(mean),
        losses.len(),
        short(mean.exp())
    );
    if let (Some((h, hl)), Some((e, el))) = (hardest, easiest) {
        out.push_str(&format!(
            " Most surprising: {:?} ({} nats, p = {}); least: {:?} ({} nats, p = {}).",
            tokens[h + 1].text,
            short(*hl),
            percent((-hl).exp()),
            tokens[e + 1].text,
            short(*el),
            percent((-el).exp())
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::format::{percent, short};
    use crate::testing::test_logits::{lse, position_logits};
    use crate::testing::test_svg::{all_texts, texts_in};
    use crate::testing::test_traces::{options, trace_of, TestTraces};
    use crate::{Figure, FigureError};

    const ROBOTS: [u32; 4] = [10, 11, 12, 13];

    fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
        let traces = TestTraces::with("p", trace_of(ids));
        render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
    }

    /// −ln p of token i + 1 after position i, from the synthetic logits.
    fn loss(i: usize) -> f64 {
        let row = position_logits(i, 4);
        lse(&row) - f64::from(row[ROBOTS[i + 1] as usize])
    }

    #[test]
    fn each_token_after_the_first_gets_its_surprise_and_probability() {
        let figure = draw(&ROBOTS, "").unwrap();
        assert_eq!(
            texts_in(&figure.svg, "tbf-m"),
            ["·robots", "·will", "·bring"]
        );
        let values = texts_in(&figure.svg, "tbf-s");
        let expected: Vec<String> = (0..3)
            .map(|i| format!("{} · {}", short(loss(i)), percent((-loss(i)).exp())))
            .collect();
        assert_eq!(values, expected);
        let mean = (0..3).map(loss).sum::<f64>() / 3.0;
        let texts = all_texts(&figure.svg);
        assert!(texts.contains(&format!("mean {}", short(mean))));
        assert!(texts
            .iter()
            .any(|t| t.contains("the first token, The, has no loss")));
        assert!(
            figure
                .alt
                .contains(&format!("perplexity of {}", short(mean.exp()))),
            "{}",
            figure.alt
        );
    }

    #[test]
    fn long_prompts_show_their_last_tokens_and_one_token_is_an_error() {
        let ids: Vec<u32> = (0..30).collect();
        let figure = draw(&ids, "tokens = 5").unwrap();
        assert_eq!(texts_in(&figure.svg, "tbf-m").len(), 5);
        assert!(all_texts(&figure.svg).contains(&"showing the last 5 of 30 tokens".to_string()));
        assert_eq!(draw(&[10], "").unwrap_err().key.as_deref(), Some("prompt"));
    }

    #[test]
    fn each_row_label_and_bar_names_its_token_for_highlighting() {
        // 30 tokens, the last 5 losses shown: rows are tokens 25 to 29.
        let ids: Vec<u32> = (0..30).collect();
        let figure = draw(&ids, "tokens = 5").unwrap();
        let doc = roxmltree::Document::parse(&figure.svg).unwrap();
        let keys = |name: &str| -> Vec<String> {
            doc.descendants()
                .filter(|n| n.has_tag_name(name))
                .filter_map(|n| n.attribute("data-tb-tok").map(str::to_string))
                .collect()
        };
        let expected: Vec<String> = (25..30).map(|i| format!("p:{i}")).collect();
        assert_eq!(keys("text"), expected);
        assert_eq!(keys("rect"), expected);
    }

    #[test]
    fn the_mean_line_breaks_where_it_would_cross_a_value_label() {
        use super::{mean_segments, PITCH, TOP};
        // Row 1's label spans the mean; rows 0 and 2 end before it.
        let spans = [(110.0, 150.0), (180.0, 260.0), (120.0, 160.0)];
        let segments = mean_segments(&spans, 200.0);
        assert_eq!(
            segments,
            [
                (TOP - 6.0, TOP + PITCH + 2.0),
                (TOP + 2.0 * PITCH - 2.0, TOP + 3.0 * PITCH + 2.0)
            ]
        );
        // No label near the mean: one unbroken line.
        assert_eq!(
            mean_segments(&spans[..1], 200.0),
            [(TOP - 6.0, TOP + PITCH + 2.0)]
        );
        // A crossing in the first row leaves only the stub under the "mean" label.
        assert_eq!(
            mean_segments(&[(190.0, 230.0)], 200.0),
            [(TOP - 6.0, TOP + 2.0)]
        );
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(draw(&ROBOTS, "").unwrap().svg);
    }
}
