//! The browser module `generator/live/build.sh` built: tracebook-live compiled to WebAssembly
//! and wasm-bindgen's ES-module glue, embedded so that authors need no wasm toolchain. A crate
//! of its own so that the site crate packages for crates.io without files outside it.

/// The module's files, as the site writes them under `live/`: the wasm, then its glue.
pub const MODULE: [(&str, &[u8]); 2] = [
    (
        "tracebook_live_bg.wasm",
        include_bytes!("../tracebook_live_bg.wasm"),
    ),
    ("tracebook_live.js", include_bytes!("../tracebook_live.js")),
];
