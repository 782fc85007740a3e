//! Whole-format tests of tracebook-trace: codec bounds, file size, errors, staleness, writing.

mod atomic;
mod bounds;
mod common;
mod errors;
mod json;
mod prompt_toml;
mod properties;
mod size;
mod stale;
