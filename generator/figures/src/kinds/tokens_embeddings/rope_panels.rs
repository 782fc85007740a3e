//! The three panels of `figure rope`: each pair's angle per position (log scale), one pair
//! turned at each position, and the score against the distance between positions.

use super::rope_model::{Of, Rope, DISTANCES, PAIRED};
use crate::chart::{tick_decimals, ticks, x_axis, Axis};
use crate::draw::{line, text, wrapped_note, wrapped_title};
use crate::format::{short, signed};
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{number, Element, Font, FIGURE_WIDTH as WIDTH};
use crate::token_text::Shown;

const LEFT: f64 = 46.0;
const CHART: f64 = 96.0;
/// Positions panel b draws (the last ones), each on a circle of this radius.
const SHOWN: usize = 8;
const RADIUS: f64 = 17.0;

/// The labels `chart::x_axis` and [`value_axis`] print for `values`, which count up.
fn axis_order(values: &[f64]) -> Relation {
    let decimals = tick_decimals(values);
    Relation::Order {
        values: values.iter().map(|v| signed(*v, decimals)).collect(),
        descending: false,
    }
}

/// Panel a; returns its bottom.
pub fn frequencies(
    rope: &Rope,
    top: f64,
    body: &mut Vec<Element>,
    relations: &mut Vec<Relation>,
) -> f64 {
    let title = "a · the angle θᵢ each pair i of dimensions (i, i + dh/2) turns by per \
                 position (radians, log scale)";
    let last = heading(title, top + 12.0, body);
    let shown: Vec<f64> = (0..rope.half)
        .filter_map(|i| drawn_at(rope, i).map(|(_, v)| v))
        .chain((0..rope.half).filter_map(|i| formula(rope, i)))
        .filter(|v| *v > 0.0)
        .collect();
    let lowest = shown.iter().fold(1.0f64, |a, b| a.min(*b));
    let lo = lowest.log10().floor().min(-1.0);
    let hi = (shown.iter().fold(1.0f64, |a, b| a.max(*b)).log10() - 1e-6).ceil();
    let (chart_top, base) = (last + 10.0, last + 10.0 + CHART);
    let y = Axis {
        lo,
        hi,
        start: base,
        end: chart_top,
    };
    let x = Axis {
        lo: -0.5,
        hi: rope.half as f64 - 0.5,
        start: LEFT,
        end: WIDTH - 4.0,
    };
    body.push(log_axis(&y, lo, hi));
    let at = |i: usize, value: f64| (x.at(i as f64), y.at(value.log10()));
    let line_points: Vec<(f64, f64)> = (0..rope.half)
        .filter_map(|i| formula(rope, i).map(|f| at(i, f)))
        .collect();
    if !line_points.is_empty() {
        body.push(polyline("tbf-o", &line_points));
    }
    for i in 0..rope.half {
        if let Some((class, value)) = drawn_at(rope, i).filter(|(_, v)| *v > 0.0) {
            let (cx, cy) = at(i, value);
            body.push(dot(class, cx, cy, 2.5));
            if i == rope.pair {
                body.push(dot("tbf-line", cx, cy, 6.0));
            }
        }
    }
    let whole: Vec<f64> = ticks(0.0, rope.half as f64 - 1.0, 6)
        .into_iter()
        .filter(|t| t.fract() == 0.0)
        .collect();
    body.push(x_axis(&x, base + 1.0, &whole, "pair i"));
    relations.push(axis_order(&whole));
    let (note, last) = wrapped_note(&frequency_note(rope), 0.0, base + 50.0, WIDTH, 15.0);
    body.push(note);
    last
}

/// θᵢ by the plain formula, rope_theta^(−2i/dh), where the config has rope_theta.
fn formula(rope: &Rope, i: usize) -> Option<f64> {
    rope.base.map(|b| b.powf(-(i as f64) / rope.half as f64))
}

/// How pair i is drawn: a dot at its traced θ, or, turned too little to read, a ring on
/// the formula's line.
fn drawn_at(rope: &Rope, i: usize) -> Option<(&'static str, f64)> {
    if rope.turns.resolved[i] {
        Some(("tbf-dot", rope.turns.theta[i]))
    } else {
        formula(rope, i).map(|f| ("tbf-o", f))
    }
}

