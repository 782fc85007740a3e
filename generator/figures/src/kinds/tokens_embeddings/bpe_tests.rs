//! Tests of `figure bpe` on synthetic traces whose merges are known (`toy_merges`).

use super::render;
use crate::testing::test_svg::{groups_texts, text_spans, TextSpan};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::{Merge, WordMerges};

/// " un" + "believ" + "able" after "The": two words, the second cut into three tokens.
fn traces() -> TestTraces {
    TestTraces::with("robots", trace_of(&[10, 14, 15, 16]))
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    render(&options(&format!("prompt = \"robots\"\n{body}")), &traces())
}

/// The texts of the boxes, row by row (the `tbf-m` group holds them in drawing order).
fn box_texts(figure: &Figure) -> Vec<String> {
    groups_texts(&figure.svg, "tbf-m").concat()
}

#[test]
fn the_default_word_is_the_one_cut_into_the_most_tokens() {
    let figure = draw("").unwrap();
    assert!(
        figure
            .svg
            .contains("Byte-pair encoding of \" unbelievable\""),
        "{}",
        figure.svg
    );
    assert!(
        figure.alt.contains("13 bytes joined by 10 merges"),
        "{}",
        figure.alt
    );
    assert!(figure
        .alt
        .ends_with("3 tokens: \" un\" (14), \"believ\" (15), \"able\" (16)."));
}

#[test]
fn each_row_joins_one_pair_and_the_last_row_is_the_tokens() {
    let figure = draw("word = \"unbelievable\"").unwrap();
    let texts = box_texts(&figure);
    // 13 bytes, then 12, 11, ... down to 3 parts: one part fewer per merge.
    let rows: usize = (3..=13).sum();
    assert_eq!(texts.len(), rows);
    assert_eq!(&texts[..2], ["·", "u"]);
    assert_eq!(&texts[rows - 3..], ["·un", "believ", "able"]);
    let ids = groups_texts(&figure.svg, "tbf-s tbf-b").concat();
    assert_eq!(ids, ["id 14", "id 15", "id 16"]);
    // The rank column lists every merge's rule, in the order applied ("The" took 10, 20).
    let ranks: Vec<String> = (3..=12).map(|i| (i * 10).to_string()).collect();
    let at: Vec<usize> = ranks
        .iter()
        .map(|r| figure.svg.find(&format!(">{r}</text>")).expect("a rank"))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
}

#[test]
fn bytes_that_are_not_whole_characters_show_in_hex() {
    let mut trace = trace_of(&[10, 24]);
    // " 日本": a space and two 3-byte characters, joined byte by byte from the left.
    let word = &mut trace.meta.merges[1];
    assert_eq!(word.bytes.len(), 7);
    let figure = {
        let traces = TestTraces::with("robots", trace);
        render(&options("prompt = \"robots\"\nword = \"日本\""), &traces).unwrap()
    };
    let texts = box_texts(&figure);
    assert_eq!(&texts[..3], ["·", "e6", "97"]);
    assert_eq!(texts.last().unwrap(), "·日本");
}

#[test]
fn errors_name_the_word_and_the_missing_merges() {
    let error = draw("word = \"unbeleivable\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("word"));
    let hint = error.hint.unwrap();
    assert!(hint.contains("did you mean `unbelievable`?"), "{hint}");
    assert!(hint.contains("\"The\", \"unbelievable\""), "{hint}");

    let mut trace = trace_of(&[10, 11]);
    trace.meta.merges.clear();
    let traces = TestTraces::with("robots", trace);
    let error = render(&options("prompt = \"robots\""), &traces).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(error
        .hint
        .unwrap()
        .contains("tracebook trace --only robots --force"));

    let mut trace = trace_of(&[10, 11]);
    trace.meta.merges[1] = WordMerges {
        merges: vec![Merge {
            at: 9,
            id: 1,
            rank: 1,
        }],
        ..trace.meta.merges[1].clone()
    };
    let traces = TestTraces::with("robots", trace);
    let error = render(&options("prompt = \"robots\"\nword = \"robots\""), &traces).unwrap_err();
    assert!(
        error.message.contains("joins parts that are not there"),
        "{}",
        error.message
    );
}

/// The id labels under the last row (its bold small text), where they are drawn: those
/// whose text is the group's, below the rows of boxes.
fn id_spans(figure: &Figure) -> Vec<TextSpan> {
    let ids = groups_texts(&figure.svg, "tbf-s tbf-b").concat();
    let spans = text_spans(&figure.svg);
    let first = spans.iter().find(|s| s.text == ids[0]).unwrap().y;
    spans
        .into_iter()
        .filter(|s| s.y >= first && ids.contains(&s.text))
        .collect()
}

/// Whether two labels on one line touch.
fn touch(a: &TextSpan, b: &TextSpan) -> bool {
    a.y == b.y && a.left < b.right && b.left < a.right
}

#[test]
fn ids_wider_than_their_tokens_move_to_lines_of_their_own_and_never_overlap() {
    // " unbelievable" left as its bytes but for " u": twelve one-character tokens under
    // four-digit ids, each id far wider than its box.
    let mut trace = trace_of(&[10, 14, 15, 16]);
    let word = &mut trace.meta.merges[1];
    word.bytes = (0..13).map(|i| 3100 + 7 * i).collect();
    word.merges = vec![Merge {
        at: 0,
        id: 3110,
        rank: 1,
    }];
    let traces = TestTraces::with("robots", trace);
    let figure = render(&options("prompt = \"robots\""), &traces).unwrap();
    let ids = id_spans(&figure);
    assert_eq!(ids.len(), 12);
    // The first says what the numbers are; the rest are the bare ids, each whole.
    assert_eq!(ids[0].text, "id 3110");
    let rest: Vec<String> = (2..13).map(|i| (3100 + 7 * i).to_string()).collect();
    assert_eq!(
        ids[1..].iter().map(|s| &s.text).collect::<Vec<_>>(),
        rest.iter().collect::<Vec<_>>()
    );
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            assert!(!touch(a, b), "{a:?} overlaps {b:?}");
        }
    }
    // Each id stays centred under its own box, left to right.
    let centres: Vec<f64> = ids.iter().map(|s| (s.left + s.right) / 2.0).collect();
    assert!(centres.windows(2).all(|w| w[0] < w[1]), "{centres:?}");
    // The note goes below the lowest line of ids.
    let lowest = ids.iter().map(|s| s.y).fold(0.0, f64::max);
    assert!(lowest > ids[0].y, "the ids take more than one line");
    let note = text_spans(&figure.svg)
        .into_iter()
        .find(|s| s.text.starts_with("13 bytes"))
        .unwrap();
    assert!(note.y > lowest + 12.0, "{note:?} under {lowest}");
}

#[test]
fn ids_that_fit_under_their_tokens_stay_on_one_line() {
    let ids = id_spans(&draw("").unwrap());
    let texts: Vec<&str> = ids.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["id 14", "id 15", "id 16"]);
    assert!(ids.iter().all(|s| s.y == ids[0].y), "{ids:?}");
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}
