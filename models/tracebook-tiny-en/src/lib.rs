//! The model built into tracebook, `tracebook-tiny-en`: the files of this folder embedded at
//! compile time. The site builder reads them to write the browser model of a site that uses it
//! (`[live]`), with no model folder on the machine; the binary's `trace` writes them into the
//! user's cache to trace with. A crate of its own so that the site crate packages for
//! crates.io without files outside it (and under its size limit).

use std::sync::OnceLock;

/// The names of the model folder's files, in the order [`files`] gives them.
pub const NAMES: [&str; 4] = [
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "training_log.json",
];

/// The first half of `model.safetensors`; the second is in `tracebook-tiny-en-part-2`
/// (`split/split.sh` writes both: crates.io takes at most 10 MB per crate).
const PART_1: &[u8] = include_bytes!("../split/part-1.bin");

/// The weights, joined from their halves on first use.
fn weights() -> &'static [u8] {
    static JOINED: OnceLock<Vec<u8>> = OnceLock::new();
    JOINED.get_or_init(|| [PART_1, tracebook_tiny_en_part_2::PART_2].concat())
}

/// The embedded files, by name, as the model folder holds them.
pub fn files() -> [(&'static str, &'static [u8]); 4] {
    [
        (NAMES[0], include_bytes!("../config.json")),
        (NAMES[1], weights()),
        (NAMES[2], include_bytes!("../tokenizer.json")),
        (NAMES[3], include_bytes!("../training_log.json")),
    ]
}

/// The embedded file called `name`.
pub fn file(name: &str) -> Option<&'static [u8]> {
    files()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_weights_are_the_ones_sites_are_told_of() {
        let digest = tracebook_trace::sha256_bytes(file("model.safetensors").unwrap());
        assert_eq!(
            digest,
            tracebook_trace::TINY_MODEL_SHA256,
            "update tracebook_trace::TINY_MODEL_SHA256"
        );
    }

    #[test]
    fn the_halves_join_into_the_folders_weights() {
        let folder = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/model.safetensors"));
        // Packaged alone (crates.io), the crate has only its halves; in the repository the
        // folder's file is there and must be what they join into (else run split/split.sh).
        if let Ok(folder) = folder {
            assert!(
                folder == file("model.safetensors").unwrap(),
                "run models/tracebook-tiny-en/split/split.sh"
            );
        }
    }
}
