//! One article through the whole check: front matter, markdown with figures, math, inline
//! values, links and headings, the templates, and the link checker.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::FIXTURE.with(|site| site.page(common::text(data)));
});
