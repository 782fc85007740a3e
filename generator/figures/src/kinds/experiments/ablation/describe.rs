//! The words of `figure ablation` (its alt text): what was taken out, how the target's
//! probability moves, the parts whose ablation moves it most, and the other targets.

use super::{replaced, Effects, Show};
use crate::format::{change, percent};
use crate::relations::Relation;

/// A part of the model by name: "head 3 of layer 9", "the MLP of layer 9".
fn part(effects: &Effects<'_>, layer: usize, column: usize) -> String {
    if column == effects.heads {
        format!("the MLP of layer {layer}")
    } else {
        format!("head {column} of layer {layer}")
    }
}

/// "−5.2 points (ln p −0.14)", or nats first when the figure shows them.
fn amount(effects: &Effects<'_>, t: usize, (l, c): (usize, usize), show: Show) -> String {
    let points = format!("{} points", change(effects.points[t][l][c], 1));
    let nats = format!("ln p {}", change(effects.nats[t][l][c], 2));
    match show {
        Show::Prob => format!("{points} ({nats})"),
        Show::Logprob => format!("{nats} ({points})"),
    }
}

pub(super) fn describe(effects: &Effects<'_>, t: usize, show: Show) -> String {
    let base = percent(effects.base(t));
    let how = match show {
        Show::Prob => format!(
            "how the probability that the next token is {:?} changes, in percentage points, \
             from {base} with nothing ablated",
            effects.target(t)
        ),
        Show::Logprob => format!(
            "how the log-probability ln p that the next token is {:?} changes, in nats (p is \
             {base} with nothing ablated)",
            effects.target(t)
        ),
    };
    format!(
        "Each of the model's {} attention heads in {} layers, and each layer's MLP, taken out \
         one at a time (its output {}): {how}.{}{}",
        effects.layers * effects.heads,
        effects.layers,
        replaced(effects.ablation.mode),
        extremes(effects, t, show),
        others(effects, t),
    )
}

/// Every cell of target `t` as (layer, column, Δ ln p), the largest drop first.
fn by_change(effects: &Effects<'_>, t: usize) -> Vec<(usize, usize, f64)> {
    let mut cells: Vec<(usize, usize, f64)> = (0..effects.layers)
        .flat_map(|l| (0..=effects.heads).map(move |c| (l, c)))
        .map(|(l, c)| (l, c, effects.nats[t][l][c]))
        .collect();
    cells.sort_by(|a, b| a.2.total_cmp(&b.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    cells
}

/// What a reader can check in the alt text: the largest drops are listed largest first, in
/// points and in nats alike, and the largest rise is one.
pub(super) fn relations(effects: &Effects<'_>, t: usize) -> Vec<Relation> {
    let cells = by_change(effects, t);
    let drops: Vec<&(usize, usize, f64)> = cells.iter().filter(|c| c.2 < 0.0).take(3).collect();
    let mut out = Vec::new();
    if drops.len() > 1 {
        for points in [true, false] {
            let values = (drops.iter())
                .map(|&&(l, c, _)| match points {
                    true => change(effects.points[t][l][c], 1),
                    false => change(effects.nats[t][l][c], 2),
                })
                .collect();
            out.push(Relation::Order {
                values,
                descending: false,
            });
        }
    }
    if let Some(&(l, c, _)) = cells.last().filter(|c| c.2 > 0.0) {
        out.push(Relation::Bound {
            value: change(effects.nats[t][l][c], 2),
            low: 0.0,
            high: f64::INFINITY,
            why: "a rise",
        });
    }
    out
}

/// " Largest drops: ...; Largest rise: ...": the three parts whose ablation lowers the
/// target's probability most, and the one that raises it most.
fn extremes(effects: &Effects<'_>, t: usize, show: Show) -> String {
    let cells = by_change(effects, t);
    let said = |&(l, c, _): &(usize, usize, f64)| {
        let amount = amount(effects, t, (l, c), show);
        format!("{}, {amount}", part(effects, l, c))
    };
    let drops: Vec<String> = (cells.iter().filter(|c| c.2 < 0.0).take(3))
        .map(said)
        .collect();
    let mut out = match drops.len() {
        0 => " No ablation lowers it.".to_string(),
        _ => format!(" Largest drops: {}.", drops.join("; ")),
    };
    if let Some(rise) = cells.last().filter(|c| c.2 > 0.0).map(said) {
        out.push_str(&format!(" Largest rise: {rise}."));
    }
    out
}

/// " A picker shows the same for ...": the other targets, with their probabilities.
fn others(effects: &Effects<'_>, t: usize) -> String {
    let others: Vec<String> = (0..effects.ablation.targets.len())
        .filter(|&o| o != t)
        .map(|o| format!("{:?} at {}", effects.target(o), percent(effects.base(o))))
        .collect();
    match others.len() {
        0 => String::new(),
        1 => format!(
            " A picker shows the same for the other target, {}, with nothing ablated.",
            others[0]
        ),
        _ => format!(
            " A picker shows the same for the other targets: {}, with nothing ablated.",
            others.join(", ")
        ),
    }
}
