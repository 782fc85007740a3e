//! `figure ablation`: what each attention head and each MLP does for one next token, found
//! by taking it out. A prompt traced with `ablate = { targets = [...] }` records the run with
//! each head's output, and each layer's MLP output, replaced in turn (by its mean over the
//! prompt's positions, or by zero: the spec's `mode`), and each target's next-token
//! log-probability after it (`meta.ablation`). The grid has a row per layer and a column per
//! head, then one for the layer's MLP; each cell is coloured by how the target's probability
//! changes (diverging: blue where taking the part out lowers it, red where it raises it) and,
//! where the numbers fit the figure's width, carries the change in percentage points. The
//! headline gives the probability with nothing ablated.
//!
//! Options: `prompt`, `caption`, `target` (the target token's text as the prompt's `ablate`
//! lists it, leading space included; default the first), `show` (`prob`, default: the change
//! in probability, in percentage points; `logprob`: the change in ln p, in nats). With several
//! targets every target's grid is drawn, all but the figure's own hidden, for the page's
//! target picker; one colour scale spans them all, so a colour means the same change in each.

use super::effect_grid::{self, hundredths, tenths, Scale, Table};
use super::targets;
use crate::draw::{line, text, wrapped_note};
use crate::error::FigureError;
use crate::figure::Figure;
use crate::format::percent;
use crate::kinds::strips::WIDTH;
use crate::options::{choice, Block};
use crate::panels::{self, Panel};
use crate::prompt::Prompt;
use crate::relations::{printed, Relation};
use crate::shared::{self, Domain, SharedScale};
use crate::svg::{Canvas, Element, Font, Ramp, WIDE_FONT};
use crate::token_text::{fitted, visible, Shown};
use crate::Traces;
use describe::describe;
use serde::Deserialize;

use tracebook_trace::{Ablation, AblationMode};

mod describe;

pub const KIND: &str = "ablation";

choice! {
    /// What a cell's number and colour measure.
    enum Show { Prob = "prob", Logprob = "logprob" } default Prob
}

/// The options of `ablation`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {
    target: Option<String>,
    #[serde(default)]
    show: Show,
}

/// The ablation's numbers, checked: per target, per layer, the heads' changes then the MLP's.
struct Effects<'a> {
    ablation: &'a Ablation,
    layers: usize,
    heads: usize,
    /// `[target][layer][column]`: Δp in percentage points (columns: heads, then the MLP).
    points: Vec<Vec<Vec<f64>>>,
    /// The same as Δ ln p, in nats.
    nats: Vec<Vec<Vec<f64>>>,
}

impl Effects<'_> {
    fn shown(&self, show: Show) -> &Vec<Vec<Vec<f64>>> {
        match show {
            Show::Prob => &self.points,
            Show::Logprob => &self.nats,
        }
    }

    fn base(&self, t: usize) -> f64 {
        f64::from(self.ablation.base.logprobs[t]).exp()
    }

    fn target(&self, t: usize) -> &str {
        &self.ablation.targets[t].text
    }
}

