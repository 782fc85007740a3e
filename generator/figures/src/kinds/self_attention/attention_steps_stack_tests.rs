//! Tests of `figure attention-steps` with `stack` on the synthetic encoder-decoder trace,
//! whose self-attention rows are a softmax of known scores (see `test_seq2seq::self_row`),
//! given values and outputs here.

use super::render;
use crate::format::signed;
use crate::svg::Font;
use crate::testing::test_seq2seq::{self_row, self_score, seq2seq_trace, SOURCE, WRITTEN};
use crate::testing::test_svg::{all_texts, groups_texts, parse, text_of, texts_in};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::token_text::Shown;
use crate::{Figure, FigureError};
use tracebook_trace::Trace;

/// Each head's width: the synthetic model's 8 dimensions over 2 heads.
const DH: usize = 4;

/// Dimension `d` of key `k`'s value in `layer`, `head` of the encoder or the decoder.
fn value(decoder: bool, layer: usize, head: usize, k: usize, d: usize) -> f64 {
    let i = k * 7 + d * 3 + head * 5 + layer * 2 + usize::from(decoder);
    (i % 11) as f64 / 5.0 - 1.0
}

/// Dimension `d` of the output of query `q`: the weighted sum of the values.
fn output(decoder: bool, layer: usize, head: usize, q: usize, d: usize) -> f64 {
    let row = self_row(decoder, layer, head, q);
    let weighted = row.iter().enumerate();
    weighted
        .map(|(k, w)| w * value(decoder, layer, head, k, d))
        .sum()
}

/// The seq2seq trace with both stacks' self-attention values and outputs.
fn trace() -> Trace {
    let mut trace = seq2seq_trace();
    for (decoder, n, prefix) in [
        (false, SOURCE.len(), "encoder.blocks.{}.attn"),
        (true, WRITTEN.len(), "decoder.blocks.{}.self_attn"),
    ] {
        for layer in 0..2 {
            let name = prefix.replace("{}", &layer.to_string());
            let cells = |h: usize| (0..n).flat_map(move |t| (0..DH).map(move |d| (h, t, d)));
            let all = || (0..2).flat_map(cells);
            let v: Vec<f32> = all()
                .map(|(h, k, d)| value(decoder, layer, h, k, d) as f32)
                .collect();
            let z: Vec<f32> = all()
                .map(|(h, q, d)| output(decoder, layer, h, q, d) as f32)
                .collect();
            let shape = vec![2, n, DH];
            trace
                .insert(&format!("{name}.v"), shape.clone(), &v)
                .unwrap();
            trace.insert(&format!("{name}.z"), shape, &z).unwrap();
        }
    }
    trace
}

fn draw_from(trace: Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

fn draw(body: &str) -> Result<Figure, FigureError> {
    draw_from(trace(), body)
}

/// The numbers of each table row, in column order.
fn rows(figure: &Figure) -> Vec<Vec<String>> {
    let doc = parse(&figure.svg);
    let numbers = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("g")
                && n.attribute("class") == Some("tbf-s")
                && n.attribute("text-anchor") == Some("end")
        })
        .unwrap();
    let row = |r: roxmltree::Node| {
        r.children()
            .filter(|n| n.has_tag_name("text"))
            .map(text_of)
            .collect()
    };
    numbers
        .children()
        .filter(|n| n.has_tag_name("g"))
        .map(row)
        .collect()
}

/// The expected rows of query `q` over `keys` keys.
fn expected(
    decoder: bool,
    (layer, head): (usize, usize),
    q: usize,
    keys: usize,
) -> Vec<Vec<String>> {
    let weights = self_row(decoder, layer, head, q);
    (0..keys)
        .map(|k| {
            let s = self_score(decoder, layer, head, q, k);
            let w = weights[k];
            vec![
                signed(s * 2.0, 2),
                signed(s, 2),
                format!("{w:.3}"),
                signed(w * value(decoder, layer, head, k, 0), 3),
                signed(w * value(decoder, layer, head, k, 1), 3),
            ]
        })
        .collect()
}

