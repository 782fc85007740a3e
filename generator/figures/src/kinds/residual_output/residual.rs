//! `figure residual`: the residual stream through the model. A heatmap of its length
//! ‖x‖ per token (rows) after the embeddings and after each layer (columns; rows for a
//! model too deep for legible columns), on a log
//! scale since GPT-2's first token grows far longer than the rest; then, for one token,
//! what each layer adds: the lengths of its attention output (`attn_out`) and its MLP
//! output (`mlp_out`) as paired bars. Where the columns are wide enough, each cell prints
//! its length as well.
//!
//! Options: `prompt`, `caption`, `token` (the token whose contributions are drawn,
//! default -1), `tokens` (rows of the heatmap: the last ones, default 12, at most 16),
//! `pickers` (default false; true draws the contributions of every row's token too, hidden,
//! for the page's token picker; without scripts the page shows `token`'s).

use crate::draw::{note, rect, text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::short;
use crate::heatmap::{self, Cell, Grid};
use crate::kinds::strips::{window, WIDTH};
use crate::options::{Block, Int, Layer, TokenKey};
use crate::panels::{self, Panel};
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::shared::{self, Domain, SharedScale};
use crate::strip::norm;
use crate::svg::{Canvas, Element, Font, Ramp};
use crate::token_text::{fitted, visible, Shown};
use crate::Traces;
use serde::Deserialize;
use std::ops::Range;

pub const KIND: &str = "residual";

const PITCH: f64 = 22.0;
/// The narrowest heatmap column whose label stays legible (12-unit text, upright).
const LEGIBLE_CELL: f64 = 14.0;

/// Lengths read from the trace.
struct Lengths {
    /// `[token][stage]`: stage 0 is the input to block 0, stage L + 1 the output of block L.
    stream: Vec<Vec<f64>>,
    /// `[layer]` for the chosen token.
    attn: Vec<f64>,
    mlp: Vec<f64>,
}

/// How lengths map to colours: a log scale over `range`, and the legend's line when the
/// scale is shared with other figures.
struct LogScale {
    range: (f64, f64),
    shared: Option<String>,
}

/// The options of `residual`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    #[serde(default)]
    token: TokenKey,
    #[serde(default)]
    tokens: Int<1, 16, 12>,
    #[serde(default)]
    pickers: bool,
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let t = block.token(block.options.token)?.0;
    let (prompt, caption) = (block.prompt, block.caption);
    let n = prompt.tokens()?.len();
    let shown = window(n, block.options.tokens.get());
    let lengths = read(&prompt, t)?;
    let ramp = Ramp::unit();
    let range_own = range(&lengths.stream, &shown);
    let scale = LogScale {
        range: shared::log_range(shared, range_own),
        shared: shared::note(shared),
    };
    let (mut body, bottom) = stream_heatmap(&prompt, &lengths, &shown, &scale, &ramp);
    let bars_top = bottom + 28.0;
    let own = adds_of(&prompt, t, &lengths, bars_top);
    let (height, live) = if block.options.pickers {
        let (panels, shown_at, height) = token_panels(&prompt, t, &shown, own, bars_top)?;
        let labels = |_: &str, i: usize| {
            let text = &prompt.trace.meta.tokens.get(i)?.text;
            Some(format!("{i}: {}", visible(text)))
        };
        let live = panels::json_labelled(&panels, shown_at, &labels);
        body.extend(panels::stack(panels, shown_at));
        (height, Some(live))
    } else {
        body.extend(own.0);
        (own.1, None)
    };
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: "The residual stream, layer by layer".to_string(),
        desc: describe(&prompt, t, &lengths, &shown),
        css: ramp.css(),
    };
    let domain = Domain::Log {
        lo: range_own.0,
        hi: range_own.1,
    };
    let figure = Figure::new(canvas, body, caption, &prompt)
        .with_relations(relations(&lengths, scale.range));
    let figure = match live {
        Some(json) => figure.with_live(json),
        None => figure,
    };
    Ok((figure, domain))
}

