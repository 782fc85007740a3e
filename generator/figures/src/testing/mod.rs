//! What the tests draw from and check with: synthetic traces of a tiny GPT-2-like model
//! (`test_traces`, with its forward pass, logits and experiments), of a Llama-family and an
//! encoder-decoder model, of GPT-2 small's shape, and the preview page's; reading an SVG
//! back (`test_svg`); and the tests of the crate as a whole (`readme_tests`,
//! `shared_tests`). `live_tests.rs` is `live`'s own test module, which reads its private
//! items: `live.rs` attaches it with `#[path]`.

// Also built with the `preview` feature: the traces of `examples/preview.rs`.
pub(crate) mod preview_interventions;
pub(crate) mod preview_traces;
pub(crate) mod test_forward;
pub(crate) mod test_interventions;
pub(crate) mod test_logits;
pub(crate) mod test_seq2seq;
pub(crate) mod test_traces;
pub(crate) mod test_wide;

#[cfg(test)]
mod readme_tests;
#[cfg(test)]
mod shared_tests;
#[cfg(test)]
pub(crate) mod test_llama;
#[cfg(test)]
pub(crate) mod test_svg;
