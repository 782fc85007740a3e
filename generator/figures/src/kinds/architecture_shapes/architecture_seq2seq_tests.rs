//! Tests of `figure architecture` on encoder-decoder traces (`architecture_seq2seq.rs`).

use super::super::architecture::render;
use super::Seq2SeqParameters;
use crate::testing::test_seq2seq::seq2seq_trace;
use crate::testing::test_svg::all_texts;
use crate::testing::test_traces::{options, TestTraces};
use tracebook_trace::{ModelShape, Seq2SeqShape};

fn shape(d: usize, v: usize, layers: (usize, usize), ffn: usize, positions: &str) -> ModelShape {
    ModelShape {
        n_layer: layers.1,
        n_head: 4,
        n_embd: d,
        n_positions: if positions == "learned" { 1024 } else { 512 },
        vocab_size: v,
        model_type: Some(
            if positions == "learned" {
                "bart"
            } else {
                "marian"
            }
            .into(),
        ),
        seq2seq: Some(Seq2SeqShape {
            encoder_layers: layers.0,
            encoder_heads: 4,
            encoder_ffn_dim: ffn,
            decoder_ffn_dim: ffn,
            positions: positions.into(),
            scale_embedding: Some(positions != "learned"),
            tie_word_embeddings: Some(true),
        }),
        ..ModelShape::default()
    }
}

/// models/tracebook-tiny-en-fr: 3 + 3 layers, width 128, MLP 512, a vocabulary of 4,096,
/// tied: 1,916,928 parameters, as `tracebook train` counted them (its card).
#[test]
fn counts_agree_with_the_trained_translation_model() {
    let config = shape(128, 4096, (3, 3), 512, "sinusoidal");
    let p = Seq2SeqParameters::of(&config, config.seq2seq.as_ref().unwrap(), true);
    assert_eq!(p.total, 1_916_928);
    assert_eq!(p.embedding, 524_288);
    assert_eq!(p.positions, 0);
    assert_eq!(p.encoder_layer, 198_272);
    assert_eq!(p.decoder_layer, 264_576);
}

/// facebook/bart-base: transformers' `num_parameters()` is 139,420,416; tracebook also counts
/// `final_logits_bias` (a buffer there, trained by `tracebook train`), one per token.
#[test]
fn counts_agree_with_bart_base() {
    let mut config = shape(768, 50_265, (6, 6), 3072, "learned");
    config.n_head = 12;
    let p = Seq2SeqParameters::of(&config, config.seq2seq.as_ref().unwrap(), true);
    assert_eq!(p.total - p.logits_bias, 139_420_416);
    let untied = Seq2SeqParameters::of(&config, config.seq2seq.as_ref().unwrap(), false);
    assert_eq!(untied.total - p.total, 768 * 50_265);
}

#[test]
fn the_diagram_draws_both_stacks_with_the_traced_sizes() {
    let traces = TestTraces::with("p", seq2seq_trace());
    let figure = render(&options("prompt = \"p\""), &traces).unwrap();
    let texts = all_texts(&figure.svg);
    for expected in [
        "S = 4 tokens of the source, </s> last",
        "T = 5: the start token, then each one written",
        "encoder layer × 2",
        "decoder layer × 2",
        "self-attention, no mask",
        "masked self-attention",
        "cross-attention",
        "encoder output",
        "residual stream, 4 × 8",
        "residual stream, 5 × 8",
        "+ sinusoidal positions, computed: no parameters",
        "5 × 40: a score per token of the vocabulary",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "{expected} in {texts:?}"
        );
    }
    // Two stacks' worth of post-norm sublayers: 2 in the encoder, 3 in the decoder.
    assert_eq!(texts.iter().filter(|t| *t == "LayerNorm").count(), 5);
    assert!(figure.alt.contains("no mask"), "{}", figure.alt);
    assert!(figure.alt.contains("cross-attention"), "{}", figure.alt);
}

#[test]
fn a_trace_without_the_embedding_switches_is_told_to_retrace() {
    let mut trace = seq2seq_trace();
    let s = trace.meta.model.config.seq2seq.as_mut().unwrap();
    s.tie_word_embeddings = None;
    let traces = TestTraces::with("p", trace);
    let error = render(&options("prompt = \"p\""), &traces).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("scaled and tied"), "{text}");
}

#[test]
fn snapshot() {
    let traces = TestTraces::with("p", seq2seq_trace());
    insta::assert_snapshot!(render(&options("prompt = \"p\""), &traces).unwrap().svg);
}
