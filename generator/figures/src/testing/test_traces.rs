//! Synthetic traces for tests: a tiny model (2 layers, 2 heads, a 40-token vocabulary)
//! with hand-picked tokens and logits, built through the trace crate's own API.

use crate::svg::unescape_html;
pub use crate::testing::test_forward::{insert_forward, pattern_row, score};
pub use crate::testing::test_logits::{
    generation, insert_logit_rows, insert_logits, insert_loss_and_lens, logits, position_logits,
    TEXTS, TOP_K, VOCAB,
};
use crate::Traces;
use std::collections::BTreeMap;
use tracebook_trace::{
    ModelInfo, ModelShape, Precision, PromptSpec, Token, Trace, TraceMeta, TraceOptions,
};

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

/// Toy byte-pair merges for `tokens`: a word is a token with a leading space or at the
/// start, with the tokens that continue it; each token is built from its bytes by joining
/// its first two parts until one is left (rule ranks 10, 20, ... in order, byte ids 100 +
/// the byte, the last merge of a token giving the token's own id).
pub fn toy_merges(tokens: &[Token]) -> Vec<tracebook_trace::WordMerges> {
    let mut words: Vec<tracebook_trace::WordMerges> = Vec::new();
    let mut rank = 0;
    for token in tokens {
        let starts_word =
            words.is_empty() || !token.text.starts_with(|c: char| c.is_alphanumeric());
        if starts_word {
            words.push(tracebook_trace::WordMerges {
                start: token.start,
                end: token.start,
                bytes: Vec::new(),
                merges: Vec::new(),
            });
        }
        let word = words.last_mut().expect("a word");
        let first = word.bytes.len() - word.merges.len();
        word.bytes
            .extend(token.text.bytes().map(|b| 100 + u32::from(b)));
        word.end = token.end;
        for left in (1..token.text.len()).rev() {
            rank += 10;
            let id = if left == 1 { token.id } else { 1000 + rank };
            word.merges.push(tracebook_trace::Merge {
                at: first,
                id,
                rank,
            });
        }
    }
    words
}

/// A beam-search tree of width 3 over 3 steps where greedy and beam search part: " the"
/// is the likeliest first token (ln p −1), but every token after it is unlikely (−3, −3.5,
/// −4), while after " a" (−1.2) comes " peace" at −0.2. Tokens of node k: ids k % 10.
pub fn toy_beam() -> tracebook_trace::BeamTree {
    let mut nodes = Vec::new();
    let firsts = [(0u32, -1.0f32), (1, -1.2), (2, -2.0)];
    for &(id, logprob) in &firsts {
        nodes.push(tracebook_trace::BeamNode {
            parent: None,
            id,
            logprob,
        });
    }
    let mut level: Vec<usize> = (0..3).collect();
    for _ in 1..3 {
        let mut next = Vec::new();
        for &parent in &level {
            let after_a = nodes[parent].id == 1;
            for (j, id) in [2u32, 3, 4].iter().enumerate() {
                let logprob = if after_a {
                    -0.2 - j as f32
                } else {
                    -3.0 - 0.5 * j as f32
                };
                next.push(nodes.len());
                nodes.push(tracebook_trace::BeamNode {
                    parent: Some(parent),
                    id: *id,
                    logprob,
                });
            }
        }
        level = next;
    }
    tracebook_trace::BeamTree {
        width: 3,
        steps: 3,
        nodes,
    }
}

/// A training run in brief, as a model trained by `tracebook train` records it.
pub fn training_run() -> tracebook_trace::TrainingSummary {
    tracebook_trace::TrainingSummary {
        steps: 1000,
        tokens_per_step: 1024,
        corpus_tokens: 505_260,
        parameters: 7_242_624,
        loss: (1..=100)
            .map(|i| (i * 10, 6.0 + 4.8 / (1.0 + i as f64 / 3.0)))
            .collect(),
        val_loss: vec![(0, 10.85), (500, 6.2), (1000, 6.05)],
        bigram_val_loss: Some(6.015),
        lr: (1..=100)
            .map(|i| (i * 10, 0.002 * (i as f64 / 10.0).min(1.0)))
            .collect(),
        grad_norm: (1..=100)
            .map(|i| (i * 10, 3.0 / (i as f64).sqrt()))
            .collect(),
        weight: None,
    }
}

