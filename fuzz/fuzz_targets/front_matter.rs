//! An article's front matter: splitting at the `+++` lines, TOML, keys, types, prompts.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    tracebook_site::fuzzing::front_matter(common::text(data));
});
