//! The README's table of kinds against the kinds themselves: every kind has a row, and
//! every option a kind accepts is named in its row, so the docs cannot fall behind.

use crate::test_traces::{tiny_trace, TestTraces};

const README: &str = include_str!("../README.md");

/// The README row of `kind`: the table line that starts with the kind's name.
fn row(kind: &str) -> Option<&'static str> {
    let start = format!("| `{kind}` |");
    README.lines().find(|line| line.starts_with(&start))
}

/// The options `kind` accepts, read from its unknown-key hint ("`kind` accepts: a, b").
fn accepted(kind: &str) -> Vec<String> {
    let traces = TestTraces::with("p", tiny_trace());
    let table: toml::Table = toml::from_str("prompt = \"p\"\nzzzzzzzz = 1").unwrap();
    let error = crate::render(kind, &table, &traces).unwrap_err();
    let hint = error.hint.expect("an unknown key has a hint");
    let list = hint
        .split("accepts: ")
        .nth(1)
        .expect("the hint lists the keys");
    list.split(", ").map(str::to_owned).collect()
}

#[test]
fn every_kind_has_a_readme_row() {
    for kind in crate::kinds() {
        assert!(
            row(kind).is_some(),
            "generator/figures/README.md has no row for `{kind}`"
        );
    }
}

#[test]
fn every_accepted_option_is_in_its_readme_row() {
    for kind in crate::kinds() {
        let row = row(kind).unwrap_or_default();
        for key in accepted(kind) {
            if key == "prompt" || key == "caption" {
                continue;
            }
            assert!(
                row.contains(&format!("`{key}`")),
                "README row of `{kind}` does not name its option `{key}`"
            );
        }
    }
}
