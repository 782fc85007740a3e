//! Small, complete, plausible traces for tests: a 2-layer, 2-head, 8-wide model with GPT-2's
//! real tokenizer and vocabulary size, every tensor of the trace table present, deterministic
//! values (a seeded generator), causal softmax attention, and consistent top-k logits.

use std::collections::BTreeMap;
use std::hash::Hasher;
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::{
    Candidate, GenerationStep, ModelInfo, ModelShape, PromptSpec, Token, Trace, TraceMeta,
    TraceOptions,
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
    TraceMeta {
        tool: "tracebook test-support".into(),
        name: name.into(),
        model: ModelInfo {
            id: model_id.into(),
            config: ModelShape {
                n_layer: N_LAYER,
                n_head: N_HEAD,
                n_embd: N_EMBD,
                n_positions: 64,
                vocab_size: VOCAB,
                layer_norm_epsilon: 1e-5,
                activation_function: "gelu_new".into(),
            },
            weights_sha256: "0".repeat(64),
            weights_dtype: "f32".into(),
        },
        prompt: prompt.clone(),
        options: options.clone(),
        tokens,
        generation: Vec::new(),
        token_texts: BTreeMap::new(),
        training: None,
        merges: Vec::new(),
        beam: None,
    }
}

/// Every per-layer tensor of the trace table, with the right shapes.
fn insert_activations(trace: &mut Trace, rng: &mut Rng, t: usize) {
    let (d, h) = (N_EMBD, N_HEAD);
    let dh = d / h;
    let mut put = |name: &str, shape: Vec<usize>, rng: &mut Rng| {
        let n = shape.iter().product();
        let data: Vec<f32> = (0..n).map(|_| rng.normal()).collect();
        trace.insert(name, shape, &data).unwrap();
    };
    put("embed", vec![t, d], rng);
    put("pos_embed", vec![t, d], rng);
    for l in 0..N_LAYER {
        let b = format!("blocks.{l}");
        for name in [
            "resid_pre",
            "ln1.normalized",
            "attn_out",
            "resid_mid",
            "ln2.normalized",
            "mlp_out",
            "resid_post",
        ] {
            put(&format!("{b}.{name}"), vec![t, d], rng);
        }
        for name in ["ln1.mean", "ln1.std", "ln2.mean", "ln2.std"] {
            put(&format!("{b}.{name}"), vec![t], rng);
        }
        for name in ["attn.q", "attn.k", "attn.v", "attn.z"] {
            put(&format!("{b}.{name}"), vec![h, t, dh], rng);
        }
        put(&format!("{b}.mlp.pre"), vec![t, 4 * d], rng);
        put(&format!("{b}.mlp.post"), vec![t, 4 * d], rng);
        put(&format!("{b}.attn.scores"), vec![h, t, t], rng);
    }
    put("ln_final.normalized", vec![t, d], rng);
    for l in 0..N_LAYER {
        let pattern = causal_pattern(rng, h, t);
        trace
            .insert(&format!("blocks.{l}.attn.pattern"), vec![h, t, t], &pattern)
            .unwrap();
    }
}

/// Softmax over each row's first i+1 entries, zeros after (the causal mask).
fn causal_pattern(rng: &mut Rng, h: usize, t: usize) -> Vec<f32> {
    let mut data = vec![0.0f32; h * t * t];
    for head in 0..h {
        for i in 0..t {
            let row = &mut data[(head * t + i) * t..(head * t + i + 1) * t];
            let raw: Vec<f32> = (0..=i).map(|_| (rng.normal() * 1.5).exp()).collect();
            let sum: f32 = raw.iter().sum();
            for (j, r) in raw.iter().enumerate() {
                row[j] = r / sum;
            }
        }
    }
    data
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