/// Whether some pair read well enough (4 times the floor by the last position) is more than
/// a quarter off the formula: the model scales its frequencies (e.g. Llama 3's rope scaling).
pub fn scaled(rope: &Rope) -> bool {
    let last = rope.turns.at.len().saturating_sub(1) as f64;
    (0..rope.half).any(|i| {
        let theta = rope.turns.theta[i];
        let clear = (theta * last).abs() >= 4.0 * rope.floor;
        clear && formula(rope, i).is_some_and(|f| (theta / f - 1.0).abs() > 0.25)
    })
}

fn frequency_note(rope: &Rope) -> String {
    let base_note = match rope.base {
        Some(b) => format!("line: rope_theta^(−2i/dh), rope_theta = {}; ", short(b)),
        None => String::new(),
    };
    let scaling = if scaled(rope) {
        "dots off the line: the model scales those frequencies (its config's rope scaling); "
    } else {
        ""
    };
    format!(
        "dots: read from the trace (q and k before and after turning); {base_note}{scaling}\
         hollow: turned under {} rad by the last position, too little to read from the stored \
         values; ringed: pair {}",
        rope.floor, rope.pair
    )
}

/// A vertical log axis: a tick and "10ⁿ" at each power of ten (every other one past 6).
fn log_axis(y: &Axis, lo: f64, hi: f64) -> Element {
    let mut group = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    let step = if hi - lo > 6.0 { 2 } else { 1 };
    for e in (lo as i64..=hi as i64).rev().step_by(step) {
        let at = y.at(e as f64);
        group.push(line("tbf-grid", LEFT, at, WIDTH - 4.0, at));
        group.push(text(LEFT - 4.0, at + 4.0).text(power(e)));
    }
    group
}

/// 10ⁿ as text: "1", "10⁻³".
fn power(e: i64) -> String {
    if e == 0 {
        return "1".to_string();
    }
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits: String = e
        .to_string()
        .chars()
        .map(|c| c.to_digit(10).map_or('⁻', |d| DIGITS[d as usize]))
        .collect();
    format!("10{digits}")
}

fn dot(class: &str, x: f64, y: f64, r: f64) -> Element {
    Element::new("circle")
        .class(class)
        .attr("cx", x)
        .attr("cy", y)
        .attr("r", r)
}

fn polyline(class: &str, points: &[(f64, f64)]) -> Element {
    let d: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, (x, y))| {
            format!(
                "{}{} {}",
                if i == 0 { "M" } else { "L" },
                number(*x, 1),
                number(*y, 1)
            )
        })
        .collect();
    Element::new("path").class(class).attr("d", d.concat())
}

/// Panel b: the pair at each of the last [`SHOWN`] positions, before (grey) and after
/// (accent) turning, on a circle each; returns its bottom.
pub fn circles(
    rope: &Rope,
    prompt: &Prompt<'_>,
    top: f64,
    body: &mut Vec<Element>,
    relations: &mut Vec<Relation>,
) -> f64 {
    let half = rope.half;
    let title = format!(
        "b · pair {} (dims {}, {}) of head {}'s {} at each position: as projected (grey), turned (accent)",
        rope.pair,
        rope.pair,
        rope.pair + half,
        if rope.of == Of::Q { rope.head } else { rope.kv },
        rope.of
    );
    let last = heading(&title, top + 12.0, body);
    let n = rope.arrows.len();
    let start = n.saturating_sub(SHOWN);
    let pitch = WIDTH / SHOWN as f64;
    let tokens = &prompt.trace.meta.tokens;
    let row = last + 8.0;
    let mut group = Element::new("g").attr("text-anchor", "middle");
    for (slot, p) in (start..n).enumerate() {
        let cx = pitch * (slot as f64 + 0.5);
        let label = Shown::fit(&tokens[p].text, pitch - 4.0, Font::Mono, 12.0);
        group.push(label.append_to(text(cx, row + 12.0).class("tbf-s tbf-m")));
        group.push(circle_tile(rope.arrows[p], cx, row + 20.0 + RADIUS));
        group.push(
            text(cx, row + 20.0 + 2.0 * RADIUS + 16.0)
                .class("tbf-s")
                .text(format!("p {p}")),
        );
    }
    body.push(group);
    relations.push(Relation::Order {
        values: (start..n).map(|p| p.to_string()).collect(),
        descending: false,
    });
    let mut bottom = row + 20.0 + 2.0 * RADIUS + 20.0;
    if start > 0 {
        let (note, last) = wrapped_note(
            &format!("the last {SHOWN} of {n} positions"),
            0.0,
            bottom + 12.0,
            WIDTH,
            15.0,
        );
        body.push(note);
        bottom = last;
    }
    bottom
}