/// A panel of what each layer adds for every shown token (and `t`, if it is not shown),
/// `t`'s being `own` (its body and height); with the index of `t`'s panel and the height
/// of the tallest.
fn token_panels(
    prompt: &Prompt<'_>,
    t: usize,
    shown: &std::ops::Range<usize>,
    own: (Vec<Element>, f64),
    bars_top: f64,
) -> Result<(Vec<Panel>, usize, f64), FigureError> {
    let mut panels = Vec::new();
    let mut shown_at = 0;
    let mut height = own.1;
    let mut own = Some(own.0);
    for i in shown.clone().chain((!shown.contains(&t)).then_some(t)) {
        let body = if i == t {
            shown_at = panels.len();
            own.take().unwrap_or_default()
        } else {
            let (attn, mlp) = adds(prompt, i)?;
            let other = Lengths {
                stream: Vec::new(),
                attn,
                mlp,
            };
            let (body, h) = adds_of(prompt, i, &other, bars_top);
            height = height.max(h);
            body
        };
        panels.push(Panel {
            key: vec![("token", i)],
            body,
        });
    }
    Ok((panels, shown_at, height))
}

/// The line naming token `t` and the bars of what each layer adds to it, from `bars_top`;
/// with the bottom of those.
fn adds_of(prompt: &Prompt<'_>, t: usize, lengths: &Lengths, bars_top: f64) -> (Vec<Element>, f64) {
    let token = &prompt.trace.meta.tokens[t].text;
    let line = format!(
        "what each layer adds to {} (token {t}): length of",
        visible(token)
    );
    let mut body = vec![fitted(
        text(0.0, bars_top - 10.0).class("tbf-s"),
        &line,
        WIDTH,
        Font::Sans,
        12.0,
    )];
    let height = contributions(lengths, bars_top, &mut body);
    (body, height)
}

/// The lengths of what each layer's attention and MLP add to token `t`.
fn adds(prompt: &Prompt<'_>, t: usize) -> Result<(Vec<f64>, Vec<f64>), FigureError> {
    let d = prompt.config().n_embd;
    let (mut attn, mut mlp) = (Vec::new(), Vec::new());
    for l in 0..prompt.config().n_layer {
        attn.push(norm(&prompt.block(Layer(l), "attn_out", d)?.row(&[t])));
        mlp.push(norm(&prompt.block(Layer(l), "mlp_out", d)?.row(&[t])));
    }
    Ok((attn, mlp))
}

