//! tracebook's figures: each figure kind is a pure function from a prompt's trace and the
//! TOML options of a `figure <kind>` block to an accessible, self-contained SVG.
//!
//! No I/O and no global state: the site passes the traces in through [`Traces`] and
//! writes the [`Figure`] where it likes. Output is deterministic, byte for byte.

mod candidates;
mod chart;
mod colour;
mod draw;
mod error;
mod figure;
mod format;
mod heatmap;
mod kinds;
mod live;
mod options;
mod panels;
mod prompt;
pub mod reference;
pub mod relations;
pub mod sampler;
mod shared;
mod strip;
mod svg;
mod theme;
mod token_text;

// The synthetic traces of the tests, also behind the `preview` feature for
// `examples/preview.rs` (a page of every figure kind to look at).
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod preview_interventions;
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod preview_traces;
#[cfg(test)]
mod readme_tests;
#[cfg(test)]
mod shared_tests;
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod test_forward;
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod test_interventions;
#[cfg(test)]
mod test_llama;
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod test_logits;
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod test_seq2seq;
#[cfg(test)]
mod test_svg;
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod test_traces;
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod test_wide;

/// The synthetic traces every figure kind draws in the tests, for `examples/preview.rs`.
#[cfg(feature = "preview")]
#[doc(hidden)]
pub mod preview {
    pub use crate::preview_traces::preview_traces;
    pub use crate::test_traces::TestTraces;
}

pub use colour::{Colour, DivergingPalette, SequentialPalette};
pub use error::FigureError;
pub use figure::{Figure, Source};
pub use format::{percent, thousands};
pub use live::LiveCache;
pub use panels::json_string;
pub use shared::{Domain, PageFigure, SharedScale};
pub use svg::unescape_html;
pub use theme::{Accent, Theme};

/// The traces a figure can draw from, by prompt name.
pub trait Traces {
    /// The trace of the prompt called `prompt`, if there is one.
    fn get(&self, prompt: &str) -> Option<&tracebook_trace::Trace>;
    /// Every prompt name with a trace, for did-you-mean hints.
    fn names(&self) -> Vec<String>;
    /// Where figures that embed numbers for the page's controls keep what they computed,
    /// for the other figures of the same build; `None` computes every time.
    fn live_cache(&self) -> Option<&LiveCache> {
        None
    }
}

/// The names of every figure kind, as written after `figure` in a block's info string.
pub fn kinds() -> &'static [&'static str] {
    kinds::NAMES
}

/// The option keys of the figure `kind` (`prompt`, `caption`, then the kind's own, as its
/// options struct declares them); `None` for an unknown kind.
pub fn option_keys(kind: &str) -> Option<Vec<&'static str>> {
    kinds::keys(kind)
}

/// Draws the figure `kind` with `options` (the block's TOML body) from `traces`, on its own
/// colour scale (a `scale` name among the options changes nothing here: see
/// [`render_shared`]).
pub fn render(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Figure, FigureError> {
    kinds::render(kind, options, traces, None)
}

/// The domain of the values the figure colours, for a scale shared with other figures
/// (the union of theirs, see [`Domain::union`]); `None` when `kind` colours nothing by
/// value.
pub fn domain(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Option<Domain>, FigureError> {
    kinds::domain(kind, options, traces)
}

/// [`render`] on the colour scale `shared`, which the figure's legend says it shares.
pub fn render_shared(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
    shared: &SharedScale,
) -> Result<Figure, FigureError> {
    kinds::render(kind, options, traces, Some(shared))
}

/// The kinds that colour by value and so take `scale = "NAME"`.
pub fn scaled_kinds() -> Vec<&'static str> {
    kinds::scaled()
}
