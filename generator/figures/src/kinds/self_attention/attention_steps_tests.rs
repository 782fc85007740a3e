//! Tests of `figure attention-steps`: the table's numbers against the closed-form scores
//! and patterns of the synthetic traces.

use super::{render, table_rows, Derived, Step, Table, Worked};
use crate::format::signed;
use crate::testing::test_forward::value;
use crate::testing::test_svg::{all_texts, groups_texts, parse, text_of, texts_in};
use crate::testing::test_traces::{options, pattern_row, score, trace_of, trace_with, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::Precision;

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(ids));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

/// The numbers of each table row, in column order.
fn rows(figure: &Figure) -> Vec<Vec<String>> {
    // The numbers: the first small-text group anchored at the end, a group per row.
    let doc = parse(&figure.svg);
    let numbers = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("g")
                && n.attribute("class") == Some("tbf-s")
                && n.attribute("text-anchor") == Some("end")
        })
        .unwrap();
    numbers
        .children()
        .filter(|n| n.has_tag_name("g"))
        .map(|row| {
            row.children()
                .filter(|n| n.has_tag_name("text"))
                .map(text_of)
                .collect()
        })
        .collect()
}

#[test]
fn every_key_gets_its_score_weight_and_weighted_value() {
    let figure = draw(&ROBOTS, "layer = 1\nhead = 1\ntoken = 2").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), ["The", "·robots", "·will"]);
    let weights = pattern_row(1, 1, 2);
    let table = rows(&figure);
    assert_eq!(table.len(), 3);
    for (k, row) in table.iter().enumerate() {
        let s = f64::from(score(1, 1, 2, k));
        let v = value(1, 1, k);
        let expected = [
            signed(s * 2.0, 2),
            signed(s, 2),
            format!("{:.3}", weights[k]),
            signed(weights[k] * v[0], 3),
            signed(weights[k] * v[1], 3),
        ];
        assert_eq!(row[..], expected[..], "key {k}");
    }
}

/// The sum of numbers printed with three decimals, in thousandths.
fn thousandths(texts: &[String]) -> i64 {
    texts
        .iter()
        .map(|t| (t.replace('−', "-").parse::<f64>().unwrap() * 1000.0).round() as i64)
        .sum()
}

#[test]
fn each_sum_is_its_column_as_printed_beside_the_traced_output() {
    let trace = trace_of(&ROBOTS);
    let z = trace.tensor("blocks.0.attn.z").unwrap();
    let figure = draw(&ROBOTS, "layer = 0\nhead = 1\ndims = 3").unwrap();
    let sums = groups_texts(&figure.svg, "tbf-s tbf-b").pop().unwrap();
    let table = rows(&figure);
    assert_eq!(sums[0], "sum");
    // Columns: q·k, score, weight, then weight × v[0..3].
    for (c, sum) in sums[1..].iter().enumerate() {
        let column: Vec<String> = table.iter().map(|row| row[c + 2].clone()).collect();
        assert_eq!(
            *sum,
            signed(thousandths(&column) as f64 / 1000.0, 3),
            "column {c}"
        );
    }
    // Head 1, query 3: z[1][3][..3], traced, in the note.
    let offset = (4 + 3) * 4;
    let traced: Vec<String> = (0..3)
        .map(|i| signed(f64::from(z.data[offset + i]), 3))
        .collect();
    let texts = all_texts(&figure.svg);
    assert!(texts.iter().any(|t| t == "× v[2]"));
    let note = format!("(traced: {})", traced.join(", "));
    assert!(texts.iter().any(|t| t.ends_with(&note)), "{texts:?}");
    assert!(figure.relations.iter().all(|r| r.check().is_ok()));
}

