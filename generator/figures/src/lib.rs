//! tracebook's figures: each figure kind is a pure function from a prompt's trace and the
//! TOML options of a `figure <kind>` block to an accessible, self-contained SVG.
//!
//! No I/O and no global state: the site passes the traces in through [`Traces`] and
//! writes the [`Figure`] where it likes. Output is deterministic, byte for byte.
//!
//! This file is the table of contents: what the crate gives, the kinds, what they draw
//! with, and what the tests draw from.

// What the crate gives: the entry points by a kind's name, what they read and return.
mod api;
mod error;
mod figure;
mod live;
pub mod reference;
pub mod relations;
pub mod sampler;
mod shared;
mod traces;

// The figure kinds, in folders by what they draw, and their registry (`kinds/mod.rs`).
mod kinds;

// What the kinds draw with: options and the prompt they read, numbers, colours, SVG.
mod candidates;
mod chart;
mod colour;
mod draw;
mod format;
mod heatmap;
mod options;
#[cfg(feature = "own-kinds")]
pub mod own;
mod panels;
mod prompt;
mod strip;
mod svg;
mod theme;
mod token_text;

// The tests' synthetic traces and the crate-wide tests; the traces also behind the
// `preview` feature for `examples/preview.rs` (a page of every figure kind to look at).
#[cfg(any(test, feature = "preview"))]
#[cfg_attr(not(test), allow(dead_code, unused_imports))]
mod testing;

/// The synthetic traces every figure kind draws in the tests, for `examples/preview.rs`.
#[cfg(feature = "preview")]
#[doc(hidden)]
pub mod preview {
    pub use crate::testing::preview_traces::preview_traces;
    pub use crate::testing::test_traces::TestTraces;
}

pub use api::{domain, kinds, option_keys, render, render_shared, scaled_kinds, targets_option};
pub use colour::{Colour, DivergingPalette, SequentialPalette};
pub use error::FigureError;
pub use figure::{Figure, Source};
pub use format::{percent, thousands};
pub use live::LiveCache;
pub use panels::json_string;
pub use shared::{Domain, OwnSource, PageFigure, SharedScale};
pub use svg::unescape_html;
pub use theme::{Accent, Theme};
pub use traces::Traces;
