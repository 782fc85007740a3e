//! `figure shapes` for a Llama-family trace: the products of one layer with what the family
//! does instead of GPT-2's. q, k and v come from three matrices, k and v with H_kv heads (fewer
//! than the H query heads when attention is grouped, each shared by H ÷ H_kv of them); RoPE
//! turns q and k without changing their shapes; the MLP projects to its width twice (gate and
//! up), multiplies act(gate) by up, and projects back.

use super::shapes_model::{array, per_head, Dim, Sizes, Step};
use crate::error::FigureError;
use crate::options::Layer;
use crate::prompt::Prompt;

/// The model's and prompt's sizes: `d3` is the queries' width H·dh, `d4` the MLP's width,
/// read from the trace's config (or, in a trace that does not record it, from `mlp.gate`).
pub(super) fn sizes(prompt: &Prompt<'_>, n: usize) -> Result<Sizes, FigureError> {
    let config = prompt.config();
    let inner = match &config.decoder {
        Some(parts) => parts.intermediate_size,
        None => match prompt.trace.shape("blocks.0.mlp.gate") {
            Some([_, inner]) => *inner,
            _ => {
                return Err(prompt.broken(format!(
                    "the trace of \"{}\" has no `blocks.0.mlp.gate` of shape T × inner",
                    prompt.name
                )))
            }
        },
    };
    let dim = |symbol, size| Dim { symbol, size };
    let dh = config.head_width();
    Ok(Sizes {
        t: dim("T", n),
        d: dim("d", config.n_embd),
        d3: dim("H·dh", config.n_head * dh),
        d4: dim("m", inner),
        h: dim("H", config.n_head),
        dh: dim("dh", dh),
        kv: dim("Hkv", config.kv_heads()),
    })
}

/// The layer's products in the order the forward pass computes them.
pub(super) fn steps(s: &Sizes, layer: Layer) -> Vec<Step> {
    let mut steps = attention_steps(s, layer);
    steps.extend(mlp_steps(s, layer));
    steps
}

fn attention_steps(s: &Sizes, layer: Layer) -> Vec<Step> {
    let mut steps = projections(s, layer);
    steps.extend(head_steps(s, layer));
    steps
}

/// q, k and v projected from the normalized input, k and v narrower.
fn projections(s: &Sizes, layer: Layer) -> Vec<Step> {
    let at = |what: &str| format!("blocks.{}.{what}", layer.0);
    let (t, d, q, dh, kv) = (s.t, s.d, s.d3, s.dh, s.kv);
    let kvd = Dim {
        symbol: "Hkv·dh",
        size: kv.size * dh.size,
    };
    vec![
        Step {
            title: "RMSNorm, then W_Q makes the queries".into(),
            terms: vec![
                array(t, d, at("ln1.normalized")).called("x after RMSNorm"),
                array(d, q, "W_Q"),
                array(t, q, "q"),
            ],
            ops: vec!["×", "="],
        },
        Step {
            title: "W_K and W_V make keys and values, narrower: fewer heads".into(),
            terms: vec![
                array(t, d, "x"),
                array(d, kvd, "W_K, W_V"),
                array(t, kvd, "k, v"),
            ],
            ops: vec!["×", "="],
        },
    ]
}

/// The heads: cut and turned, scores, weighted values, joined and projected.
fn head_steps(s: &Sizes, layer: Layer) -> Vec<Step> {
    let at = |what: &str| format!("blocks.{}.{what}", layer.0);
    let (t, d, q, h, dh, kv) = (s.t, s.d, s.d3, s.h, s.dh, s.kv);
    let k_heads = per_head(kv, t, dh, at("attn.k")).called("k, per k/v head");
    vec![
        Step {
            title: "cut into heads of dh; RoPE turns q and k, keeping their shapes".into(),
            terms: vec![per_head(h, t, dh, at("attn.q")), k_heads.clone()],
            ops: vec![","],
        },
        Step {
            title: "scores: each query · the keys of the k/v head it shares (÷ √dh, softmax)"
                .into(),
            terms: vec![
                per_head(h, t, dh, at("attn.q")),
                per_head(h, dh, t, "kᵀ").called("kᵀ, shared"),
                per_head(h, t, t, at("attn.pattern")),
            ],
            ops: vec!["·", "="],
        },
        Step {
            title: "each query head's weights times its shared values".into(),
            terms: vec![
                per_head(h, t, t, at("attn.pattern")),
                per_head(kv, t, dh, at("attn.v")).called("v, per k/v head"),
                per_head(h, t, dh, at("attn.z")),
            ],
            ops: vec!["·", "="],
        },
        Step {
            title: "the query heads side by side, times W_O".into(),
            terms: vec![
                array(t, q, "z, heads joined"),
                array(q, d, "W_O"),
                array(t, d, at("attn_out")),
            ],
            ops: vec!["×", "="],
        },
    ]
}

fn mlp_steps(s: &Sizes, layer: Layer) -> Vec<Step> {
    let at = |what: &str| format!("blocks.{}.{what}", layer.0);
    let (t, d, m) = (s.t, s.d, s.d4);
    vec![
        Step {
            title: "RMSNorm, then W_gate and W_up widen each token to m, twice".into(),
            terms: vec![
                array(t, d, at("ln2.normalized")).called("x after RMSNorm"),
                array(d, m, "W_gate, W_up"),
                array(t, m, at("mlp.gate")).called("gate, up"),
            ],
            ops: vec!["×", "="],
        },
        Step {
            title: "act(gate) × up, number by number; W_down narrows it back to d".into(),
            terms: vec![
                array(t, m, at("mlp.post")).called("act(gate) · up"),
                array(m, d, "W_down"),
                array(t, d, at("mlp_out")),
            ],
            ops: vec!["×", "="],
        },
    ]
}
