//! A figure block: the first line is the info string (`figure <kind>`), the rest its TOML
//! body, drawn by the figures crate from the example traces.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let text = common::text(data);
    let (info, body) = text.split_once('\n').unwrap_or((text, ""));
    common::FIXTURE.with(|site| site.figure(info, body));
});