pub fn render(
    table: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<(Figure, Domain), FigureError> {
    let block = Block::<Opts>::read(KIND, table, traces)?;
    let (prompt, caption, show) = (block.prompt, block.caption, block.options.show);
    let ablation = traced(&prompt)?;
    let effects = read(&prompt, ablation)?;
    let asked = block.options.target.as_deref();
    let t = targets::index(&prompt, &ablation.targets, asked, targets::ABLATION)?;
    let own = effect_grid::limit(effects.shown(show).iter().flatten().flatten().copied());
    let scale = |t: usize| Scale {
        limit: shared::signed_limit(shared, own),
        label: match show {
            Show::Prob => tenths,
            Show::Logprob => hundredths,
        },
        title: legend_title(&effects, t, show),
        shared: shared::note(shared),
    };
    let mut relations = describe::relations(&effects, t);
    let panels: Vec<(Panel, f64, f64)> = (0..ablation.targets.len())
        .map(|i| {
            let (body, right, bottom, found) = panel(&effects, i, show, &scale(i));
            relations.extend(found);
            let key = vec![("target", i)];
            (Panel { key, body }, right, bottom)
        })
        .collect();
    let (width, height) = panels::extent(&panels, WIDTH);
    let canvas = Canvas {
        kind: KIND,
        width,
        height,
        title: format!(
            "Ablating each head and MLP: the change in p({})",
            visible(effects.target(t))
        ),
        desc: describe(&effects, t, show),
        css: Ramp::signed().css(),
    };
    let label = |_: &str, i: usize| ablation.targets.get(i).map(|n| visible(&n.text));
    let panels = panels.into_iter().map(|p| p.0).collect();
    let (body, live, _) = panels::by_target(panels, t, &label, false);
    let figure = (Figure::new(canvas, body, caption, &prompt))
        .with_relations(relations)
        .with_live_if(live);
    Ok((figure, Domain::Signed { limit: own }))
}

/// The prompt's ablation, or an error that says how to ask for one.
fn traced<'p>(prompt: &'p Prompt<'_>) -> Result<&'p Ablation, FigureError> {
    prompt.trace.meta.ablation.as_ref().ok_or_else(|| {
        FigureError::at(
            "prompt",
            format!("the trace of \"{}\" records no ablation", prompt.name),
        )
        .with_hint(format!(
            "give the prompt `ablate = {{ targets = [{:?}] }}` in its table (the next tokens \
             whose probability each ablation reports; `mode = \"zero\"` to zero a part out \
             instead of replacing it by its mean), then run `tracebook trace --only {}`",
            likeliest(prompt).unwrap_or_else(|| " Paris".to_string()),
            prompt.name
        ))
    })
}

/// The prompt's likeliest next token, for an example target.
pub(super) fn likeliest(prompt: &Prompt<'_>) -> Option<String> {
    let last = prompt.trace.meta.tokens.len().checked_sub(1)?;
    let next = crate::candidates::at(prompt, last).ok()?;
    Some(next.candidates.first()?.text.clone())
}

/// The changes of every target, checked to cover every head and MLP of the model.
fn read<'a>(prompt: &Prompt<'_>, ablation: &'a Ablation) -> Result<Effects<'a>, FigureError> {
    let config = prompt.config();
    let (layers, heads) = (config.n_layer, config.n_head);
    let targets = ablation.targets.len();
    let shaped = ablation.heads.len() == layers
        && ablation.heads.iter().all(|row| row.len() == heads)
        && ablation.mlp.len() == layers
        && targets > 0;
    if !shaped {
        return Err(prompt.broken(format!(
            "the ablation in the trace of \"{}\" does not cover the model's {layers} layers of \
             {heads} heads and their MLPs",
            prompt.name
        )));
    }
    let outcomes = (ablation.heads.iter().flatten())
        .chain(&ablation.mlp)
        .chain([&ablation.base]);
    for outcome in outcomes {
        if outcome.logprobs.len() != targets || outcome.logprobs.iter().any(|l| !l.is_finite()) {
            return Err(prompt.broken(format!(
                "the ablation in the trace of \"{}\" lacks a log-probability of one of its \
                 {targets} targets, or holds one that is not finite",
                prompt.name
            )));
        }
    }
    let grid = |f: &dyn Fn(f64, f64) -> f64| -> Vec<Vec<Vec<f64>>> {
        (0..targets)
            .map(|t| {
                let base = f64::from(ablation.base.logprobs[t]);
                let after = |o: &tracebook_trace::Outcome| f(f64::from(o.logprobs[t]), base);
                (0..layers)
                    .map(|l| {
                        let row = ablation.heads[l].iter().chain([&ablation.mlp[l]]);
                        row.map(after).collect()
                    })
                    .collect()
            })
            .collect()
    };
    Ok(Effects {
        ablation,
        layers,
        heads,
        points: grid(&|after, base| 100.0 * (after.exp() - base.exp())),
        nats: grid(&|after, base| after - base),
    })
}

fn legend_title(effects: &Effects<'_>, t: usize, show: Show) -> String {
    let target = visible(effects.target(t));
    match show {
        Show::Prob => format!("change in p({target}), percentage points"),
        Show::Logprob => format!("change in ln p({target}), nats"),
    }
}

/// What replaces an ablated output, in words.
fn replaced(mode: AblationMode) -> &'static str {
    match mode {
        AblationMode::Mean => "replaced by its mean over the prompt's positions",
        AblationMode::Zero => "set to zero",
    }
}

