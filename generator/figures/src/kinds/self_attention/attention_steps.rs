//! `figure attention-steps`: the classic worked example of attention for one query token,
//! as a table with the trace's numbers. One row per key the query may look at: q·k, the
//! score q·k/√dh (`attn.scores`), its softmax weight (`attn.pattern`), and weight × value
//! for the first dimensions of v (`attn.v`); the last row sums them, giving the head's
//! output z (`attn.z`).
//!
//! Options: `prompt`, `caption`, `layer`, `head` (both required), `token` (the query,
//! default -1), `dims` (value dimensions shown, default 2, at most 3). Queries with more
//! than 12 keys show the 11 weightiest keys and one row for the rest.
//!
//! An encoder-decoder's trace (Marian, BART) needs `stack`, as `attention` does (see
//! `attention::stack`): "encoder" works a source token's query over every source token (no
//! mask; the encoder's layers and heads), "decoder" a decoder position's over the positions
//! up to it (`token` counts the positions the decoder read, `<pad>` first).

use super::attention::stack::{Stack, View};
use crate::draw::{line, note, rect, text};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::signed;
use crate::options::{capped, Block, Dims, Head, HeadKey, Layer, LayerKey, TokenKey};
use crate::prompt::Prompt;
use crate::relations::{printed, Func, Relation};
use crate::svg::{Canvas, Css, Element, Font};
use crate::token_text::{fitted, visible, Shown};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::Token;

pub const KIND: &str = "attention-steps";

const WIDTH: f64 = crate::svg::FIGURE_WIDTH;
const MAX_ROWS: usize = 12;
const PITCH: f64 = 20.0;
const TOP: f64 = 58.0;

/// One row of the table: a key (or the keys left out), and its numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The key's position; `None` for a row of several keys.
    pub key: Option<usize>,
    pub label: Shown,
    pub score: f64,
    pub weight: f64,
    /// weight × v, first dimensions.
    pub weighted: Vec<f64>,
}

/// The query's rows, the √dh they share, and the traced z to compare the sum with.
#[derive(Debug, Clone)]
pub struct Worked {
    pub steps: Vec<Step>,
    pub root_dh: f64,
    pub z: Vec<f64>,
}

/// The options of `attention-steps`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    head: Option<HeadKey>,
    /// The query.
    #[serde(default)]
    token: TokenKey,
    dims: Option<Dims>,
    stack: Option<Stack>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let view = View::of(&block.prompt, block.options.stack, KIND)?;
    let keys = (block.options.layer, block.options.head);
    let (layer, head) = view.layer_head(&block, KIND, keys)?;
    let t = view.token(&block, block.options.token)?;
    let (prompt, caption) = (block.prompt, block.caption);
    let dh = prompt.config().n_embd / view.n_head.max(1);
    let dims = capped(block.options.dims, 2, 3.min(dh))?;
    let worked = work(&prompt, &view, (layer, head), t, dims)?;
    let query = visible(&view.tokens[t].text);
    // "layer 1", or with a stack "encoder layer 1".
    let words = view.layer_words(layer).to_lowercase();
    let headline = format!(
        "query {query} (token {t}) · {words}, head {} · dₕ = {dh}, √dₕ = {}",
        head.0,
        signed(worked.root_dh, 2)
    );
    let mut body = vec![fitted(
        text(0.0, 14.0).class("tbf-s"),
        &headline,
        WIDTH,
        Font::Sans,
        12.0,
    )];
    let compact = prompt.trace.encoding(&view.tensor(layer, "pattern"))
        == Some(tracebook_trace::Encoding::Unorm8);
    let table = Table::of(&worked, dims);
    let height = table_rows(&worked, &table, compact, &mut body);
    let mut relations = vec![Relation::Function {
        f: Func::Sqrt,
        input: dh.to_string(),
        output: signed(worked.root_dh, 2),
    }];
    // The weights are the softmax of the printed scores only where the model's mask is the
    // causal one (the trace derives the pattern so); a sliding window's or an encoder's is not.
    let plain_softmax = prompt
        .trace
        .derivation(&view.tensor(layer, "pattern"))
        .is_some_and(|d| d.op == tracebook_trace::DeriveOp::CausalSoftmax);
    // The columns add up to the traced z where the trace derives z from these weights.
    let z_derived = prompt
        .trace
        .derivation(&view.tensor(layer, "z"))
        .is_some_and(|d| d.op == tracebook_trace::DeriveOp::Matmul);
    let derived = Derived {
        softmax: plain_softmax,
        z: z_derived,
    };
    relations.extend(table.relations(&signed(worked.root_dh, 2), derived));
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!("Attention step by step: {words}, head {}", head.0),
        desc: describe(view.tokens, (&words, head), t, &worked),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations))
}

