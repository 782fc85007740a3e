//! Tests of `figure architecture` on Llama-family traces (`architecture_decoder.rs`).

use super::super::architecture_decoder::DecoderParameters;
use super::render;
use crate::testing::test_llama::llama_trace;
use crate::testing::test_svg::all_texts;
use crate::testing::test_traces::{options, TestTraces};
use tracebook_trace::{DecoderBlock, ModelShape};

fn parts(tied: bool) -> DecoderBlock {
    DecoderBlock {
        intermediate_size: 352,
        tie_word_embeddings: tied,
        qkv_bias: false,
        o_bias: false,
        mlp_bias: false,
        qk_norm: false,
    }
}

/// tracebook-tiny-llama's sizes: 4 layers, width 128, 4 heads sharing 2 key/value heads of
/// 32, MLP 352, GPT-2's vocabulary, tied: 7,171,328 parameters, as `tracebook train` counts.
#[test]
fn counts_agree_with_the_trained_llama() {
    let config = ModelShape {
        n_layer: 4,
        n_head: 4,
        n_embd: 128,
        n_kv_head: Some(2),
        head_dim: Some(32),
        model_type: Some("llama".into()),
        ..ModelShape::default()
    };
    let p = DecoderParameters::of(&config, &parts(true));
    assert_eq!(p.attention, 3 * 128 * 128);
    assert_eq!(p.total, 7_171_328);
    let untied = DecoderParameters::of(&config, &parts(false));
    assert_eq!(untied.total - p.total, 50257 * 128);
    let qwen2 = DecoderBlock {
        qkv_bias: true,
        ..parts(true)
    };
    assert_eq!(
        DecoderParameters::of(&config, &qwen2).attention - p.attention,
        128 + 2 * 64,
        "q, k and v biases"
    );
}

#[test]
fn the_diagram_draws_what_the_family_has() {
    let mut trace = llama_trace();
    trace.meta.model.config.decoder = Some(DecoderBlock {
        intermediate_size: 12,
        ..parts(false)
    });
    let traces = TestTraces::with("p", trace.clone());
    let figure = render(&options("prompt = \"p\""), &traces).unwrap();
    let texts = all_texts(&figure.svg);
    for expected in [
        "RMSNorm 1",
        "final RMSNorm",
        "gated MLP: SiLU(gate) × up",
        "4 q heads, 2 k/v × 8 · 768",
        "8 → 2 × 12 → 8 · 288",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "{expected} in {texts:?}"
        );
    }
    assert!(!texts.iter().any(|t| t.contains("position embedding ·")));
    assert!(!texts.iter().any(|t| t.contains("LayerNorm")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("lm_head 8 ×")), "{texts:?}");
    assert!(
        figure
            .alt
            .contains("4 query heads sharing 2 key/value heads"),
        "{}",
        figure.alt
    );
}

#[test]
fn a_trace_without_the_decoder_part_asks_for_a_new_trace() {
    let traces = TestTraces::with("p", llama_trace());
    let error = render(&options("prompt = \"p\""), &traces).unwrap_err();
    assert!(
        error.message.contains("does not record"),
        "{}",
        error.message
    );
    assert!(error
        .hint
        .unwrap_or_default()
        .contains("tracebook trace --force --only p"));
}
