//! `figure mlp`: one block's MLP for one token. A diagram with the real sizes (x, d → W_in
//! → 4d neurons → GELU → W_out → d), the distribution of the neurons' values before GELU
//! (`mlp.pre`) under the GELU curve, with the most active neurons marked, and those
//! neurons' activations after GELU (`mlp.post`) as bars.
//!
//! Options: `prompt`, `caption`, `layer` (required), `token` (default -1), `top` (neurons
//! listed, default 8, at most 16).

use crate::chart::{
    bar_column, bar_room, histogram, histogram_bars, label_column, tick_decimals, ticks, x_axis,
    Axis, Bar,
};
use crate::draw::{arrow, labelled_box, line, note, text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::{percent, short, signed, thousands};
use crate::kinds::strips::WIDTH;
use crate::options::{Block, Int, Layer, LayerKey, TokenKey};
use crate::prompt::{Gpt2Part, Prompt};
use crate::relations::{Func, Relation};
use crate::strip::norm;
use crate::svg::{number, Canvas, Css, Element};
use crate::token_text::{visible, Shown};
use crate::Traces;
use serde::Deserialize;

pub const KIND: &str = "mlp";

/// A neuron counts as off below this activation.
const OFF: f64 = 0.05;
const CHART_TOP: f64 = 96.0;
const CHART_HEIGHT: f64 = 110.0;

/// One token's pass through the MLP.
struct Pass {
    pre: Vec<f64>,
    post: Vec<f64>,
    out_length: f64,
    /// Neuron indices by activation after GELU, highest first.
    top: Vec<usize>,
}

/// The options of `mlp`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    layer: Option<LayerKey>,
    #[serde(default)]
    token: TokenKey,
    #[serde(default)]
    top: Int<1, 16, 8>,
}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let config = block.prompt.config();
    block.prompt.needs(KIND, Gpt2Part::PlainMlp)?;
    refuse_other_activations(
        &config.activation_function,
        &block.prompt.trace.meta.model.shown(),
    )?;
    let layer = block.layer(KIND, block.options.layer)?;
    let t = block.token(block.options.token)?.0;
    let top = block.options.top.get();
    let (prompt, caption) = (block.prompt, block.caption);
    let config = prompt.config();
    let d = config.n_embd;
    let width = prompt
        .trace
        .shape(&format!("blocks.{}.mlp.pre", layer.0))
        .and_then(|s| s.get(1).copied())
        .unwrap_or(4 * d);
    let pre = prompt.block(layer, "mlp.pre", width)?.row(&[t]);
    let post = prompt.block(layer, "mlp.post", width)?.row(&[t]);
    let out_length = norm(&prompt.block(layer, "mlp_out", d)?.row(&[t]));
    let mut order: Vec<usize> = (0..width).collect();
    order.sort_by(|&a, &b| post[b].total_cmp(&post[a]).then(a.cmp(&b)));
    order.truncate(top);
    let pass = Pass {
        pre,
        post,
        out_length,
        top: order,
    };
    let mut body = diagram(d, width);
    let mut relations = Vec::new();
    let chart_bottom = gelu_chart(&pass, &mut body, &mut relations);
    let height = neuron_bars(&pass, chart_bottom + 50.0, &mut body, &mut relations);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height,
        title: format!(
            "Layer {}: the MLP for {}",
            layer.0,
            visible(&prompt.trace.meta.tokens[t].text)
        ),
        desc: describe(&prompt, layer, t, &pass),
        css: Css::default(),
    };
    // GELU(pre) = post holds as printed where the trace derives post from pre (a trace of an
    // older format stores post on its own, within its precision).
    let derived = (prompt.trace)
        .derivation(&format!("blocks.{}.mlp.post", layer.0))
        .is_some_and(|d| d.op == tracebook_trace::DeriveOp::GeluTanh);
    relations.retain(|r| derived || !matches!(r, Relation::Function { .. }));
    Ok(Figure::new(canvas, body, caption, &prompt).with_relations(relations))
}

/// x (d) → pre (4d) → post (4d) → out (d), with the weights and GELU on the arrows.
fn diagram(d: usize, width: usize) -> Vec<Element> {
    let boxes = [
        ("x", thousands(d)),
        ("pre", thousands(width)),
        ("post", thousands(width)),
        ("out", thousands(d)),
    ];
    // The steps are written above the arrows, over the boxes' tops: "× W_out" is wider than
    // the gap between boxes.
    let steps = ["× W_in", "GELU", "× W_out"];
    let (box_width, pitch) = (64.0, (WIDTH - 64.0) / 3.0);
    let mut out = Vec::new();
    let mut labels = Element::new("g")
        .class("tbf-s")
        .attr("text-anchor", "middle");
    for (i, (name, size)) in boxes.iter().enumerate() {
        let x = i as f64 * pitch;
        out.push(labelled_box(x, 16.0, box_width, 32.0, name, size));
        if let Some(step) = steps.get(i) {
            let (from, to) = (x + box_width + 2.0, x + pitch - 2.0);
            out.push(arrow((from, 32.0), (to, 32.0)));
            labels.push(text((from + to) / 2.0, 11.0).text(*step));
        }
    }
    out.push(labels);
    out.push(note(
        format!(
            "W_in is {0} × {1}, W_out {1} × {0}, each with a bias",
            thousands(d),
            thousands(width)
        ),
        0.0,
        62.0,
    ));
    out
}