/// Reads the query's scores, weights and values in `view`'s stack, and folds the lightest
/// keys when there are too many rows.
fn work(
    prompt: &Prompt<'_>,
    view: &View<'_>,
    (layer, head): (Layer, Head),
    t: usize,
    dims: usize,
) -> Result<Worked, FigureError> {
    let n = view.tokens.len();
    if n == 0 {
        return Err(prompt.broken(format!("the trace of \"{}\" has no tokens", prompt.name)));
    }
    let shape = [view.n_head, n, n];
    let scores = prompt
        .shaped(&view.tensor(layer, "scores"), &shape)?
        .row(&[head.0, t]);
    let weights = prompt
        .shaped(&view.tensor(layer, "pattern"), &shape)?
        .row(&[head.0, t]);
    let v = view.heads(prompt, layer, "v")?;
    let z = view.heads(prompt, layer, "z")?.row(&[head.0, t]);
    let root_dh = (v.shape[2] as f64).sqrt();
    let step = |k: usize| Step {
        key: Some(k),
        label: Shown::fit(&view.tokens[k].text, 64.0, Font::Mono, 12.0),
        score: scores[k],
        weight: weights[k],
        weighted: v.row(&[view.kv_head(prompt, head), k])[..dims]
            .iter()
            .map(|x| x * weights[k])
            .collect(),
    };
    // The keys the query may look at: those up to it, or with nothing masked every one.
    let open = if view.causal() { t + 1 } else { n };
    let mut keys: Vec<usize> = (0..open).collect();
    if keys.len() > MAX_ROWS {
        keys.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]).then(a.cmp(&b)));
        keys.truncate(MAX_ROWS - 1);
        keys.sort_unstable();
    }
    let mut steps: Vec<Step> = keys.iter().map(|&k| step(k)).collect();
    let rest: Vec<usize> = (0..open).filter(|k| !keys.contains(k)).collect();
    if !rest.is_empty() {
        let folded: Vec<Step> = rest.iter().map(|&k| step(k)).collect();
        steps.push(Step {
            key: None,
            // Not a token: short enough for the key column at any count up to 999.
            label: Shown::plain(format!("{} more", rest.len())),
            score: 0.0,
            weight: folded.iter().map(|s| s.weight).sum(),
            weighted: (0..dims)
                .map(|i| folded.iter().map(|s| s.weighted[i]).sum())
                .collect(),
        });
    }
    Ok(Worked { steps, root_dh, z })
}

/// The numbers the table prints, each written once: a row per step, then the sums, each the
/// sum of its column as printed (so a reader re-adding the column gets the printed total).
struct Table {
    rows: Vec<PrintedRow>,
    /// The weights' sum, then each value column's.
    sums: Vec<String>,
    /// The traced z of the first dimensions, as the note prints them.
    traced: Vec<String>,
}

/// One row as printed: q·k and the score (none for the folded keys), the weight, and
/// weight × value per dimension.
struct PrintedRow {
    scores: Option<(String, String)>,
    weight: String,
    weighted: Vec<String>,
}

impl Table {
    fn of(worked: &Worked, dims: usize) -> Table {
        let rows: Vec<PrintedRow> = worked
            .steps
            .iter()
            .map(|step| PrintedRow {
                scores: step.key.map(|_| {
                    (
                        signed(step.score * worked.root_dh, 2),
                        signed(step.score, 2),
                    )
                }),
                weight: format!("{:.3}", step.weight),
                weighted: step.weighted.iter().map(|v| signed(*v, 3)).collect(),
            })
            .collect();
        let weights: Vec<&str> = rows.iter().map(|r| r.weight.as_str()).collect();
        let mut sums = vec![printed_sum(&weights)];
        for i in 0..dims {
            let column: Vec<&str> = rows.iter().map(|r| r.weighted[i].as_str()).collect();
            sums.push(printed_sum(&column));
        }
        let traced = worked.z[..dims].iter().map(|v| signed(*v, 3)).collect();
        Table { rows, sums, traced }
    }