/// The heatmap of the stream's lengths, tokens down and stages across, coloured on a log
/// scale from `lo` to `hi`, with its legend and the line saying the scale is shared if it
/// is; and the bottom of those.
fn stream_heatmap(
    prompt: &Prompt<'_>,
    lengths: &Lengths,
    shown: &Range<usize>,
    scale: &LogScale,
    ramp: &Ramp,
) -> (Vec<Element>, f64) {
    let (lo, hi) = scale.range;
    let bin = |v: f64| ramp.bin_of_unit((v / lo).ln() / (hi / lo).ln().max(1e-9));
    let tokens: Vec<Shown> = shown
        .clone()
        .map(|i| Shown::fit(&prompt.trace.meta.tokens[i].text, 90.0, Font::Mono, 12.0))
        .collect();
    let mut stages = vec![Shown::plain("emb")];
    stages.extend((0..prompt.config().n_layer).map(|l| Shown::plain(l.to_string())));
    // Stages across while each column keeps a legible label; a deep model (GPT-2 medium and
    // up) turns the grid, stages down, so no label shrinks below LEGIBLE_CELL.
    let across = (WIDTH - 100.0) / stages.len() as f64 >= LEGIBLE_CELL;
    // Each cell prints its length too (colour alone is read only roughly) where the columns
    // leave a cell room for its number at full size.
    let columns = if across { stages.len() } else { shown.len() };
    let numbered = (WIDTH - 100.0) / columns as f64 >= heatmap::MIN_VALUE_CELL;
    let cell = |i: usize, stage: usize| {
        let v = lengths.stream[i][stage];
        Cell::Value {
            bin: bin(v),
            label: numbered.then(|| cell_length(v)),
        }
    };
    let (rows, cols, cells, corner): (&[Shown], &[Shown], Vec<Cell>, _) = if across {
        let cells = shown
            .clone()
            .flat_map(|i| (0..stages.len()).map(move |s| (i, s)))
            .map(|(i, s)| cell(i, s))
            .collect();
        (&tokens, &stages, cells, ("token ↓", "after →"))
    } else {
        let cells = (0..stages.len())
            .flat_map(|s| shown.clone().map(move |i| (i, s)))
            .map(|(i, s)| cell(i, s))
            .collect();
        (&stages, &tokens, cells, ("after ↓", "token →"))
    };
    let grid = Grid {
        rows,
        cols,
        cells: &cells,
        ramp,
        corner,
        tokens: None,
    };
    let placed = heatmap::draw(&grid, WIDTH, 0.0);
    let mut body = placed.elements;
    let (legend, bottom) = legend(scale, ramp, placed.left, placed.bottom + 10.0);
    body.extend(legend);
    (body, bottom)
}

/// A length as a heatmap cell prints it, in at most three characters where it can:
/// "41", "4.9", "0.6".
fn cell_length(v: f64) -> String {
    if v >= 9.95 {
        crate::format::thousands(v.round() as usize)
    } else {
        format!("{v:.1}")
    }
}

/// The log scale's legend from `left`, `top`, and the line saying it is shared, if it is;
/// with the bottom.
fn legend(scale: &LogScale, ramp: &Ramp, left: f64, top: f64) -> (Vec<Element>, f64) {
    let (lo, hi) = scale.range;
    let ticks: Vec<(f64, String)> = [0.0, 0.5, 1.0]
        .iter()
        .map(|&at| (at, short(lo * (hi / lo).powf(at))))
        .collect();
    let title = "length ‖x‖ (log scale)";
    let mut body = vec![heatmap::legend(ramp, title, &ticks, None, left, top)];
    let mut bottom = top + heatmap::LEGEND_HEIGHT;
    if let Some(line) = &scale.shared {
        let (note, last) = wrapped_note(line, left, bottom + 8.0, WIDTH, 15.0);
        body.push(note);
        bottom = last + 8.0;
    }
    (body, bottom)
}

fn read(prompt: &Prompt<'_>, t: usize) -> Result<Lengths, FigureError> {
    let config = prompt.config();
    let (n, d) = (prompt.tokens()?.len(), config.n_embd);
    let mut stages = vec![prompt.block(Layer(0), "resid_pre", d)?];
    let (mut attn, mut mlp) = (Vec::new(), Vec::new());
    for l in 0..config.n_layer {
        stages.push(prompt.block(Layer(l), "resid_post", d)?);
        attn.push(norm(&prompt.block(Layer(l), "attn_out", d)?.row(&[t])));
        mlp.push(norm(&prompt.block(Layer(l), "mlp_out", d)?.row(&[t])));
    }
    let stream = (0..n)
        .map(|i| stages.iter().map(|s| norm(&s.row(&[i]))).collect())
        .collect();
    Ok(Lengths { stream, attn, mlp })
}

/// What a reader can check: the legend's lengths rise from left to right, and each length
/// the drawn token's bars print is not negative.
fn relations(lengths: &Lengths, (lo, hi): (f64, f64)) -> Vec<Relation> {
    let ticks = [0.0, 0.5, 1.0].map(|at| short(lo * (hi / lo).powf(at)));
    let mut out = vec![Relation::Order {
        values: ticks.to_vec(),
        descending: false,
    }];
    out.extend(
        lengths
            .attn
            .iter()
            .chain(&lengths.mlp)
            .map(|&v| Relation::Bound {
                value: short(v),
                low: 0.0,
                high: f64::INFINITY,
                why: "a length",
            }),
    );
    out
}