/// One position's circle with the pair's direction before and after, and the angle between.
fn circle_tile(((u1, u2), (r1, r2)): ((f64, f64), (f64, f64)), cx: f64, cy: f64) -> Element {
    let mut group = Element::new("g").child(dot("tbf-grid", cx, cy, RADIUS));
    for ((a, b), class) in [((u1, u2), "tbf-ax"), ((r1, r2), "tbf-line")] {
        let length = (a * a + b * b).sqrt();
        if length > 1e-12 {
            let (dx, dy) = (a / length * RADIUS, -b / length * RADIUS);
            group.push(line(class, cx, cy, cx + dx, cy + dy));
        }
    }
    group
}

/// Panel c: the score of the turned query and key against the distance m − n, a dot per
/// pair of positions; returns the figure's height.
pub fn distances(
    rope: &Rope,
    top: f64,
    body: &mut Vec<Element>,
    relations: &mut Vec<Relation>,
) -> f64 {
    let scores = &rope.scores;
    let title = format!(
        "c · token {}'s q (head {}) and k (k/v head {}) turned to positions m and n: q·k/√dh against m − n",
        rope.token, rope.head, rope.kv
    );
    let last = heading(&title, top + 12.0, body);
    let values = scores
        .curve
        .iter()
        .chain(scores.dots.iter().map(|(_, v)| v));
    let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let pad = ((hi - lo) * 0.08).max(1e-6);
    let (lo, hi) = (lo - pad, hi + pad);
    let (chart_top, base) = (last + 12.0, last + 12.0 + CHART);
    let y = Axis {
        lo,
        hi,
        start: base,
        end: chart_top,
    };
    let x = Axis {
        lo: 0.0,
        hi: DISTANCES as f64,
        start: LEFT,
        end: WIDTH - 6.0,
    };
    let (values, distance) = (ticks(lo, hi, 4), ticks(0.0, DISTANCES as f64, 6));
    relations.extend([axis_order(&values), axis_order(&distance)]);
    body.push(value_axis(&y, &values));
    let points: Vec<(f64, f64)> = scores
        .curve
        .iter()
        .enumerate()
        .map(|(d, v)| (x.at(d as f64), y.at(*v)))
        .collect();
    body.push(polyline("tbf-line", &points));
    for (d, v) in &scores.dots {
        body.push(dot("tbf-dot", x.at(*d as f64), y.at(*v), 3.0));
    }
    body.push(x_axis(&x, base + 1.0, &distance, "distance m − n"));
    let paired = rope.arrows.len().min(PAIRED);
    let note = format!(
        "dots: each of the {} pairs m ≥ n of the first {paired} positions, turned by the angles traced at m and n; those with the same m − n land on one point, all within {} of the line (θᵢ × distance)",
        scores.dots.len(),
        crate::format::small(scores.worst)
    );
    let (note, last) = wrapped_note(&note, 0.0, base + 50.0, WIDTH, 15.0);
    body.push(note);
    last + 10.0
}

/// A vertical axis of values with a grid line and label at each tick.
fn value_axis(y: &Axis, values: &[f64]) -> Element {
    let decimals = tick_decimals(values);
    let mut group = Element::new("g")
        .class("tbf-s tbf-dim")
        .attr("text-anchor", "end");
    for &v in values {
        let at = y.at(v);
        group.push(line("tbf-grid", LEFT, at, WIDTH - 6.0, at));
        group.push(text(LEFT - 4.0, at + 4.0).text(signed(v, decimals)));
    }
    group
}

/// A panel's title in bold, wrapped to the figure's width; returns its last baseline.
fn heading(content: &str, y: f64, body: &mut Vec<Element>) -> f64 {
    let (lines, last) = wrapped_title(content, y, WIDTH, 15.0);
    body.extend(lines);
    last
}