    /// What a reader can check: q·k ÷ √dₕ = score, the softmax of the scores (when every key
    /// has its row and the mask is the causal one), each weight a probability, and every column adding up to its sum and,
    /// within the terms' rounding, to the traced z.
    fn relations(&self, root: &str, derived: Derived) -> Vec<Relation> {
        let mut out = Vec::new();
        let mut logits = Vec::new();
        for row in &self.rows {
            if let Some((qk, score)) = &row.scores {
                out.push(Relation::Product {
                    factors: vec![score.clone(), root.to_string()],
                    result: qk.clone(),
                });
                logits.push(score.clone());
            }
            out.push(Relation::Bound {
                value: row.weight.clone(),
                low: 0.0,
                high: 1.0,
                why: "an attention weight",
            });
        }
        let weights: Vec<String> = self.rows.iter().map(|r| r.weight.clone()).collect();
        if derived.softmax && logits.len() == weights.len() {
            out.push(Relation::Softmax {
                logits,
                probs: weights.clone(),
            });
        }
        out.push(Relation::Sum {
            terms: weights,
            total: self.sums[0].clone(),
        });
        for (i, total) in self.sums[1..].iter().enumerate() {
            let terms: Vec<String> = self.rows.iter().map(|r| r.weighted[i].clone()).collect();
            out.push(Relation::Sum {
                terms: terms.clone(),
                total: total.clone(),
            });
            if derived.z {
                out.push(Relation::Sum {
                    terms,
                    total: self.traced[i].clone(),
                });
            }
        }
        out
    }
}

/// Which of the figure's tensors the trace derives, so that relations through them hold.
#[derive(Clone, Copy)]
struct Derived {
    /// The weights are the causal softmax of the scores.
    softmax: bool,
    /// z is the weights times the values.
    z: bool,
}

/// The sum of numbers printed with three decimals, printed the same way.
fn printed_sum(texts: &[&str]) -> String {
    let thousandths: i64 = texts
        .iter()
        .filter_map(|t| printed(t))
        .map(|p| (p.value * 1000.0).round() as i64)
        .sum();
    signed(thousandths as f64 / 1000.0, 3)
}

/// Column headers, the rows, and the sum; returns the height used.
fn table_rows(worked: &Worked, table: &Table, compact: bool, body: &mut Vec<Element>) -> f64 {
    let columns = Columns {
        dims: table.traced.len(),
    };
    body.extend(columns.heads());
    body.extend(step_rows(worked, table, &columns));
    let sum_y = TOP + worked.steps.len() as f64 * PITCH;
    body.extend(sum_row(table, &columns, sum_y));
    // The sums add the rounded terms, so they may differ from the traced z in the last digit.
    let sign = if table.sums[1..] == table.traced[..] {
        "="
    } else {
        "≈"
    };
    body.push(note(
        format!(
            "sum {sign} this head's output z (traced: {})",
            table.traced.join(", ")
        ),
        0.0,
        sum_y + 40.0,
    ));
    if compact {
        body.push(note(
            "a compact trace stores each weight to within ±0.002",
            0.0,
            sum_y + 56.0,
        ));
        return sum_y + 66.0;
    }
    sum_y + 50.0
}

/// Where the table's columns go: the key, then q·k, score and weight right-aligned, the
/// weight bars, and `dims` columns of weight × value.
struct Columns {
    dims: usize,
}

impl Columns {
    /// Right edge of the keys.
    const KEY: f64 = 70.0;
    /// Right edges of the q·k, score and weight columns.
    const NUMBERS: [f64; 3] = [122.0, 172.0, 226.0];
    const BAR_X: f64 = 230.0;
    /// The bar of a weight of 1.
    const BAR_WIDTH: f64 = 20.0;
    const VALUES_LEFT: f64 = 254.0;

    /// Right edge of value column `i`.
    fn value_x(&self, i: usize) -> f64 {
        Self::VALUES_LEFT + (i as f64 + 1.0) * (WIDTH - Self::VALUES_LEFT) / self.dims as f64
    }

