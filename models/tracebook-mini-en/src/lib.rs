//! The model built into tracebook, `tracebook-mini-en`: the files of this folder embedded at
//! compile time. The site builder reads them to write the browser model of a site that uses it
//! (`[live]`), with no model folder on the machine; the binary's `trace` writes them into the
//! user's cache to trace with. A crate of its own so that the site crate packages for
//! crates.io without files outside it (and under its size limit: the four files are 8.2 MB).

/// The names of the model folder's files, in the order [`files`] gives them.
pub const NAMES: [&str; 4] = [
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "training_log.json",
];

/// The embedded files, by name, as the model folder holds them.
pub fn files() -> [(&'static str, &'static [u8]); 4] {
    [
        (NAMES[0], include_bytes!("../config.json")),
        (NAMES[1], include_bytes!("../model.safetensors")),
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
            tracebook_trace::BUILTIN_MODEL_SHA256,
            "update tracebook_trace::BUILTIN_MODEL_SHA256"
        );
    }
}
