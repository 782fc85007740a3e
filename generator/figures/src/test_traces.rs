//! Synthetic traces for tests: a tiny model (2 layers, 2 heads, a 40-token vocabulary)
//! with hand-picked tokens and logits, built through the trace crate's own API.

use crate::Traces;
use std::collections::BTreeMap;
use tracebook_trace::{
    ModelInfo, ModelShape, Precision, PromptSpec, Token, Trace, TraceMeta, TraceOptions,
};

pub const VOCAB: usize = 40;
pub const TOP_K: usize = 12;

/// Token texts of the tiny vocabulary, hostile ones included.
const TEXTS: [&str; VOCAB] = [
    " the",
    " a",
    " peace",
    " war",
    " joy",
    " food",
    " them",
    " us",
    " change",
    " light",
    "The",
    " robots",
    " will",
    " bring",
    " un",
    "believ",
    "able",
    "\n",
    "\n\n",
    " <script>",
    "&amp;",
    "\"",
    "'",
    "</svg>",
    " 日本",
    "!",
    ",",
    ".",
    " and",
    " to",
    " of",
    " in",
    " is",
    " it",
    " that",
    " was",
    " for",
    " on",
    " are",
    " with",
];

/// The prompts the tests render, by name.
pub struct TestTraces(pub BTreeMap<String, Trace>);

impl TestTraces {
    pub fn with(name: &str, trace: Trace) -> Self {
        TestTraces(BTreeMap::from([(name.to_string(), trace)]))
    }
}

impl Traces for TestTraces {
    fn get(&self, prompt: &str) -> Option<&Trace> {
        self.0.get(prompt)
    }

    fn names(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }
}

/// "The robots will bring", four tokens.
pub fn tiny_trace() -> Trace {
    trace_of(&[10, 11, 12, 13])
}

/// A trace of the prompt made of vocabulary ids `ids`, with the logits of [`logits`].
pub fn trace_of(ids: &[u32]) -> Trace {
    let mut text = String::new();
    let tokens: Vec<Token> = ids
        .iter()
        .map(|&id| {
            let start = text.len();
            text.push_str(TEXTS[id as usize]);
            Token {
                id,
                text: TEXTS[id as usize].to_string(),
                start,
                end: text.len(),
            }
        })
        .collect();
    let meta = TraceMeta {
        tool: "tracebook test".to_string(),
        name: "robots".to_string(),
        model: ModelInfo {
            id: "test/tiny-gpt2".to_string(),
            config: ModelShape {
                n_layer: 2,
                n_head: 2,
                n_embd: 8,
                n_positions: 64,
                vocab_size: VOCAB,
                layer_norm_epsilon: 1e-5,
            },
            weights_sha256: "0".repeat(64),
        },
        prompt: PromptSpec::new(text),
        options: TraceOptions {
            precision: Precision::F32,
            top_k: TOP_K,
        },
        tokens,
        generation: Vec::new(),
        token_texts: (0..VOCAB as u32)
            .map(|id| (id, TEXTS[id as usize].to_string()))
            .collect(),
    };
    let mut trace = Trace::new(meta);
    insert_logits(&mut trace, ids.len(), &logits());
    trace
}

/// Distinct logits around −80 (GPT-2's range), largest at id 2 (" peace").
pub fn logits() -> Vec<f32> {
    (0..VOCAB)
        .map(|i| -80.0 + ((i * 17 + 6) % VOCAB) as f32 * 0.3)
        .collect()
}

/// Writes `logits.last` and a consistent `logits.topk_ids` / `logits.topk_values`.
pub fn insert_logits(trace: &mut Trace, n_tokens: usize, last: &[f32]) {
    let mut order: Vec<usize> = (0..last.len()).collect();
    order.sort_by(|&a, &b| last[b].total_cmp(&last[a]).then(a.cmp(&b)));
    let top = &order[..TOP_K];
    let ids: Vec<f32> = (0..n_tokens)
        .flat_map(|_| top.iter().map(|&i| i as f32))
        .collect();
    let values: Vec<f32> = (0..n_tokens)
        .flat_map(|_| top.iter().map(|&i| last[i]))
        .collect();
    trace.insert("logits.last", vec![last.len()], last).unwrap();
    trace
        .insert("logits.topk_ids", vec![n_tokens, TOP_K], &ids)
        .unwrap();
    trace
        .insert("logits.topk_values", vec![n_tokens, TOP_K], &values)
        .unwrap();
}

/// Parses a figure block body.
pub fn options(toml_text: &str) -> toml::Table {
    toml::from_str(toml_text).unwrap()
}