/// The sums of the weight and value columns of `table`, as the table prints them: the sums
/// of the numbers as printed.
fn printed_sums(table: &[Vec<String>]) -> Vec<String> {
    (2..5)
        .map(|c| {
            let thousandths: i64 = table
                .iter()
                .map(|row| (row[c].replace('−', "-").parse::<f64>().unwrap() * 1000.0).round())
                .map(|t| t as i64)
                .sum();
            signed(thousandths as f64 / 1000.0, 3)
        })
        .collect()
}

/// The key labels of `texts`, as the table fits them.
fn shown(texts: &[&str]) -> Vec<String> {
    let fit = |t: &&str| Shown::fit(t, 64.0, Font::Mono, 12.0).text();
    texts.iter().map(fit).collect()
}

#[test]
fn an_encoder_query_looks_at_every_source_token() {
    let figure = draw("stack = \"encoder\"\nlayer = 1\nhead = 0\ntoken = 1").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), shown(&SOURCE));
    let table = rows(&figure);
    assert_eq!(table.len(), SOURCE.len(), "keys after the query too");
    assert_eq!(table, expected(false, (1, 0), 1, SOURCE.len()));
    let sums = groups_texts(&figure.svg, "tbf-s tbf-b").pop().unwrap();
    assert_eq!(sums[1..], printed_sums(&table)[..]);
    let traced: Vec<String> = (0..2)
        .map(|d| signed(output(false, 1, 0, 1, d), 3))
        .collect();
    let texts = all_texts(&figure.svg);
    let note = format!("(traced: {})", traced.join(", "));
    assert!(texts.iter().any(|t| t.ends_with(&note)), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("query ·open (token 1) · encoder layer 1, head 0")),
        "{texts:?}"
    );
    assert!(figure
        .svg
        .contains(">Attention step by step: encoder layer 1, head 0</title>"));
    assert!(figure
        .alt
        .contains("the query \" open\" (token 1) in encoder layer 1, head 0"));
}

#[test]
fn a_decoder_query_looks_at_the_positions_up_to_it() {
    let figure = draw("stack = \"decoder\"\nlayer = 0\nhead = 1\ntoken = 2").unwrap();
    let read = ["<pad>", "impossible", " d'ouvrir"];
    assert_eq!(texts_in(&figure.svg, "tbf-m"), shown(&read));
    assert_eq!(rows(&figure), expected(true, (0, 1), 2, 3));
    // The default query is the last position the decoder read.
    let figure = draw("stack = \"decoder\"\nlayer = 1\nhead = 0").unwrap();
    assert_eq!(rows(&figure), expected(true, (1, 0), 4, 5));
    assert!(figure
        .alt
        .contains("the query \" fichier\" (token 4) in decoder layer 1"));
    let sums = groups_texts(&figure.svg, "tbf-s tbf-b").pop().unwrap();
    assert_eq!(sums[1..], printed_sums(&rows(&figure))[..]);
    let traced = signed(output(true, 1, 0, 4, 0), 3);
    assert!(figure.svg.contains(&format!("(traced: {traced}, ")));
}

#[test]
fn stack_layer_head_and_token_are_checked_against_the_stack() {
    let error = draw("layer = 0\nhead = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(error
        .message
        .contains("figure `attention-steps` needs `stack`"));
    let error = draw_from(
        trace_of(&[10, 11]),
        "stack = \"decoder\"\nlayer = 0\nhead = 0",
    )
    .unwrap_err();
    assert_eq!(error.key.as_deref(), Some("stack"));
    assert!(error.hint.unwrap().contains("leave `stack` out"));

    let error = draw("stack = \"encoder\"\nlayer = 2\nhead = 0").unwrap_err();
    assert_eq!(
        error.message,
        "layer = 2 is out of range: the encoder has 2 layers"
    );
    let error = draw("stack = \"decoder\"\nlayer = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("head"));

    let error = draw("stack = \"encoder\"\nlayer = 0\nhead = 0\ntoken = 4").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("token"));
    assert_eq!(
        error.message,
        "token = 4 is out of range: the encoder reads 4 source tokens"
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("use 0 to 3 from the start, or -1 to -4 from the end")
    );
    let error = draw("stack = \"decoder\"\nlayer = 0\nhead = 0\ntoken = -6").unwrap_err();
    assert_eq!(
        error.message,
        "token = -6 is out of range: the decoder read 5 tokens"
    );
    assert!(draw("stack = \"decoder\"\nlayer = 0\nhead = 0\ntoken = -5").is_ok());
}
