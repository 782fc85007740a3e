//! `figure architecture` for a Llama-family trace (llama, mistral, qwen2, qwen3, gemma): the
//! same diagram as GPT-2's with what the family has instead. No position embedding (RoPE turns
//! q and k inside attention), RMSNorm, attention whose query heads share fewer key/value heads,
//! a gated MLP, and an unembedding that is the token embedding or a matrix of its own. Sizes
//! and switches come from `meta.model.config` (its `decoder` part: MLP width, tied embeddings,
//! biases, q/k norms), so the parameter count is the checkpoint's, biases included.

use super::architecture::{block, finish, plus, Sublayer, KIND, RESIDUAL_X};
use super::strips::WIDTH;
use crate::draw::{arrow, labelled_box, note};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{count, thousands};
use crate::prompt::Prompt;
use crate::svg::{Canvas, Css, Element};
use tracebook_trace::{DecoderBlock, ModelShape};

/// Parameter counts of a Llama-family model's parts, from its sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecoderParameters {
    pub embedding: usize,
    pub attention: usize,
    pub mlp: usize,
    pub norm: usize,
    pub block: usize,
    /// The unembedding's own matrix (0 when tied to the token embedding).
    pub unembedding: usize,
    pub total: usize,
}

impl DecoderParameters {
    pub fn of(config: &ModelShape, parts: &DecoderBlock) -> DecoderParameters {
        let (d, dh, inner) = (config.n_embd, config.head_width(), parts.intermediate_size);
        let (q, kv) = (config.n_head * dh, config.kv_heads() * dh);
        let attention = d * q
            + 2 * d * kv
            + q * d
            + if parts.qkv_bias { q + 2 * kv } else { 0 }
            + if parts.o_bias { d } else { 0 }
            + if parts.qk_norm { 2 * dh } else { 0 };
        let mlp = 3 * d * inner + if parts.mlp_bias { 2 * inner + d } else { 0 };
        let block = attention + mlp + 2 * d;
        let embedding = config.vocab_size * d;
        let unembedding = if parts.tie_word_embeddings {
            0
        } else {
            embedding
        };
        DecoderParameters {
            embedding,
            attention,
            mlp,
            norm: d,
            block,
            unembedding,
            total: embedding + config.n_layer * block + d + unembedding,
        }
    }
}

pub fn render(prompt: Prompt<'_>, caption: Option<String>) -> Result<Figure, FigureError> {
    let config = prompt.config().clone();
    let parts = config.decoder.clone().ok_or_else(|| {
        prompt.broken(format!(
            "the trace of \"{}\" does not record the {} model's MLP width and embeddings \
             (`meta.model.config.decoder`, written since tracebook recorded it)",
            prompt.name,
            config.model_type()
        ))
    })?;
    let n = prompt.tokens()?.len();
    let p = DecoderParameters::of(&config, &parts);
    let mut body = inputs(&config, &p, n);
    body.extend(block(&config, p.block, n, &sublayers(&config, &parts, &p)));
    let y = finish(&mut body, &outputs(&config, &parts, &p, n), p.total);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: y + 30.0,
        title: format!(
            "The model's architecture ({}): {} layers, width {}",
            config.model_type(),
            config.n_layer,
            thousands(config.n_embd)
        ),
        desc: describe(&config, &parts, &p, n),
        css: Css::default(),
    };
    Ok(Figure::new(canvas, body, caption, &prompt).with_source(Source::Config))
}

/// The token ids, the one embedding they select, and why no position embedding is added.
fn inputs(config: &ModelShape, p: &DecoderParameters, n: usize) -> Vec<Element> {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let scaled = if config.model_type() == "gemma" {
        ", × √d"
    } else {
        ""
    };
    vec![
        labelled_box(
            WIDTH / 2.0 - 100.0,
            0.0,
            200.0,
            34.0,
            "token ids",
            &format!("T = {n} tokens of the prompt"),
        ),
        arrow((WIDTH / 2.0, 34.0), (WIDTH / 2.0, 50.0)),
        labelled_box(
            0.0,
            52.0,
            WIDTH,
            40.0,
            "token embedding",
            &format!("{v} × {d}{scaled} · {}", count(p.embedding)),
        ),
        note(
            "no position embedding: attention turns q and k",
            56.0,
            108.0,
        ),
        note("by each token's position (RoPE)", 56.0, 122.0),
        arrow((RESIDUAL_X, 92.0), (RESIDUAL_X, 112.0)),
        plus(RESIDUAL_X, 122.0),
    ]
}