/// The histogram of pre-GELU values, the GELU curve over it and the top neurons on the
/// curve; returns the chart's bottom. The share of neurons nearly off is a fraction.
fn gelu_chart(pass: &Pass, body: &mut Vec<Element>, relations: &mut Vec<Relation>) -> f64 {
    let chart = Chart::of(&pass.pre);
    let counts = histogram(&pass.pre, 48, chart.axis.lo, chart.axis.hi);
    body.push(histogram_bars(
        &counts,
        &chart.axis,
        chart.base,
        CHART_HEIGHT * 0.8,
        "tbf-hist",
    ));
    body.extend(chart.curve());
    body.push(chart.dots(pass));
    let (lo, hi) = (chart.axis.lo, chart.axis.hi);
    body.push(x_axis(
        &chart.axis,
        chart.base + 2.0,
        &ticks(lo, hi, 6),
        "value before GELU",
    ));
    let off = pass.post.iter().filter(|v| v.abs() < OFF).count();
    let key = format!(
        "bars: the {} neurons by value · dots: the top neurons",
        thousands(pass.pre.len())
    );
    body.push(note(key, 0.0, CHART_TOP - 12.0));
    let share = percent(off as f64 / pass.post.len() as f64);
    relations.push(Relation::Bound {
        value: share.clone(),
        low: 0.0,
        high: 1.0,
        why: "a share of the neurons",
    });
    let off_note = format!("{share} of the neurons are nearly off after GELU (|value| < {OFF})");
    let (note, last) = wrapped_note(&off_note, 0.0, chart.base + 50.0, WIDTH, 15.0);
    body.push(note);
    last
}

/// The GELU chart's scales: values before GELU across, values after GELU up.
struct Chart {
    axis: Axis,
    /// The chart's bottom edge.
    base: f64,
    /// The range of values after GELU the height spans.
    y_lo: f64,
    y_hi: f64,
}

impl Chart {
    /// The scales for the values before GELU, `pre`: across their range, at least −1 to 1.
    fn of(pre: &[f64]) -> Chart {
        let lo = pre.iter().fold(f64::INFINITY, |m, &v| m.min(v)).min(-1.0);
        let hi = pre
            .iter()
            .fold(f64::NEG_INFINITY, |m, &v| m.max(v))
            .max(1.0);
        Chart {
            axis: Axis {
                lo,
                hi,
                start: 30.0,
                end: WIDTH - 10.0,
            },
            base: CHART_TOP + CHART_HEIGHT,
            // GELU over the axis, from its minimum (about −0.17) to gelu(hi) at the top.
            y_lo: -0.2,
            y_hi: gelu(hi).max(0.5),
        }
    }

    /// Where a value after GELU of `v` is drawn.
    fn y(&self, v: f64) -> f64 {
        self.base - (v - self.y_lo) / (self.y_hi - self.y_lo) * CHART_HEIGHT
    }

    /// The zero line, the curve's scale up the left (ticks at round values after GELU, in
    /// the curve's colour: the bars have no height scale), the GELU curve, and its key.
    fn curve(&self) -> Vec<Element> {
        let (axis, zero) = (&self.axis, self.y(0.0));
        let mut d = String::new();
        for i in 0..=60 {
            let x = axis.lo + (axis.hi - axis.lo) * f64::from(i) / 60.0;
            let command = if i == 0 { "M" } else { "L" };
            d.push_str(&format!(
                "{command}{} {}",
                number(axis.at(x), 1),
                number(self.y(gelu(x)), 1)
            ));
        }
        let values = ticks(0.0, self.y_hi, 4);
        let decimals = tick_decimals(&values);
        let mut marks = Element::new("g").class("tbf-o");
        let mut labels = Element::new("g").attr("text-anchor", "end");
        for &v in &values {
            let y = self.y(v);
            marks.push(
                Element::new("line")
                    .attr("x1", axis.start - 3.0)
                    .attr("y1", y)
                    .attr("x2", axis.start)
                    .attr("y2", y),
            );
            labels.push(
                text(axis.start - 5.0, y + 4.0)
                    .class("tbf-s tbf-acc")
                    .text(signed(v, decimals)),
            );
        }
        let curve_label = text(axis.start, CHART_TOP + 8.0).class("tbf-s tbf-acc");
        vec![
            line("tbf-grid", axis.start, zero, axis.end, zero),
            line(
                "tbf-o",
                axis.start,
                self.y(self.y_hi),
                axis.start,
                self.base,
            ),
            marks,
            labels,
            Element::new("path").class("tbf-line").attr("d", d),
            curve_label.text("line: GELU(x), the value after, scale at the left"),
        ]
    }

