//! Tests of `figure gqa` on the tiny Llama trace (4 query heads, 2 key/value heads of 8, 2
//! layers), on a trace of Llama-3.2-1B's sizes and on GPT-2's (no grouping).

use super::render;
use crate::testing::test_llama::llama_trace;
use crate::testing::test_svg::{all_texts, parse};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::Trace;

fn draw(trace: Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces)
}

/// The tiny Llama trace resized to Llama-3.2-1B: 16 layers, 32 query heads, 8 key/value
/// heads of 64, with layer 0's q and k of those shapes.
fn one_b() -> Trace {
    let mut trace = Trace::new(llama_trace().meta);
    let config = &mut trace.meta.model.config;
    (config.n_layer, config.n_head, config.n_kv_head) = (16, 32, Some(8));
    (config.head_dim, config.n_embd) = (Some(64), 2048);
    let n = trace.meta.tokens.len();
    for (name, heads) in [("q", 32), ("k", 8)] {
        let data = vec![0.5f32; heads * n * 64];
        trace
            .insert(&format!("blocks.0.attn.{name}"), vec![heads, n, 64], &data)
            .unwrap();
    }
    trace
}

#[test]
fn query_heads_are_drawn_over_the_key_value_head_they_share() {
    let figure = draw(llama_trace(), "").unwrap();
    let texts = all_texts(&figure.svg);
    assert_eq!(texts[0], "4 query heads share 2 key/value heads, 2 to each");
    let chips: Vec<&str> = texts[2..8].iter().map(String::as_str).collect();
    assert_eq!(chips, ["0", "1", "kv 0", "2", "3", "kv 1"]);
    assert!(
        texts[1].contains("q 4 × 4 × 8, k and v 2 × 4 × 8"),
        "{}",
        texts[1]
    );
}

#[test]
fn the_cache_is_counted_with_and_without_sharing() {
    let figure = draw(llama_trace(), "context = 1024").unwrap();
    let texts = all_texts(&figure.svg).join("\n");
    // 2 × 2 layers × 2 k/v heads × 8 = 64 numbers a token, 128 bytes at f16.
    assert!(
        texts.contains("2 × 2 layers × 2 k/v heads × 8 = 64 a token (128 bytes)"),
        "{texts}"
    );
    assert!(texts.contains("× 4 = 128 a token (256 bytes)"), "{texts}");
    assert!(
        texts.contains("2× less: 128 KiB instead of 256 KiB at 1,024 tokens; 512 bytes instead of 1 KiB for this prompt's 4 tokens."),
        "{texts}"
    );
    let longer = draw(llama_trace(), "context = 8192").unwrap();
    assert!(
        longer
            .alt
            .contains("1 MiB instead of 2 MiB at 8,192 tokens"),
        "{}",
        longer.alt
    );
}

#[test]
fn llama_3_2_1b_fits_a_phone_with_every_head() {
    let figure = draw(one_b(), "context = 1024").unwrap();
    let texts = all_texts(&figure.svg);
    let heads: Vec<String> = (0..32).map(|h| h.to_string()).collect();
    for h in &heads {
        assert!(texts.contains(h), "query head {h}");
    }
    for g in 0..8 {
        assert!(texts.contains(&format!("kv {g}")));
    }
    assert!(
        figure
            .alt
            .contains("32 MiB instead of 128 MiB at 1,024 tokens"),
        "{}",
        figure.alt
    );
    // 2 × 16 layers × 8 heads × 64 numbers a token.
    assert!(
        figure
            .alt
            .contains("16,384 numbers a token (32 KiB at f16)"),
        "{}",
        figure.alt
    );
    let doc = parse(&figure.svg);
    for rect in doc.descendants().filter(|n| n.has_tag_name("rect")) {
        let right: f64 = rect.attribute("x").unwrap().parse::<f64>().unwrap()
            + rect.attribute("width").unwrap().parse::<f64>().unwrap();
        assert!(right <= 376.0 + 1e-9, "a box ends at {right}");
    }
}

#[test]
fn gpt2_draws_every_head_with_its_own_key_and_value() {
    let figure = draw(tiny_trace(), "layer = 1").unwrap();
    let texts = all_texts(&figure.svg);
    assert_eq!(texts[0], "2 query heads, each with its own key and value");
    assert!(
        figure.alt.contains("Nothing shared, nothing saved"),
        "{}",
        figure.alt
    );
}

#[test]
fn a_trace_whose_keys_are_not_grouped_as_its_config_says_is_an_error() {
    let mut trace = llama_trace();
    trace.meta.model.config.n_kv_head = Some(4);
    let error = draw(trace, "").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert!(
        error.message.contains("`blocks.0.attn.k`"),
        "{}",
        error.message
    );
    let error = draw(llama_trace(), "layer = 2").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layer"));
}

/// Without `context`, the cache is sized for the model's own context length (the test
/// trace's 64 tokens), not for a length the model never reads.
#[test]
fn the_cache_is_sized_for_the_model_s_context_unless_told() {
    let trace = llama_trace();
    assert_eq!(trace.meta.model.config.n_positions, 64);
    let texts = all_texts(&draw(trace, "").unwrap().svg).join("\n");
    assert!(texts.contains("at 64 tokens"), "{texts}");
    assert!(!texts.contains("1,024"), "{texts}");
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(llama_trace(), "").unwrap().svg);
}
