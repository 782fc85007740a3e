//! Tests of `figure shapes` on Llama-family traces (`shapes_decoder.rs`).

use super::render;
use crate::kinds::strips::WIDTH;
use crate::svg::{text_width, Font};
use crate::testing::test_llama::{llama_trace, D, DH, HEADS, INNER, KV_HEADS};
use crate::testing::test_svg::{all_texts, parse, text_of};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use tracebook_trace::{DecoderBlock, Trace};

const T: usize = 4;

/// The Llama test trace with the attention tensors it lacks, zeros of the model's shapes,
/// and `attn.v` of layer 0 shaped `v_shape`.
fn complete(v_shape: [usize; 3]) -> Trace {
    let mut trace = llama_trace();
    for layer in 0..2 {
        let v = if layer == 0 {
            v_shape
        } else {
            [KV_HEADS, T, DH]
        };
        for (name, shape) in [
            ("attn.v", v.to_vec()),
            ("attn.pattern", vec![HEADS, T, T]),
            ("attn.z", vec![HEADS, T, DH]),
            ("attn_out", vec![T, D]),
            ("mlp_out", vec![T, D]),
        ] {
            let zeros = vec![0.0; shape.iter().product()];
            trace
                .insert(&format!("blocks.{layer}.{name}"), shape, &zeros)
                .unwrap();
        }
    }
    trace
}

#[test]
fn products_have_the_familys_shapes_checked_against_the_trace() {
    let traces = TestTraces::with("p", complete([KV_HEADS, T, DH]));
    let figure = render(&options("prompt = \"p\"\nlayer = 1"), &traces).unwrap();
    let texts = all_texts(&figure.svg);
    let has = |t: &str| texts.iter().any(|x| x == t);
    assert!(
        has("Hkv×T×dh") && has(&format!("{KV_HEADS}×{T}×{DH}")),
        "{texts:?}"
    );
    assert!(has(&format!("{HEADS}×{T}×{DH}")));
    assert!(has(&format!("{T}×{INNER}")), "the MLP's width: {texts:?}");
    assert!(has(&format!("{}×{D}", HEADS * DH)), "W_O is H·dh × d");
    assert!(has("gate, up") && has("act(gate) · up"));
    assert!(!texts
        .iter()
        .any(|t| t.contains("LayerNorm") || t.contains("GELU")));
    assert!(
        figure
            .alt
            .contains(&format!("sharing H_kv = {KV_HEADS} key/value heads")),
        "{}",
        figure.alt
    );
}

/// At Llama-3.2-1B's sizes (d 2,048, 32 query heads and 8 key/value heads of 64, m 8,192)
/// every label of every product stays inside the figure's width.
#[test]
fn products_fit_the_width_at_llama_3_2_1b_size() {
    // The prompt's tokens and meta, none of its GPT-2 tensors.
    let mut trace = Trace::new(tiny_trace().meta);
    let config = &mut trace.meta.model.config;
    (config.n_embd, config.n_head, config.n_layer) = (2048, 32, 16);
    (config.n_kv_head, config.head_dim) = (Some(8), Some(64));
    config.model_type = Some("llama".into());
    config.decoder = Some(DecoderBlock {
        intermediate_size: 8192,
        tie_word_embeddings: true,
        qkv_bias: false,
        o_bias: false,
        mlp_bias: false,
        qk_norm: false,
    });
    for (name, shape) in [
        ("ln1.normalized", vec![T, 2048]),
        ("attn.q", vec![32, T, 64]),
        ("attn.k", vec![8, T, 64]),
        ("attn.v", vec![8, T, 64]),
        ("attn.pattern", vec![32, T, T]),
        ("attn.z", vec![32, T, 64]),
        ("attn_out", vec![T, 2048]),
        ("ln2.normalized", vec![T, 2048]),
        ("mlp.gate", vec![T, 8192]),
        ("mlp.post", vec![T, 8192]),
        ("mlp_out", vec![T, 2048]),
    ] {
        let name = format!("blocks.0.{name}");
        let zeros = vec![0.0; shape.iter().product()];
        trace.insert(&name, shape, &zeros).unwrap();
    }
    let traces = TestTraces::with("p", trace);
    let figure = render(&options("prompt = \"p\""), &traces).unwrap();
    let doc = parse(&figure.svg);
    // Wrapped notes (lines as tspans) are wrapped to the width already.
    let single_lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && !n.children().any(|c| c.has_tag_name("tspan")));
    for node in single_lines {
        let x: f64 = node.attribute("x").unwrap_or("0").parse().unwrap();
        let half = text_width(&text_of(node), Font::Sans, 12.0) / 2.0;
        let right = match node.ancestors().find_map(|a| a.attribute("text-anchor")) {
            Some("middle") => x + half,
            _ => x + 2.0 * half,
        };
        assert!(right <= WIDTH + 1.0, "{:?} ends at {right}", text_of(node));
    }
}

#[test]
fn a_trace_whose_tensors_disagree_is_refused() {
    let traces = TestTraces::with("p", complete([HEADS, T, DH]));
    let error = render(&options("prompt = \"p\""), &traces).unwrap_err();
    assert!(
        error.message.contains("blocks.0.attn.v"),
        "{}",
        error.message
    );
}
