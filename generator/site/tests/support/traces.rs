//! Small, complete, plausible traces for tests: a 2-layer, 2-head, 8-wide model with GPT-2's
//! real tokenizer and vocabulary size, every tensor of the trace table present, deterministic
//! values (a seeded generator), causal softmax attention, and consistent top-k logits.

use std::collections::BTreeMap;
use std::hash::Hasher;
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::{
    Candidate, Derivation, DeriveOp, GenerationStep, ModelInfo, ModelShape, PromptSpec, Token,
    Trace, TraceMeta, TraceOptions,
};

pub const N_LAYER: usize = 2;
pub const N_HEAD: usize = 2;
pub const N_EMBD: usize = 8;
pub const VOCAB: usize = 50257;

/// A trace of `prompt` as `tracebook trace` would write it for prompt `name`, model `model_id`.
pub fn plausible_trace(
    tokenizer: &Tokenizer,
    name: &str,
    prompt: &PromptSpec,
    model_id: &str,
    options: &TraceOptions,
) -> Trace {
    let tokens = tokenizer
        .encode(&prompt.text)
        .expect("the GPT-2 tokenizer encodes any text");
    let mut rng = Rng::new(&prompt.text);
    let t = tokens.len();
    let logits_last: Vec<f32> = (0..VOCAB).map(|_| rng.normal() * 2.0).collect();
    let (topk_ids, topk_values) = top_k_rows(&mut rng, &logits_last, t, options.top_k);
    let mut meta = meta(name, prompt, model_id, options, tokens.clone());
    meta.generation = generation(tokenizer, &topk_ids, options.top_k, prompt.options.generate);
    meta.token_texts = token_texts(tokenizer, &tokens, &topk_ids, &meta.generation);
    let mut trace = Trace::new(meta);
    insert_activations(&mut trace, &mut rng, t);
    let put = |trace: &mut Trace, n: &str, shape: Vec<usize>, data: &[f32]| {
        trace.insert(n, shape, data).unwrap()
    };
    put(&mut trace, "logits.last", vec![VOCAB], &logits_last);
    put(
        &mut trace,
        "logits.topk_ids",
        vec![t, options.top_k],
        &topk_ids,
    );
    put(
        &mut trace,
        "logits.topk_values",
        vec![t, options.top_k],
        &topk_values,
    );
    trace
}

fn meta(
    name: &str,
    prompt: &PromptSpec,
    model_id: &str,
    options: &TraceOptions,
    tokens: Vec<Token>,
) -> TraceMeta {
    let model = ModelInfo {
        id: model_id.into(),
        name: None,
        config: ModelShape {
            n_layer: N_LAYER,
            n_head: N_HEAD,
            n_embd: N_EMBD,
            n_positions: 64,
            vocab_size: VOCAB,
            ..Default::default()
        },
        weights_sha256: "0".repeat(64),
        weights_dtype: "f32".into(),
    };
    TraceMeta::new(
        "tracebook test-support".into(),
        name,
        model,
        prompt.clone(),
        options.clone(),
        tokens,
    )
}

