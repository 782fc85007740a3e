//! Figure options: a typed reader over a figure block's TOML table, shared by all kinds,
//! whose errors name the key at fault and suggest a fix.

mod numeric;
mod problems;
mod reader;
mod values;

pub use reader::Options;
pub use values::{Head, Layer};

#[cfg(test)]
mod tests;
