//! Tests of `figure residual` on the synthetic forward pass.

use super::render;
use crate::format::short;
use crate::strip::norm;
use crate::svg::Ramp;
use crate::testing::test_svg::{all_texts, cells, parse, texts_in};
use crate::testing::test_traces::{options, tiny_trace, trace_of, TestTraces};
use crate::{Figure, FigureError};

const ROBOTS: [u32; 4] = [10, 11, 12, 13];

fn draw(ids: &[u32], body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace_of(ids));
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

fn length(ids: &[u32], name: &str, t: usize) -> f64 {
    let tensor = trace_of(ids).tensor(name).unwrap();
    let row: Vec<f64> = tensor.data[t * 8..(t + 1) * 8]
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    norm(&row)
}

#[test]
fn the_heatmap_colours_each_tokens_length_after_each_stage_on_a_log_scale() {
    let figure = draw(&ROBOTS, "").unwrap();
    let stages = [
        "blocks.0.resid_pre",
        "blocks.0.resid_post",
        "blocks.1.resid_post",
    ];
    let lengths: Vec<Vec<f64>> = (0..4)
        .map(|t| stages.iter().map(|s| length(&ROBOTS, s, t)).collect())
        .collect();
    let all = lengths.iter().flatten();
    let lo = all.clone().fold(f64::INFINITY, |m, &v| m.min(v));
    let hi = all.fold(0.0f64, |m, &v| m.max(v));
    let ramp = Ramp::unit();
    let expected: Vec<String> = lengths
        .iter()
        .flatten()
        .map(|&v| ramp.class(ramp.bin_of_unit((v / lo).ln() / (hi / lo).ln())))
        .collect();
    let columns = texts_in(&figure.svg, "tbf-m");
    assert_eq!(columns, ["The", "·robots", "·will", "·bring"]);
    // Cells are squares one unit apart; read them back row by row.
    let drawn = cells(&figure.svg, "tbf-u", 1.0);
    assert!(!drawn.is_empty());
    let mut classes: Vec<String> = Vec::new();
    let mut last: Option<(f64, f64)> = None;
    for cell in drawn {
        let starts_cell = last.is_none_or(|(x, y)| y != cell.y || cell.x - x > 1.5);
        if starts_cell {
            classes.push(cell.class.clone());
        }
        last = Some((cell.x, cell.y));
    }
    assert_eq!(classes, expected);
}

#[test]
fn each_blocks_attention_and_mlp_contributions_are_listed() {
    let figure = draw(&ROBOTS, "token = 2").unwrap();
    let texts = all_texts(&figure.svg);
    for layer in 0..2 {
        let a = length(&ROBOTS, &format!("blocks.{layer}.attn_out"), 2);
        let m = length(&ROBOTS, &format!("blocks.{layer}.mlp_out"), 2);
        let pair = format!("{} · {}", short(a), short(m));
        assert!(texts.contains(&pair), "{pair} in {texts:?}");
    }
    assert!(texts
        .iter()
        .any(|t| t.starts_with("what each layer adds to ·will (token 2)")));
    assert!(
        figure.alt.contains("For \" will\" (token 2) it goes from"),
        "{}",
        figure.alt
    );
}

#[test]
fn tokens_limits_the_rows() {
    let ids: Vec<u32> = (0..10).collect();
    let figure = draw(&ids, "tokens = 3").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m").len(), 3);
    assert_eq!(
        draw(&ids, "tokens = 17").unwrap_err().key.as_deref(),
        Some("tokens")
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(&ROBOTS, "").unwrap().svg);
}

/// A trace of `ids` from a model of `layers` layers: the synthetic trace's two layers, and
/// copies of them for the rest.
fn deep(ids: &[u32], layers: usize) -> tracebook_trace::Trace {
    let mut trace = trace_of(ids);
    for l in 2..layers {
        for name in ["resid_post", "attn_out", "mlp_out"] {
            let from = trace.tensor(&format!("blocks.{}.{name}", l % 2)).unwrap();
            trace
                .insert(
                    &format!("blocks.{l}.{name}"),
                    from.shape.clone(),
                    &from.data,
                )
                .unwrap();
        }
    }
    trace.meta.model.config.n_layer = layers;
    trace
}

#[test]
fn a_deep_model_turns_the_heatmap_so_every_label_stays_legible() {
    let shallow = draw(&ROBOTS, "").unwrap();
    let texts = all_texts(&shallow.svg);
    assert!(texts.iter().any(|t| t == "after →"), "{texts:?}");
    // 48 layers (GPT-2 XL) and the embeddings: 49 stages, too many for legible columns.
    let traces = TestTraces::with("p", deep(&ROBOTS, 48));
    let (figure, _) = render(&options("prompt = \"p\""), &traces, None).unwrap();
    let texts = all_texts(&figure.svg);
    assert!(texts.iter().any(|t| t == "after ↓"), "stages run down");
    assert!(texts.iter().any(|t| t == "token →"), "tokens run across");
    assert!(
        texts.iter().any(|t| t == "47"),
        "the last layer has its row"
    );
    // No label of the heatmap is drawn below 12 units.
    assert!(
        !figure.svg.contains("font-size=\"6\""),
        "no shrunken labels"
    );
    let rows = texts_in(&figure.svg, "tbf-m");
    assert_eq!(rows.len(), 49, "one row per stage: {rows:?}");
    assert_eq!((rows[0].as_str(), rows[48].as_str()), ("emb", "47"));
}

#[test]
fn pickers_draw_every_rows_contributions_and_show_the_tokens_own() {
    let traces = TestTraces::with("robots", tiny_trace());
    let figure = render(
        &options("prompt = \"robots\"\ntoken = 1\npickers = true"),
        &traces,
        None,
    )
    .unwrap()
    .0;
    let doc = parse(&figure.svg);
    let panels: Vec<(&str, bool)> = doc
        .descendants()
        .filter_map(|n| {
            Some((
                n.attribute("data-tb-panel")?,
                n.attribute("display").is_none(),
            ))
        })
        .collect();
    assert_eq!(
        panels,
        [("0", false), ("1", true), ("2", false), ("3", false)]
    );
    let live = figure.live.unwrap();
    assert_eq!(
        live,
        "{\"kind\":\"panels\",\"axes\":[[\"token\",[0,1,2,3],[\"0: The\",\"1: ·robots\",\"2: ·will\",\"3: ·bring\"]]],\"start\":\"1\"}"
    );
    // Each panel names its token; the shown one is the figure without pickers, byte for byte.
    assert!(figure
        .svg
        .contains("what each layer adds to ·bring (token 3)"));
    let plain = render(&options("prompt = \"robots\"\ntoken = 1"), &traces, None)
        .unwrap()
        .0;
    assert!(plain.live.is_none());
    let own = "what each layer adds to ·robots (token 1)";
    assert!(plain.svg.contains(own) && figure.svg.contains(own));
}
