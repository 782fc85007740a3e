//! The crate's entry points, by a kind's name: every kind and its options, and drawing one,
//! on its own colour scale or on one shared with other figures.

use crate::error::FigureError;
use crate::figure::Figure;
use crate::shared::{Domain, SharedScale};
use crate::traces::Traces;

/// The names of every figure kind, as written after `figure` in a block's info string.
pub fn kinds() -> &'static [&'static str] {
    crate::kinds::NAMES
}

/// The option keys of the figure `kind` (`prompt`, `caption`, then the kind's own, as its
/// options struct declares them); `None` for an unknown kind.
pub fn option_keys(kind: &str) -> Option<Vec<&'static str>> {
    crate::kinds::keys(kind)
}

/// The prompt option (`ablate`, `attribute`) whose targets the figure `kind` draws, for a
/// kind that draws an experiment's targets.
pub fn targets_option(kind: &str) -> Option<&'static str> {
    crate::kinds::experiments::option_of(kind)
}

/// Draws the figure `kind` with `options` (the block's TOML body) from `traces`, on its own
/// colour scale (a `scale` name among the options changes nothing here: see
/// [`render_shared`]).
pub fn render(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Figure, FigureError> {
    crate::kinds::render(kind, options, traces, None)
}

/// The domain of the values the figure colours, for a scale shared with other figures
/// (the union of theirs, see [`Domain::union`]); `None` when `kind` colours nothing by
/// value.
pub fn domain(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Option<Domain>, FigureError> {
    crate::kinds::domain(kind, options, traces)
}

/// [`render`] on the colour scale `shared`, which the figure's legend says it shares.
pub fn render_shared(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
    shared: &SharedScale,
) -> Result<Figure, FigureError> {
    crate::kinds::render(kind, options, traces, Some(shared))
}

/// The kinds that colour by value and so take `scale = "NAME"`.
pub fn scaled_kinds() -> Vec<&'static str> {
    crate::kinds::scaled()
}