pub fn tiny_trace() -> Trace {
    trace_of(&[10, 11, 12, 13])
}

/// A trace of the prompt made of vocabulary ids `ids`, with the logits of [`logits`].
pub fn trace_of(ids: &[u32]) -> Trace {
    trace_with(ids, Precision::F32)
}

/// [`trace_of`] stored at `precision` (compact traces round every tensor).
pub fn trace_with(ids: &[u32], precision: Precision) -> Trace {
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
            name: None,
            config: ModelShape {
                n_layer: 2,
                n_head: 2,
                n_embd: 8,
                n_positions: 64,
                vocab_size: VOCAB,
                ..Default::default()
            },
            weights_sha256: "0".repeat(64),
            weights_dtype: "f32".into(),
        },
        prompt: PromptSpec::new(text),
        options: TraceOptions {
            precision,
            top_k: TOP_K,
        },
        tokens,
        generation: Vec::new(),
        token_texts: (0..VOCAB as u32)
            .map(|id| (id, TEXTS[id as usize].to_string()))
            .collect(),
        training: None,
        merges: Vec::new(),
        beam: Some(toy_beam()),
        ablation: None,
        patching: None,
        attribution: None,
        translation: None,
    };
    let merges = toy_merges(&meta.tokens);
    let meta = TraceMeta { merges, ..meta };
    let mut trace = Trace::new(meta);
    let rows: Vec<Vec<f32>> = (0..ids.len())
        .map(|p| position_logits(p, ids.len()))
        .collect();
    insert_logit_rows(&mut trace, &rows);
    insert_loss_and_lens(&mut trace, ids, &rows);
    insert_attention(&mut trace, ids.len());
    insert_forward(&mut trace, ids);
    trace.meta.generation = generation(&rows[rows.len() - 1]);
    trace.meta.prompt.options.generate = trace.meta.generation.len();
    trace
}

/// Writes `blocks.L.attn.scores` and `.attn.pattern` for both layers and heads.
pub fn insert_attention(trace: &mut Trace, n: usize) {
    for layer in 0..2 {
        let mut scores = Vec::with_capacity(2 * n * n);
        let mut pattern = Vec::with_capacity(2 * n * n);
        for head in 0..2 {
            for q in 0..n {
                let row = pattern_row(layer, head, q);
                for k in 0..n {
                    scores.push(score(layer, head, q, k));
                    pattern.push(row.get(k).map_or(0.0, |&w| w as f32));
                }
            }
        }
        let shape = vec![2, n, n];
        trace
            .insert(
                &format!("blocks.{layer}.attn.scores"),
                shape.clone(),
                &scores,
            )
            .unwrap();
        trace
            .insert(&format!("blocks.{layer}.attn.pattern"), shape, &pattern)
            .unwrap();
    }
}

/// Parses a figure block body.
pub fn options(toml_text: &str) -> toml::Table {
    toml::from_str(toml_text).unwrap()
}

/// The text content of every `<text>` whose class list starts with `class`, in document
/// order, with tags dropped and entities decoded.
pub fn texts(svg: &str, class: &str) -> Vec<String> {
    let open = format!("<text class=\"{class}");
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start..];
        let body_start = after.find('>').unwrap() + 1;
        let body_end = after.find("</text>").unwrap();
        out.push(unescape_html(&strip_tags(&after[body_start..body_end])));
        rest = &after[body_end..];
    }
    out
}

/// The text content of every `<text>` inside the first `<g>` whose class list starts
/// with `class`, in document order.
pub fn group_texts(svg: &str, class: &str) -> Vec<String> {
    let start = svg
        .find(&format!("<g class=\"{class}"))
        .expect("no such group");
    let group = &svg[start..];
    let group = &group[..group.find("</g>").unwrap()];
    group
        .split("<text")
        .skip(1)
        .map(|t| {
            unescape_html(&strip_tags(
                &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()],
            ))
        })
        .collect()
}

/// The numeric attribute `attr` of every element whose start tag begins with `start`.
pub fn numbers(svg: &str, start: &str, attr: &str) -> Vec<f64> {
    let needle = format!(" {attr}=\"");
    svg.match_indices(start)
        .map(|(i, _)| {
            let tag = &svg[i..i + svg[i..].find('>').unwrap()];
            let value = &tag[tag.find(&needle).unwrap() + needle.len()..];
            value[..value.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

fn strip_tags(markup: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in markup.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}
