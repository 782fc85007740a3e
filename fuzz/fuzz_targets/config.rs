//! `tracebook.toml`: sections, keys, types, base_url, shared prompts.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    tracebook_site::fuzzing::config(common::text(data));
});
