//! Inline values `{{ function prompt args }}` in a body: finding, parsing, computing them
//! from the example traces, and the placeholders that keep byte offsets.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::FIXTURE.with(|site| site.inline_values(common::text(data)));
});
