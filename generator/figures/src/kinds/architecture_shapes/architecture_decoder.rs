//! `figure architecture` for a Llama-family trace (llama, mistral, qwen2, qwen3, gemma): the
//! same diagram as GPT-2's with what the family has instead. No position embedding (RoPE turns
//! q and k inside attention), RMSNorm, attention whose query heads share fewer key/value heads,
//! a gated MLP, and an unembedding that is the token embedding or a matrix of its own. Sizes
//! and switches come from `meta.model.config` (its `decoder` part: MLP width, tied embeddings,
//! biases, q/k norms), so the parameter count is the checkpoint's, biases included.

use super::architecture_parts::{block, finish, plus, product, prompt_ids, Sublayer, RESIDUAL_X};
use crate::draw::{arrow, labelled_box, note};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{count, thousands};
use crate::kinds::strips::WIDTH;
use crate::prompt::Prompt;
use crate::relations::Relation;
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

/// The diagram of the Llama-family model that made `prompt`'s trace, as figure `kind`.
pub fn render(
    kind: &'static str,
    prompt: Prompt<'_>,
    caption: Option<String>,
) -> Result<Figure, FigureError> {
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
        kind,
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
    let figure = Figure::new(canvas, body, caption, &prompt).with_source(Source::Config);
    Ok(figure.with_relations(relations(&config, &p)))
}

/// What a reader can check among the sizes and counts: the embedding (and an unembedding of
/// its own) is its rows × columns, an RMSNorm a gain of d, a layer is its parts and the model
/// its embedding, layers, final RMSNorm and unembedding.
fn relations(config: &ModelShape, p: &DecoderParameters) -> Vec<Relation> {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let norm = count(p.norm);
    let mut total = vec![count(p.embedding), norm.clone()];
    total.extend(std::iter::repeat_n(count(p.block), config.n_layer));
    let mut out = vec![
        product(&[&v, &d], count(p.embedding)),
        Relation::Same {
            a: d.clone(),
            b: norm.clone(),
        },
        Relation::Sum {
            terms: vec![count(p.attention), count(p.mlp), norm.clone(), norm],
            total: count(p.block),
        },
        Relation::Same {
            a: count(p.total),
            b: thousands(p.total),
        },
    ];
    if p.unembedding > 0 {
        out.push(product(&[&d, &v], count(p.unembedding)));
        total.push(count(p.unembedding));
    }
    out.push(Relation::Sum {
        terms: total,
        total: count(p.total),
    });
    out
}

/// The token ids, the one embedding they select, and why no position embedding is added.
fn inputs(config: &ModelShape, p: &DecoderParameters, n: usize) -> Vec<Element> {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let scaled = if config.model_type() == "gemma" {
        ", × √d"
    } else {
        ""
    };
    let mut out = prompt_ids(n).to_vec();
    out.extend([
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
    ]);
    out
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
