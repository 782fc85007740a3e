//! What the targets share: the input as text, and a site with the example traces.

#![allow(dead_code)]

use tracebook_site::fuzzing::Fixture;

/// The longest UTF-8 prefix of the input (sites are read as UTF-8; invalid files never reach
/// the parsers).
pub fn text(data: &[u8]) -> &str {
    match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(err) => std::str::from_utf8(&data[..err.valid_up_to()]).expect("valid up to here"),
    }
}

/// The example site's two traces, shared as prompts `robots` and `cats`.
pub fn fixture() -> Fixture {
    Fixture::new(&[
        ("robots", include_str!("../../traces/robots.json")),
        ("cats", include_str!("../../traces/cats.json")),
    ])
}

thread_local! {
    pub static FIXTURE: Fixture = fixture();
}