/// attention.html's figure 4 printed a ×v[1] column summing to 0.558 over a total of 0.557 (the
/// sum of the unrounded terms): the total is now the sum of the terms as printed, and where
/// that differs from the traced z the note says "≈".
#[test]
fn a_total_is_the_sum_of_its_terms_as_printed() {
    let worked = Worked {
        steps: [0.1506, 0.1506, 0.2558]
            .iter()
            .enumerate()
            .map(|(k, w)| Step {
                key: Some(k),
                label: crate::token_text::Shown::plain(k.to_string()),
                score: 0.0,
                weight: 1.0 / 3.0,
                weighted: vec![*w],
            })
            .collect(),
        root_dh: 2.0,
        z: vec![0.557],
    };
    let table = Table::of(&worked, 1);
    assert_eq!(table.sums, ["0.999", "0.558"]);
    assert_eq!(table.traced, ["0.557"]);
    let mut body = Vec::new();
    table_rows(&worked, &table, false, &mut body);
    let svg: String = body.iter().map(|e| e.render()).collect();
    assert!(
        svg.contains("sum ≈ this head's output z (traced: 0.557)"),
        "{svg}"
    );
    let derived = Derived {
        softmax: true,
        z: true,
    };
    for relation in table.relations("2.00", derived) {
        assert!(relation.check().is_ok(), "{relation:?}");
    }
}

#[test]
fn many_keys_fold_the_lightest_into_one_row() {
    let ids: Vec<u32> = (0..20).collect();
    let figure = draw(&ids, "layer = 0\nhead = 0").unwrap();
    let labels = texts_in(&figure.svg, "tbf-m");
    assert_eq!(labels.len(), 12);
    assert_eq!(labels[11], "9 more");
    let weights = pattern_row(0, 0, 19);
    let mut order: Vec<usize> = (0..20).collect();
    order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]));
    let folded: f64 = order[11..].iter().map(|&k| weights[k]).sum();
    let table = rows(&figure);
    assert_eq!(table[11][0], format!("{folded:.3}"));
    // The folded row has no q·k or score: its weight is the third number from the end.
    let printed: Vec<String> = table.iter().map(|row| row[row.len() - 3].clone()).collect();
    let sums = groups_texts(&figure.svg, "tbf-s tbf-b").pop().unwrap();
    assert_eq!(
        sums[1],
        format!("{:.3}", thousandths(&printed) as f64 / 1000.0)
    );
    assert!((thousandths(&printed) - 1000).abs() <= 12, "{printed:?}");
    assert!(figure.relations.iter().all(|r| r.check().is_ok()));
}

#[test]
fn compact_traces_still_sum_to_one() {
    let traces = TestTraces::with("p", trace_with(&ROBOTS, Precision::Compact));
    let figure = render(&options("prompt = \"p\"\nlayer = 1\nhead = 0"), &traces).unwrap();
    let sums = groups_texts(&figure.svg, "tbf-s tbf-b").pop().unwrap();
    let total: f64 = sums[1].parse().unwrap();
    assert!((total - 1.0).abs() <= 4.0 * 0.002, "{total}");
    assert!(figure.svg.contains("stores each weight to within ±0.002"));
}

#[test]
fn alt_text_walks_through_the_steps_and_names_the_top_key() {
    let figure = draw(&ROBOTS, "layer = 1\nhead = 1").unwrap();
    let weights = pattern_row(1, 1, 3);
    let top = (0..4)
        .max_by(|&a, &b| weights[a].total_cmp(&weights[b]))
        .unwrap();
    assert!(
        figure.alt.contains("divided by √dₕ = 2.00"),
        "{}",
        figure.alt
    );
    let expected = format!("The most weight, {:.3}, goes to", weights[top]);
    assert!(figure.alt.contains(&expected), "{}", figure.alt);
    assert!(figure.alt.contains(&format!("(token {top}, score")));
}

#[test]
fn options_are_checked() {
    assert_eq!(
        draw(&ROBOTS, "layer = 0").unwrap_err().key.as_deref(),
        Some("head")
    );
    let error = draw(&ROBOTS, "layer = 0\nhead = 0\ndims = 4").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("dims"));
    let error = draw(&ROBOTS, "layer = 0\nhead = 0\ntoken = -5").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("token"));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(&ROBOTS, "layer = 1\nhead = 1").unwrap().svg);
}

#[test]
fn the_folded_row_label_stays_in_the_figure_however_many_keys_it_folds() {
    for n in [25, 120] {
        let ids: Vec<u32> = (0..n).map(|i| i % 20).collect();
        let figure = draw(&ids, "layer = 0\nhead = 0").unwrap();
        let labels = texts_in(&figure.svg, "tbf-m");
        assert_eq!(labels[11], format!("{} more", n - 11), "{n} keys");
        assert_eq!(
            crate::testing::test_svg::texts_outside(&figure.svg),
            [],
            "{n} keys"
        );
    }
}
