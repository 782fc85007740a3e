//! The other panels of `figure attention`, drawn hidden for the page's layer and head
//! pickers (see [`crate::panels`]): which ones `pickers` asks for, and the stack of them
//! around the figure's own.

use super::draw::Drawn;
use super::Pickers;
use crate::error::FigureError;
use crate::options::{Head, Layer};
use crate::panels::{self, Panel};

/// Most relations a figure declares for its hidden panels, on top of its own panel's: enough
/// to check every panel of a small model, few enough to check quickly on a large one.
const HIDDEN_RELATIONS: usize = 2_000;

/// The (layer, head) panels that `pickers` asks for, in order; empty for "none".
pub(in crate::kinds) fn picked(
    pickers: Pickers,
    (layer, head): (Layer, Head),
    (n_layer, n_head): (usize, usize),
) -> Result<Vec<(usize, usize)>, FigureError> {
    let others: Vec<(usize, usize)> = match pickers {
        Pickers::Heads => (0..n_head).map(|h| (layer.0, h)).collect(),
        Pickers::Layers => (0..n_layer).map(|l| (l, head.0)).collect(),
        Pickers::All => (0..n_layer)
            .flat_map(|l| (0..n_head).map(move |h| (l, h)))
            .collect(),
        Pickers::None => Vec::new(),
    };
    Ok(others)
}

/// The figure's own panel (`own`, of `layer` and `head`) among the `others`, each drawn by
/// `draw`, all but its own hidden; with the pickers' JSON when there are panels. The size
/// fits them all. Past `panels::INLINE_PANELS` only the figure's own is in the drawing and the
/// others come back apart (`Figure::deferred`). `label(picker, value)` names a picker's value
/// where its number alone would not (see [`panels::json_labelled`]).
pub(in crate::kinds) fn stack(
    own: Drawn,
    (layer, head): (Layer, Head),
    others: &[(usize, usize)],
    draw: impl Fn(Layer, Head) -> Result<Drawn, FigureError>,
    label: &dyn Fn(&str, usize) -> Option<String>,
) -> Result<(Drawn, Option<String>, Option<String>), FigureError> {
    let (mut width, mut height) = (own.width, own.height);
    let mut relations = Vec::new();
    let mut panels = Vec::with_capacity(others.len());
    let mut shown = 0;
    for &(l, h) in others {
        let key = vec![("layer", l), ("head", h)];
        if (l, h) == (layer.0, head.0) {
            shown = panels.len();
            panels.push(Panel {
                key,
                body: Vec::new(),
            });
            continue;
        }
        let drawn = draw(Layer(l), Head(h))?;
        (width, height) = (width.max(drawn.width), height.max(drawn.height));
        let room = HIDDEN_RELATIONS.saturating_sub(relations.len());
        relations.extend(drawn.relations.into_iter().take(room));
        panels.push(Panel {
            key,
            body: drawn.body,
        });
    }
    let live = (!panels.is_empty()).then(|| panels::json_labelled(&panels, shown, label));
    let defer = panels.len() > panels::INLINE_PANELS;
    let deferred = defer.then(|| panels::deferred(&panels, shown));
    relations.splice(0..0, own.relations);
    let body = match panels.get_mut(shown) {
        Some(panel) => {
            panel.body = own.body;
            if defer {
                let own = panels.swap_remove(shown);
                panels::stack(vec![own], 0)
            } else {
                panels::stack(panels, shown)
            }
        }
        None => own.body,
    };
    Ok((
        Drawn {
            body,
            width,
            height,
            relations,
        },
        live,
        deferred,
    ))
}