/// The smallest and largest length on show, kept apart so a log scale is defined.
fn range(stream: &[Vec<f64>], shown: &Range<usize>) -> (f64, f64) {
    let values = shown.clone().flat_map(|i| stream[i].iter().copied());
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let lo = lo.max(1e-6);
    (lo, hi.max(lo * 1.01))
}

/// Per layer, a bar for the attention output's length over one for the MLP output's.
fn contributions(lengths: &Lengths, top: f64, body: &mut Vec<Element>) -> f64 {
    let full = lengths
        .attn
        .iter()
        .chain(&lengths.mlp)
        .fold(1e-9, |m: f64, &v| m.max(v));
    let (x, room) = (34.0, WIDTH - 34.0 - 96.0);
    let mut labels = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    let mut attn = Element::new("g").class("tbf-c0");
    let mut mlp = Element::new("g").class("tbf-c1");
    let mut values = Element::new("g").class("tbf-s");
    for (l, (a, m)) in lengths.attn.iter().zip(&lengths.mlp).enumerate() {
        let y = top + l as f64 * PITCH;
        labels.push(text(x - 6.0, y + 14.0).text(format!("L{l}")));
        attn.push(rect("", x, y + 2.0, (a / full * room).max(0.5), 8.0));
        mlp.push(rect("", x, y + 11.0, (m / full * room).max(0.5), 8.0));
        let end = x + a.max(*m) / full * room + 6.0;
        values.push(text(end, y + 15.0).text(format!("{} · {}", short(*a), short(*m))));
    }
    body.extend([labels, attn, mlp, values]);
    let bottom = top + lengths.attn.len() as f64 * PITCH + 8.0;
    body.push(rect("tbf-c0", x, bottom - 1.0, 10.0, 8.0));
    body.push(note("attention output", x + 14.0, bottom + 7.0));
    body.push(rect("tbf-c1", x + 130.0, bottom - 1.0, 10.0, 8.0));
    body.push(note("MLP output", x + 144.0, bottom + 7.0));
    bottom + 16.0
}

fn describe(prompt: &Prompt<'_>, t: usize, lengths: &Lengths, shown: &Range<usize>) -> String {
    let tokens = &prompt.trace.meta.tokens;
    let stream = &lengths.stream[t];
    let mut out = format!(
        "The length of the residual stream for each of the last {} tokens, after the \
         embeddings and after each of the {} layers. For {:?} (token {t}) it goes from {} to {}.",
        shown.len(),
        lengths.attn.len(),
        tokens[t].text,
        short(stream[0]),
        short(stream[stream.len() - 1])
    );
    let end = stream.len() - 1;
    let longest = shown
        .clone()
        .max_by(|&a, &b| lengths.stream[a][end].total_cmp(&lengths.stream[b][end]));
    if let Some(i) = longest.filter(|&i| i != t) {
        out.push_str(&format!(
            " The longest at the end is {:?} (token {i}) at {}.",
            tokens[i].text,
            short(lengths.stream[i][end])
        ));
    }
    let biggest = |v: &[f64]| {
        v.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(l, x)| (l, *x))
    };
    if let (Some((la, a)), Some((lm, m))) = (biggest(&lengths.attn), biggest(&lengths.mlp)) {
        out.push_str(&format!(
            " Each layer adds its attention output and its MLP output; for {:?} the largest \
             attention output comes from layer {la} (length {}), the largest MLP output from \
             layer {lm} (length {}).",
            tokens[t].text,
            short(a),
            short(m)
        ));
    }
    out
}

#[cfg(test)]
#[path = "residual_tests.rs"]
mod tests;