/// What a reader can check in target `t`'s panel, its probability with nothing ablated
/// printed as `base`: it is a probability, and no ablation takes it below 0 or above 1, so
/// no cell's change (as printed, `cells`: the lowest and highest) goes past them.
fn bounds(base: &str, cells: &[Relation], show: Show) -> Vec<Relation> {
    let Some(p) = printed(base) else {
        return Vec::new();
    };
    let mut out = vec![Relation::Bound {
        value: base.to_string(),
        low: 0.0,
        high: 1.0,
        why: "a probability",
    }];
    let (p_low, p_high) = (p.value - p.half_unit, p.value + p.half_unit);
    let (low, high) = match show {
        Show::Prob => (-100.0 * p_high, 100.0 * (1.0 - p_low)),
        Show::Logprob => (f64::NEG_INFINITY, -p_low.max(f64::MIN_POSITIVE).ln()),
    };
    let why = match show {
        Show::Prob => "a change of p in points, from p to a probability",
        Show::Logprob => "a change of ln p, from ln p to at most 0",
    };
    for cell in cells {
        if let Relation::Bound { value, .. } = cell {
            let value = value.clone();
            out.push(Relation::Bound {
                value,
                low,
                high,
                why,
            });
        }
    }
    out
}

/// One target's panel: the headline, the note on what a cell is, the grid with the MLP
/// column set apart, the legend; with its right edge, bottom and relations.
fn panel(
    effects: &Effects<'_>,
    t: usize,
    show: Show,
    scale: &Scale,
) -> (Vec<Element>, f64, f64, Vec<Relation>) {
    let base = percent(effects.base(t));
    let headline = format!(
        "p({}) = {base} with nothing ablated",
        visible(effects.target(t)),
    );
    let head = text(0.0, 12.0).class("tbf-s tbf-b");
    let mut body = vec![fitted(head, &headline, WIDTH / WIDE_FONT, Font::Sans, 12.0)];
    let unit = match show {
        Show::Prob => "the change in p, in percentage points",
        Show::Logprob => "the change in ln p, in nats",
    };
    let what = format!(
        "each cell: that head's output (last column: the layer's MLP output) {}; {unit}",
        replaced(effects.ablation.mode)
    );
    let (note, last) = wrapped_note(&what, 0.0, 30.0, WIDTH, 15.0);
    body.push(note);
    let table = Table {
        rows: (0..effects.layers)
            .map(|l| Shown::plain(l.to_string()))
            .collect(),
        cols: (0..effects.heads)
            .map(|h| Shown::plain(h.to_string()))
            .chain([Shown::plain("MLP")])
            .collect(),
        values: effects.shown(show)[t].iter().flatten().copied().collect(),
        corner: ("layer", "head"),
    };
    let drawn = effect_grid::draw(&table, scale, last + 12.0);
    // A rule in the gap before the MLP column: heads to its left, MLPs to its right.
    let cell = drawn.width / (effects.heads + 1) as f64;
    let x = drawn.left + effects.heads as f64 * cell - 0.5;
    let bottom = drawn.grid_top + effects.layers as f64 * cell;
    body.extend(drawn.body);
    body.push(line("tbf-ax", x, drawn.grid_top - 3.0, x, bottom + 2.0));
    let mut relations = bounds(&base, &drawn.relations, show);
    relations.extend(drawn.relations);
    (body, drawn.right, drawn.bottom, relations)
}

#[cfg(test)]
#[path = "ablation_tests.rs"]
mod tests;