/// RMSNorm, attention with its shared key/value heads, RMSNorm, the gated MLP.
fn sublayers(config: &ModelShape, parts: &DecoderBlock, p: &DecoderParameters) -> [Sublayer; 2] {
    let (d, inner) = (thousands(config.n_embd), thousands(parts.intermediate_size));
    let heads = if config.kv_heads() == config.n_head {
        format!("{} heads × {}", config.n_head, config.head_width())
    } else {
        format!(
            "{} q heads, {} k/v × {}",
            config.n_head,
            config.kv_heads(),
            config.head_width()
        )
    };
    [
        Sublayer {
            norm: "RMSNorm 1",
            norm_params: p.norm,
            name: "attention with RoPE",
            size: format!("{heads} · {}", count(p.attention)),
        },
        Sublayer {
            norm: "RMSNorm 2",
            norm_params: p.norm,
            name: gated_name(config),
            size: format!("{d} → 2 × {inner} → {d} · {}", count(p.mlp)),
        },
    ]
}

/// The final RMSNorm, the unembedding (tied or its own), the logits.
fn outputs(
    config: &ModelShape,
    parts: &DecoderBlock,
    p: &DecoderParameters,
    n: usize,
) -> [(&'static str, String); 3] {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let unembedding = if parts.tie_word_embeddings {
        format!("{d} × {v}, the token embedding again")
    } else {
        format!("lm_head {d} × {v} · {}", count(p.unembedding))
    };
    [
        ("final RMSNorm", format!("{d} → {d}")),
        ("unembedding", unembedding),
        (
            "logits",
            format!("{n} × {v}: a score per token of the vocabulary"),
        ),
    ]
}

/// The MLP's box title, naming the gate's activation.
fn gated_name(config: &ModelShape) -> &'static str {
    match activation(config) {
        "SiLU" => "gated MLP: SiLU(gate) × up",
        "GELU" => "gated MLP: GELU(gate) × up",
        _ => "gated MLP: act(gate) × up",
    }
}

/// The gate's activation as the diagram names it.
fn activation(config: &ModelShape) -> &'static str {
    match config.activation_function.as_str() {
        "silu" | "swish" => "SiLU",
        a if a.starts_with("gelu") => "GELU",
        _ => "act",
    }
}

fn describe(config: &ModelShape, parts: &DecoderBlock, p: &DecoderParameters, n: usize) -> String {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let unembedding = if parts.tie_word_embeddings {
        "the unembedding (the token embedding matrix again)".to_string()
    } else {
        format!("the unembedding (a {d} × {v} matrix of its own)")
    };
    format!(
        "The model as traced (a {} model): the prompt's {n} token ids select rows of the token \
         embedding ({v} × {d}), which start the residual stream, {n} × {d}; no position \
         embedding is added. Then {} identical layers: each applies an RMSNorm and attention \
         with {} query heads sharing {} key/value heads of {}, whose queries and keys are \
         turned by their position (RoPE), and adds the result to the residual stream, then an \
         RMSNorm and a gated MLP ({}(gate) × up, {d} → {} → {d}) and adds that too; {} \
         parameters per layer. A final RMSNorm and {unembedding} turn each position into {v} \
         logits. {} parameters in all.",
        config.model_type(),
        config.n_layer,
        config.n_head,
        config.kv_heads(),
        config.head_width(),
        activation(config),
        thousands(parts.intermediate_size),
        count(p.block),
        count(p.total)
    )
}

#[cfg(test)]
mod tests {
    use super::DecoderParameters;
    use crate::kinds::architecture::render;
    use crate::test_llama::llama_trace;
    use crate::test_svg::all_texts;
    use crate::test_traces::{options, TestTraces};
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
            .contains("tracebook trace --only p"));
    }
}
