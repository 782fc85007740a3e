//! The README's table of kinds against the kinds themselves: every kind has a row, and
//! every option a kind accepts is named in its row, so the docs cannot fall behind.

const README: &str = include_str!("../../README.md");

/// The README row of `kind`: the table line that starts with the kind's name.
fn row(kind: &str) -> Option<&'static str> {
    let start = format!("| `{kind}` |");
    README.lines().find(|line| line.starts_with(&start))
}

/// The options `kind` accepts, from its options struct.
fn accepted(kind: &str) -> Vec<&'static str> {
    crate::option_keys(kind).expect("a kind")
}

/// The options a README row names: each top-level comma-separated item of the options
/// cell starts with the key in backticks (commas inside brackets belong to a default).
fn named(row: &str) -> Vec<String> {
    let cell = row.split(" | ").nth(1).unwrap_or_default();
    let mut items = vec![String::new()];
    let mut depth = 0;
    for c in cell.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(String::new());
                continue;
            }
            _ => {}
        }
        items.last_mut().unwrap().push(c);
    }
    items
        .iter()
        .filter_map(|item| {
            let rest = item.trim().strip_prefix('`')?;
            Some(rest.split('`').next()?.to_string())
        })
        .collect()
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
            // The preamble: documented once above the table.
            if key == "prompt" || key == "caption" || key == "scale" {
                continue;
            }

            assert!(
                row.contains(&format!("`{key}`")),
                "README row of `{kind}` does not name its option `{key}`"
            );
        }
    }
}

#[test]
fn every_option_in_a_readme_row_is_one_its_kind_accepts() {
    for kind in crate::kinds() {
        let accepted = accepted(kind);
        for key in named(row(kind).unwrap_or_default()) {
            assert!(
                accepted.contains(&key.as_str()),
                "README row of `{kind}` names `{key}`, which `{kind}` does not accept ({accepted:?})"
            );
        }
    }
    assert_eq!(
        named("| `x` | `a` [1, 2], `b` = `q` \\| `k`, `c` (required) | d |"),
        ["a", "b", "c"]
    );
}

#[test]
fn the_kinds_with_a_shared_scale_are_the_ones_listed() {
    let start = README
        .find("Kinds with `scale`:")
        .expect("a sentence \"Kinds with `scale`: ...\"");
    let sentence = &README[start..];
    let sentence = &sentence[..sentence.find(". ").unwrap_or(sentence.len())];
    let listed: Vec<&str> = sentence.split('`').skip(3).step_by(2).collect();
    assert_eq!(listed, crate::scaled_kinds(), "{sentence}");
}