    /// The top neurons, each a dot at its values before and after GELU.
    fn dots(&self, pass: &Pass) -> Element {
        let mut dots = Element::new("g").class("tbf-dot");
        for &i in &pass.top {
            dots.push(
                Element::new("circle")
                    .attr("cx", self.axis.at(pass.pre[i]))
                    .attr("cy", self.y(pass.post[i]))
                    .attr("r", 3.0),
            );
        }
        dots
    }
}

/// The top neurons' activations after GELU as bars, each printed as GELU of the value
/// before, in order; returns the figure's height.
fn neuron_bars(
    pass: &Pass,
    top: f64,
    body: &mut Vec<Element>,
    relations: &mut Vec<Relation>,
) -> f64 {
    let pitch = 18.0;
    let labels: Vec<Shown> = pass
        .top
        .iter()
        .map(|i| Shown::plain(format!("neuron {i}")))
        .collect();
    let full = pass.top.first().map_or(1.0, |&i| pass.post[i]).max(1e-9);
    let printed: Vec<(String, String)> = (pass.top.iter())
        .map(|&i| (short(pass.post[i]), short(pass.pre[i])))
        .collect();
    for (post, pre) in &printed {
        relations.push(Relation::Function {
            f: Func::Gelu,
            input: pre.clone(),
            output: post.clone(),
        });
    }
    relations.push(Relation::Order {
        values: printed.iter().map(|(post, _)| post.clone()).collect(),
        descending: true,
    });
    let bars: Vec<Bar> = (printed.iter().enumerate())
        .map(|(r, (post, pre))| Bar {
            value: pass.post[pass.top[r]].max(0.0),
            text: format!("{post} (from {pre})"),
            strong: r == 0,
        })
        .collect();
    body.push(
        text(0.0, top - 24.0)
            .class("tbf-s")
            .text("the most active neurons:"),
    );
    let title = "value after GELU (from the value before)";
    body.push(text(0.0, top - 8.0).class("tbf-s").text(title));
    body.push(label_column(&labels, 92.0, top, pitch, 12.0));
    let room = bar_room(&bars, 98.0, WIDTH);
    body.push(bar_column(&bars, 98.0, room, full, top, pitch));
    top + pitch * bars.len() as f64 + 4.0
}

/// The activations this figure draws and names as GELU: the tanh approximation GPT-2 uses and
/// the exact erf form, which differ by less than the drawing shows (at most 0.0005).
const GELU_NAMES: [&str; 7] = [
    "gelu_new",
    "gelu_pytorch_tanh",
    "gelu_python_tanh",
    "gelu_fast",
    "gelu_accurate",
    "gelu",
    "gelu_python",
];

/// The figure draws GELU's curve and says "GELU" throughout: for a model with another
/// activation it would show a function the model does not compute, so it refuses by name.
fn refuse_other_activations(activation: &str, model: &str) -> Result<(), FigureError> {
    if GELU_NAMES.contains(&activation) {
        return Ok(());
    }
    Err(FigureError::new(format!(
        "figure `mlp` draws GELU, but the model {model} that made this trace uses \
         activation_function {activation:?}"
    ))
    .with_hint("the other figures work with any activation (residual, layernorm, attention, ...)"))
}

/// GPT-2's GELU (the tanh approximation).
fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044_715 * x.powi(3))).tanh())
}

fn describe(prompt: &Prompt<'_>, layer: Layer, t: usize, pass: &Pass) -> String {
    let width = pass.pre.len();
    let d = prompt.config().n_embd;
    let mean = pass.pre.iter().sum::<f64>() / width as f64;
    let (lo, hi) = pass
        .pre
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let off = pass.post.iter().filter(|v| v.abs() < OFF).count();
    let top: Vec<String> = pass
        .top
        .iter()
        .map(|&i| format!("{i} ({})", short(pass.post[i])))
        .collect();
    format!(
        "The MLP of layer {} for {:?} (token {t}): its {} numbers after the second LayerNorm \
         are expanded to {} neurons, passed through GELU, and projected back to {}. Before \
         GELU the values run from {} to {} (mean {}); GELU keeps positive values and squashes \
         negative ones towards zero, so {} of {} neurons ({}) end up nearly off. The most \
         active neurons: {}. The MLP's output has length {}.",
        layer.0,
        prompt.trace.meta.tokens[t].text,
        thousands(d),
        thousands(width),
        thousands(d),
        signed(lo, 2),
        signed(hi, 2),
        signed(mean, 2),
        thousands(off),
        thousands(width),
        percent(off as f64 / width as f64),
        top.join(", "),
        short(pass.out_length)
    )
}

#[cfg(test)]
#[path = "mlp_tests.rs"]
mod tests;

#[cfg(test)]
mod activation_tests {
    use super::*;

    #[test]
    fn a_model_with_another_activation_is_refused_by_name() {
        assert!(refuse_other_activations("gelu_new", "m").is_ok());
        assert!(refuse_other_activations("gelu", "m").is_ok());
        let err = refuse_other_activations("relu", "my/model").unwrap_err();
        assert!(
            err.message.contains("my/model") && err.message.contains("\"relu\""),
            "{}",
            err.message
        );
    }
}