    /// The column titles, the formulas under them, and a rule under both.
    fn heads(&self) -> [Element; 3] {
        let mut heads = Element::new("g")
            .class("tbf-s tbf-dim")
            .attr("text-anchor", "end");
        heads.push(text(Self::KEY, 36.0).text("key"));
        for (x, title, formula) in [
            (Self::NUMBERS[0], "q·k", ""),
            (Self::NUMBERS[1], "score", "q·k ÷ √dₕ"),
            (Self::NUMBERS[2], "weight", "softmax"),
        ] {
            heads.push(text(x, 36.0).text(title));
            heads.push(text(x, 49.0).text(formula));
        }
        for i in 0..self.dims {
            heads.push(text(self.value_x(i), 36.0).text(format!("× v[{i}]")));
        }
        let values = text((Self::VALUES_LEFT + WIDTH) / 2.0 + 8.0, 49.0)
            .class("tbf-s tbf-dim")
            .attr("text-anchor", "middle")
            .text("weight × value");
        [
            heads,
            values,
            line("tbf-grid", 0.0, TOP - 4.0, WIDTH, TOP - 4.0),
        ]
    }
}

/// A row per step: its weight bar, its key, and its numbers, the weightiest key's in bold.
fn step_rows(worked: &Worked, table: &Table, columns: &Columns) -> [Element; 3] {
    let top_weight = worked.steps.iter().map(|s| s.weight).fold(0.0, f64::max);
    let mut bars = Element::new("g").class("tbf-bar2");
    let mut labels = Element::new("g").class("tbf-m").attr("text-anchor", "end");
    let mut numbers = Element::new("g").class("tbf-s").attr("text-anchor", "end");
    for (r, (step, printed)) in worked.steps.iter().zip(&table.rows).enumerate() {
        let y = TOP + r as f64 * PITCH;
        let baseline = y + 14.0;
        bars.push(rect(
            "",
            Columns::BAR_X,
            y + 4.0,
            Columns::BAR_WIDTH * step.weight,
            PITCH - 8.0,
        ));
        labels.push(step.label.append_to(text(Columns::KEY, baseline)));
        let strong = step.weight == top_weight && step.key.is_some();
        let mut row = Element::new("g");
        if strong {
            row = row.class("tbf-b");
        }
        let [qk, score, weight] = Columns::NUMBERS;
        if let Some((qk_text, score_text)) = &printed.scores {
            row.push(text(qk, baseline).text(qk_text.clone()));
            row.push(text(score, baseline).text(score_text.clone()));
        }
        row.push(text(weight, baseline).text(printed.weight.clone()));
        for (i, value) in printed.weighted.iter().enumerate() {
            row.push(text(columns.value_x(i), baseline).text(value.clone()));
        }
        numbers.push(row);
    }
    [bars, labels, numbers]
}

/// A rule, then the sums of the weights and of each value column, at `sum_y`.
fn sum_row(table: &Table, columns: &Columns, sum_y: f64) -> [Element; 2] {
    let mut sums = Element::new("g")
        .class("tbf-s tbf-b")
        .attr("text-anchor", "end");
    sums.push(text(Columns::KEY, sum_y + 17.0).text("sum"));
    sums.push(text(Columns::NUMBERS[2], sum_y + 17.0).text(table.sums[0].clone()));
    for i in 0..columns.dims {
        sums.push(text(columns.value_x(i), sum_y + 17.0).text(table.sums[i + 1].clone()));
    }
    [line("tbf-ax", 0.0, sum_y + 2.0, WIDTH, sum_y + 2.0), sums]
}

/// The alt text: the query among `tokens`, in `words` ("layer 1"), `head`.
fn describe(tokens: &[Token], (words, head): (&str, Head), t: usize, worked: &Worked) -> String {
    let quote = |text: &str| format!("{text:?}");
    let mut out = format!(
        "Attention step by step for the query {} (token {t}) in {words}, head {}: each key's \
         q·k is divided by √dₕ = {} to give its score, a softmax turns the scores into \
         weights that sum to 1, and the head's output is the weighted sum of the keys' values.",
        quote(&tokens[t].text),
        head.0,
        signed(worked.root_dh, 2)
    );
    let top = worked
        .steps
        .iter()
        .filter_map(|s| s.key.map(|k| (s, k)))
        .max_by(|a, b| a.0.weight.total_cmp(&b.0.weight));
    if let Some((top, k)) = top {
        out.push_str(&format!(
            " The most weight, {:.3}, goes to {} (token {k}, score {}).",
            top.weight,
            quote(&tokens[k].text),
            signed(top.score, 2)
        ));
    }
    out
}

#[cfg(test)]
#[path = "attention_steps_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "attention_steps_stack_tests.rs"]
mod stack_tests;