/// Every per-layer tensor of the trace table, with the right shapes, stored as `tracebook
/// trace` stores them: random values where the model's weights would be needed, and what
/// follows from them derived (so the numbers agree with each other as a real trace's do).
fn insert_activations(trace: &mut Trace, rng: &mut Rng, t: usize) {
    let (d, h) = (N_EMBD, N_HEAD);
    let dh = d / h;
    let put = |trace: &mut Trace, name: &str, shape: Vec<usize>, rng: &mut Rng| {
        let n = shape.iter().product();
        let data: Vec<f32> = (0..n).map(|_| rng.normal()).collect();
        trace.insert(name, shape, &data).unwrap();
        data
    };
    let derive = |trace: &mut Trace, name: &str, shape: Vec<usize>, data: &[f32], how| {
        trace.insert_derived(name, shape, data, how).unwrap();
    };
    let add = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x + y).collect::<Vec<_>>();
    let embed = put(trace, "embed", vec![t, d], rng);
    let pos = put(trace, "pos_embed", vec![t, d], rng);
    let mut resid = add(&embed, &pos);
    let mut input = Derivation::new(DeriveOp::Sum, &["embed", "pos_embed"]);
    let layer_norm = |trace: &mut Trace, ln: &str, x: &str, rng: &mut Rng| {
        let (w, b) = (format!("{ln}.w"), format!("{ln}.b"));
        let mut put = |name: &str| {
            let data: Vec<f32> = (0..d).map(|_| 1.0 + 0.2 * rng.normal()).collect();
            trace.insert(name, vec![d], &data).unwrap();
        };
        put(&w);
        put(&b);
        let stat = |op| Derivation::new(op, &[x]).with_eps(1e-5);
        let unread = vec![0.0; t];
        if ln != "ln_final" {
            let mean = Derivation::new(DeriveOp::Mean, &[x]);
            trace
                .insert_derived(&format!("{ln}.mean"), vec![t], &unread, mean)
                .unwrap();
            let std = stat(DeriveOp::Std);
            trace
                .insert_derived(&format!("{ln}.std"), vec![t], &unread, std)
                .unwrap();
        }
        let how = Derivation::new(DeriveOp::LayerNorm, &[x, &w, &b]).with_eps(1e-5);
        let normalized = format!("{ln}.normalized");
        trace
            .insert_derived(&normalized, vec![t, d], &vec![0.0; t * d], how)
            .unwrap();
    };
    for l in 0..N_LAYER {
        let b = format!("blocks.{l}");
        let at = |hook: &str| format!("{b}.{hook}");
        derive(trace, &at("resid_pre"), vec![t, d], &resid, input);
        layer_norm(trace, &at("ln1"), &at("resid_pre"), rng);
        for name in ["attn.q", "attn.k", "attn.v"] {
            put(trace, &at(name), vec![h, t, dh], rng);
        }
        let unread = vec![0.0; h * t * t];
        let scale = 1.0 / (dh as f32).sqrt();
        let dot = Derivation::new(DeriveOp::Dot, &[&at("attn.q"), &at("attn.k")]);
        derive(
            trace,
            &at("attn.scores"),
            vec![h, t, t],
            &unread,
            dot.with_scale(scale),
        );
        let softmax = Derivation::new(DeriveOp::CausalSoftmax, &[&at("attn.scores")]);
        derive(trace, &at("attn.pattern"), vec![h, t, t], &unread, softmax);
        let z = Derivation::new(DeriveOp::Matmul, &[&at("attn.pattern"), &at("attn.v")]);
        derive(
            trace,
            &at("attn.z"),
            vec![h, t, dh],
            &vec![0.0; h * t * dh],
            z,
        );
        let attn_out = put(trace, &at("attn_out"), vec![t, d], rng);
        resid = add(&resid, &attn_out);
        let sum = Derivation::new(DeriveOp::Sum, &[&at("resid_pre"), &at("attn_out")]);
        derive(trace, &at("resid_mid"), vec![t, d], &resid, sum);
        layer_norm(trace, &at("ln2"), &at("resid_mid"), rng);
        put(trace, &at("mlp.pre"), vec![t, 4 * d], rng);
        let gelu = Derivation::new(DeriveOp::GeluTanh, &[&at("mlp.pre")]);
        derive(
            trace,
            &at("mlp.post"),
            vec![t, 4 * d],
            &vec![0.0; t * 4 * d],
            gelu,
        );
        let mlp_out = put(trace, &at("mlp_out"), vec![t, d], rng);
        resid = add(&resid, &mlp_out);
        let sum = Derivation::new(DeriveOp::Sum, &[&at("resid_mid"), &at("mlp_out")]);
        derive(trace, &at("resid_post"), vec![t, d], &resid, sum);
        input = Derivation::new(DeriveOp::Sum, &[&at("resid_post")]);
    }
    let last = format!("blocks.{}.resid_post", N_LAYER - 1);
    layer_norm(trace, "ln_final", &last, rng);
}

/// Top-k rows: the true top-k of `logits_last` for the last row, descending random ones before.
fn top_k_rows(rng: &mut Rng, logits_last: &[f32], t: usize, k: usize) -> (Vec<f32>, Vec<f32>) {
    let mut ids = Vec::with_capacity(t * k);
    let mut values = Vec::with_capacity(t * k);
    for _ in 0..t.saturating_sub(1) {
        let mut row: Vec<(u32, f32)> = (0..k)
            .map(|_| (rng.below(VOCAB as u64) as u32, rng.normal() * 3.0 + 5.0))
            .collect();
        row.sort_by(|a, b| b.1.total_cmp(&a.1));
        ids.extend(row.iter().map(|r| r.0 as f32));
        values.extend(row.iter().map(|r| r.1));
    }
    let mut order: Vec<usize> = (0..logits_last.len()).collect();
    order.sort_by(|&a, &b| logits_last[b].total_cmp(&logits_last[a]).then(a.cmp(&b)));
    ids.extend(order[..k].iter().map(|&i| i as f32));
    values.extend(order[..k].iter().map(|&i| logits_last[i]));
    (ids, values)
}

/// Greedy continuation steps taken from the last top-k row.
fn generation(
    tokenizer: &Tokenizer,
    topk_ids: &[f32],
    k: usize,
    steps: usize,
) -> Vec<GenerationStep> {
    let last = &topk_ids[topk_ids.len() - k..];
    (0..steps)
        .map(|s| {
            let id = last[s % k] as u32;
            let top = last
                .iter()
                .take(3)
                .map(|&c| Candidate {
                    id: c as u32,
                    text: tokenizer.token_text(c as u32),
                    prob: 0.1,
                })
                .collect();
            GenerationStep {
                id,
                text: tokenizer.token_text(id),
                prob: 0.2,
                top,
            }
        })
        .collect()
}

fn token_texts(
    tokenizer: &Tokenizer,
    tokens: &[Token],
    topk_ids: &[f32],
    generation: &[GenerationStep],
) -> BTreeMap<u32, String> {
    let ids = tokens
        .iter()
        .map(|t| t.id)
        .chain(topk_ids.iter().map(|&i| i as u32))
        .chain(generation.iter().map(|g| g.id));
    ids.map(|id| (id, tokenizer.token_text(id))).collect()
}

/// A small deterministic generator (xorshift), seeded from the prompt text.
struct Rng(u64);

impl Rng {
    fn new(seed: &str) -> Rng {
        let mut hasher = fnv::FnvHasher::default();
        hasher.write(seed.as_bytes());
        Rng(hasher.finish() | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Roughly standard normal: the sum of four uniforms, centred and scaled.
    fn normal(&mut self) -> f32 {
        let sum: f64 = (0..4)
            .map(|_| (self.next() >> 11) as f64 / (1u64 << 53) as f64)
            .sum();
        ((sum - 2.0) * 1.732) as f32
    }
}
