//! tracebook in the browser: a reader's own prompt run through the site's model and drawn by
//! the site's figures, with the very functions `tracebook trace` and `tracebook build` call.
//!
//! [`Session`] is the whole of it in plain Rust: a model loaded from bytes
//! ([`tracebook_model::Model::from_bytes`]), traces made by [`tracebook_model::trace`] (the
//! recorder-carrying forward `tracebook trace` runs), and figures drawn by
//! [`tracebook_figures::render`] (what `tracebook build` calls for a figure block). This crate
//! adds no arithmetic and no drawing of its own; native tests check that its figures equal,
//! byte for byte, the ones drawn from a trace that `tracebook trace` wrote.
//!
//! [`bindings`] exposes the session to JavaScript through wasm-bindgen rather than plain
//! `extern "C"` exports. Every call moves strings (prompt, TOML options, SVG) or a large byte
//! array (the weights), returns errors, and keeps an owned object (the loaded model) alive
//! between calls: with plain exports the JavaScript side would need a hand-written copy of
//! allocation, pointer and length passing, UTF-8 conversion, an error protocol and freeing,
//! unchecked against the Rust signatures. wasm-bindgen generates that glue from the
//! signatures, so the two sides cannot drift. And the module needs wasm-bindgen's imports in
//! any case: candle and tokenizers draw random seeds through getrandom, whose browser backend
//! (crypto.getRandomValues) is written with wasm-bindgen. The cost is a build-time CLI whose
//! version must equal the crate's (`build.sh` installs the one Cargo.lock names).

pub mod bindings;
mod claims;
mod error;
mod session;

pub use claims::ClaimCheck;
pub use error::LiveError;
pub use session::{Redrawn, Session};
pub use tracebook_model::ModelBytes;
