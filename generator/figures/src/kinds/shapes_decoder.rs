//! `figure shapes` for a Llama-family trace: the products of one layer with what the family
//! does instead of GPT-2's. q, k and v come from three matrices, k and v with H_kv heads (fewer
//! than the H query heads when attention is grouped, each shared by H ÷ H_kv of them); RoPE
//! turns q and k without changing their shapes; the MLP projects to its width twice (gate and
//! up), multiplies act(gate) by up, and projects back.

use super::shapes::{array, per_head, Dim, Sizes, Step};
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
    let at = |what: &str| format!("blocks.{}.{what}", layer.0);
    let (t, d, q, h, dh, kv) = (s.t, s.d, s.d3, s.h, s.dh, s.kv);
    let kvd = Dim {
        symbol: "Hkv·dh",
        size: kv.size * dh.size,
    };
    let k_heads = per_head(kv, t, dh, at("attn.k")).called("k, per k/v head");
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

#[cfg(test)]
mod tests {
    use crate::kinds::shapes::render;
    use crate::kinds::strips::WIDTH;
    use crate::svg::{text_width, Font};
    use crate::test_llama::{llama_trace, D, DH, HEADS, INNER, KV_HEADS};
    use crate::test_svg::{all_texts, parse, text_of};
    use crate::test_traces::{options, tiny_trace, TestTraces};
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
}
