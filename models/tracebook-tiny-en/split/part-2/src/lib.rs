//! The second half of `models/tracebook-tiny-en/model.safetensors`, byte for byte (written by
//! `split/split.sh`). The weights compress to 13.4 MB, over crates.io's 10 MB per crate, so
//! they travel as two crates; `tracebook-tiny-en` joins the halves.

/// The bytes after the first half.
pub const PART_2: &[u8] = include_bytes!("../part-2.bin");
