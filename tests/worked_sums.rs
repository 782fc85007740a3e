//! Every worked sum of the example site adds up as printed: the test builds the site and
//! re-adds the terms a reader sees on each page (`{{ sum ... }}`, rendered as `a + b = c`).

#[path = "support/cli.rs"]
mod cli;

use std::path::Path;

/// The text of every `<span class="... tb-sum" ...>TEXT</span>` in `html`.
fn sums(html: &str) -> Vec<String> {
    html.split("tb-sum\"")
        .skip(1)
        .map(|rest| {
            let rest = &rest[rest.find('>').unwrap() + 1..];
            rest[..rest.find("</span>").unwrap()].to_string()
        })
        .collect()
}

/// A printed number in units of its last decimal, with its number of decimals.
fn units(text: &str) -> (i64, usize) {
    let decimals = text.find('.').map_or(0, |dot| text.len() - dot - 1);
    (text.replace('.', "").parse().unwrap(), decimals)
}

/// Re-adds `a + b − c = t` as printed; returns an error describing a mismatch.
fn adds_up(sum: &str) -> Result<(), String> {
    let (terms, total) = sum
        .split_once(" = ")
        .ok_or(format!("no total in {sum:?}"))?;
    let mut tokens = terms.replace(" + ", " +").replace(" − ", " −");
    if !tokens.starts_with('−') {
        tokens.insert(0, '+');
    }
    let mut added = 0i64;
    let mut places = None;
    for term in tokens.split(' ') {
        let (negative, digits) = match term.strip_prefix('−') {
            Some(rest) => (true, rest),
            None => (
                false,
                term.strip_prefix('+').ok_or(format!("bad term {term:?}"))?,
            ),
        };
        let (value, decimals) = units(digits);
        if *places.get_or_insert(decimals) != decimals {
            return Err(format!("{sum:?}: terms printed with different decimals"));
        }
        added += if negative { -value } else { value };
    }
    let (total, decimals) = match total.strip_prefix('−') {
        Some(rest) => {
            let (v, d) = units(rest);
            (-v, d)
        }
        None => units(total),
    };
    if Some(decimals) != places || total != added {
        return Err(format!(
            "{sum:?}: the printed terms add up to {added} units, not {total}"
        ));
    }
    Ok(())
}

#[test]
fn the_rule_catches_a_sum_that_does_not_add_up() {
    assert!(adds_up("−0.0213 + 0.0659 = 0.0446").is_ok());
    assert!(adds_up("1.23 − 0.50 = 0.73").is_ok());
    assert!(adds_up("−3.00 − 4.50 = −7.50").is_ok());
    assert!(adds_up("0.02134 + 0.0659 = 0.0872").is_err());
    assert!(adds_up("−0.0213 + 0.0659 = 0.0452").is_err());
}

#[test]
fn every_worked_sum_of_the_example_site_adds_up_as_printed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let output = cli::command(out.path())
        .arg("--root")
        .arg(root)
        .args(["build", "--out", public.to_str().unwrap()])
        .output()
        .unwrap();
    cli::ok(&output, "build of the example site");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(&public).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "html") {
            let html = std::fs::read_to_string(&path).unwrap();
            for sum in sums(&html) {
                if let Err(problem) = adds_up(&sum) {
                    panic!("{}: {problem}", path.display());
                }
                checked.push(sum);
            }
        }
    }
    // The embeddings sum, the attention step's addition (heads) and the MLP's (residual).
    assert!(checked.len() >= 3, "worked sums found: {checked:?}");
}
