//! Traces for the preview page, shaped like real GPT-2 small ones: real token ids and
//! texts, a 50257-way logit vector in GPT-2's range, hand-shaped attention heads and
//! pseudo-random activations ([`crate::testing::test_wide`]). Real traces can replace them: every
//! `NAME.json` in the folder `TBF_TRACES` is loaded as prompt `NAME`.

use crate::testing::preview_interventions::{
    ablation, attribution, eiffel_effect, patching, tokens,
};
use crate::testing::test_traces::TestTraces;
use crate::testing::test_wide::insert_wide;
use std::collections::BTreeMap;
use tracebook_trace::{
    AblationMode, Candidate, GenerationStep, ModelInfo, ModelShape, Precision, PromptSpec, Token,
    Trace, TraceMeta, TraceOptions,
};

const GPT2_VOCAB: usize = 50257;
const LAYERS: usize = 12;

/// `(id, text, logit)` of the candidates a preview trace favours.
type Top<'a> = [(u32, &'a str, f32)];

fn gpt2_like(pieces: &[(u32, &str)], top: &Top<'_>) -> Trace {
    let mut text = String::new();
    let tokens: Vec<Token> = pieces
        .iter()
        .map(|&(id, piece)| {
            let start = text.len();
            text.push_str(piece);
            Token {
                id,
                text: piece.to_string(),
                start,
                end: text.len(),
            }
        })
        .collect();
    let mut texts: BTreeMap<u32, String> =
        top.iter().map(|&(id, t, _)| (id, t.to_string())).collect();
    texts.extend(tokens.iter().map(|t| (t.id, t.text.clone())));
    let mut prompt = PromptSpec::new(text);
    prompt.options.generate = 4.min(top.len());
    let merges = crate::testing::test_traces::toy_merges(&tokens);
    let model = ModelInfo {
        id: "openai-community/gpt2".to_string(),
        name: None,
        config: ModelShape {
            n_layer: LAYERS,
            n_head: 12,
            n_embd: 768,
            n_positions: 1024,
            vocab_size: GPT2_VOCAB,
            ..Default::default()
        },
        weights_sha256: "0".repeat(64),
        weights_dtype: "f32".into(),
    };
    let options = TraceOptions {
        precision: Precision::Compact,
        top_k: top.len(),
    };
    let mut meta = TraceMeta::new(
        "tracebook preview".into(),
        "preview",
        model,
        prompt,
        options,
        tokens,
    );
    meta.generation = generation(top);
    meta.token_texts = texts;
    meta.merges = merges;
    let mut trace = Trace::new(meta);
    insert_logits(&mut trace, top);
    insert_wide(&mut trace, &|layer, head, q, k| {
        head_score((head + layer * 5) % 12, q, k)
    });
    trace
}

/// Logits at every position: the last is `top` over a low random floor; earlier
/// positions shuffle the candidates' logits. Also the top-k, lse, loss and logit lens.
fn insert_logits(trace: &mut Trace, top: &Top<'_>) {
    let n = trace.meta.tokens.len();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let floor: Vec<f32> = (0..GPT2_VOCAB)
        .map(|_| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            -92.0 + (seed >> 40) as f32 / (1u64 << 24) as f32 * 8.0
        })
        .collect();
    let shifted = |p: usize, i: usize| {
        if p + 1 == n {
            0.0
        } else {
            ((p * 7 + i * 3) % 5) as f32 * 0.8
        }
    };
    let (mut ids, mut values, mut lse) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = floor.clone();
    for p in 0..n {
        let mut row: Vec<(u32, f32)> = top
            .iter()
            .enumerate()
            .map(|(i, c)| (c.0, c.2 + shifted(p, i)))
            .collect();
        row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let max = f64::from(row[0].1);
        let rest: f64 = floor.iter().map(|&l| (f64::from(l) - max).exp()).sum();
        let mass: f64 = row.iter().map(|c| (f64::from(c.1) - max).exp()).sum();
        lse.push((max + (rest + mass).ln()) as f32);
        ids.extend(row.iter().map(|c| c.0 as f32));
        values.extend(row.iter().map(|c| c.1));
        if p + 1 == n {
            row.iter().for_each(|&(id, l)| last[id as usize] = l);
        }
    }
    let k = top.len();
    trace
        .insert("logits.last", vec![GPT2_VOCAB], &last)
        .unwrap();
    trace.insert("logits.topk_ids", vec![n, k], &ids).unwrap();
    trace
        .insert("logits.topk_values", vec![n, k], &values)
        .unwrap();
    trace.insert("logits.lse", vec![n], &lse).unwrap();
    let loss: Vec<f32> = (1..n).map(|i| 2.0 + ((i * 37) % 11) as f32 * 0.7).collect();
    trace.insert("loss.per_token", vec![n - 1], &loss).unwrap();
    insert_lens(trace, top, n);
}

/// A logit lens that settles on the candidates in the late layers.
fn insert_lens(trace: &mut Trace, top: &Top<'_>, n: usize) {
    let (mut ids, mut probs) = (Vec::new(), Vec::new());
    for layer in 0..LAYERS {
        for p in 0..n {
            let confidence = 0.05 + 0.6 * (layer as f32 / (LAYERS - 1) as f32).powi(2);
            for r in 0..10 {
                let c = (p + layer / 4 + r) % top.len();
                ids.push(top[c].0 as f32);
                probs.push(confidence / (1.0 + r as f32 * 1.5));
            }
        }
    }
    trace
        .insert("logit_lens.topk_ids", vec![LAYERS, n, 10], &ids)
        .unwrap();
    trace
        .insert("logit_lens.topk_probs", vec![LAYERS, n, 10], &probs)
        .unwrap();
}

fn generation(top: &Top<'_>) -> Vec<GenerationStep> {
    (0..4.min(top.len()))
        .map(|step| {
            let pick = (step * 2) % top.len();
            let candidates: Vec<Candidate> = (0..5)
                .map(|r| {
                    let c = top[(pick + r) % top.len()];
                    Candidate {
                        id: c.0,
                        text: c.1.to_string(),
                        prob: 0.42 / (1.0 + r as f32),
                    }
                })
                .collect();
            GenerationStep {
                id: top[pick].0,
                text: top[pick].1.to_string(),
                prob: 0.42,
                top: candidates,
            }
        })
        .collect()
}

/// Head shapes real GPT-2 heads have: 0 attends to the previous token, 1 to the first
/// token and to a noun-like key, the others spread out.
fn head_score(head: usize, q: usize, k: usize) -> f64 {
    match head {
        0 if k + 1 == q => 6.0,
        0 => -(q.abs_diff(k) as f64) * 0.5,
        1 if k == 0 => 4.0,
        1 if k == 1 => 3.5,
        1 => ((q * 3 + k * 7) % 5) as f64 * 0.4 - 1.0,
        _ => ((q * 13 + k * 29 + head) % 11) as f64 * 0.35 - 1.8,
    }
}

/// The preview's prompts: "robots", "animal", "eiffel" and the encoder-decoder's "seq2seq"
/// (synthetic), and any real traces (`seq2seq.json` replaces the synthetic one).
pub fn preview_traces() -> TestTraces {
    let mut traces = BTreeMap::from([
        ("robots".to_string(), robots()),
        ("animal".to_string(), animal()),
        ("eiffel".to_string(), eiffel()),
        (
            "seq2seq".to_string(),
            crate::testing::test_seq2seq::seq2seq_trace(),
        ),
    ]);
    if let Ok(dir) = std::env::var("TBF_TRACES") {
        traces.extend(real_traces(&dir));
    }
    TestTraces(traces)
}

/// "The robots will bring", with a dozen likely next tokens.
fn robots() -> Trace {
    gpt2_like(
        &[
            (464, "The"),
            (14193, " robots"),
            (481, " will"),
            (2222, " bring"),
        ],
        &[
            (4167, " peace", -58.2),
            (262, " the", -58.9),
            (257, " a", -59.3),
            (606, " them", -59.8),
            (649, " new", -60.1),
            (514, " us", -60.2),
            (5897, " joy", -60.6),
            (7348, " jobs", -60.9),
            (1204, " life", -61.0),
            (2003, " death", -61.1),
            (477, " all", -61.3),
            (3783, " change", -61.4),
        ],
    )
}

/// "The animal didn't cross the street because it was too tired." and awkward tokens after
/// it: a paragraph break, a word split in three, a lone space, numbers, a ⏎ and markup; with
/// an ablation for a newline and " I", and a patching from "... too wide".
fn animal() -> Trace {
    let mut trace = gpt2_like(
        &[
            (464, "The"),
            (5044, " animal"),
            (1422, " didn"),
            (470, "'t"),
            (3272, " cross"),
            (262, " the"),
            (4675, " street"),
            (780, " because"),
            (340, " it"),
            (373, " was"),
            (1165, " too"),
            (10032, " tired"),
            (13, "."),
            (628, "\n\n"),
            (403, "un"),
            (6667, "belie"),
            (11203, "vable"),
            (0, "!"),
            (220, " "),
            (1160, " 20"),
            (1731, "24"),
            (15474, " ⏎"),
            (1279, " <"),
            (12048, "script"),
            (29, ">"),
        ],
        &[
            (198, "\n", -70.0),
            (383, " The", -70.8),
            (314, " I", -71.5),
            (632, " It", -71.9),
        ],
    );
    let targets = [(198, "\n", 0.31), (314, " I", 0.04)];
    let effect = |t: usize, l: usize, c: usize| eiffel_effect(t, (l + 3) % 12, c);
    trace.meta.ablation = Some(ablation(&targets, AblationMode::Zero, &effect));
    let n = trace.meta.tokens.len();
    trace.meta.attribution = Some(attribution(&[(198, "\n"), (314, " I")], n, &effect));
    let mut corrupted = trace.meta.tokens.clone();
    corrupted[11].text = " wide".to_string();
    let answer = (198, "\n");
    trace.meta.patching = Some(patching(corrupted, (11, 11), answer, (383, " The")));
    trace
}

/// "The Eiffel Tower is in the city of", with an ablation for " Paris" and " Rome" and a
/// patching from "The ancient Colosseum is in the city of" (as many tokens).
fn eiffel() -> Trace {
    let clean = [
        (464, "The"),
        (412, " E"),
        (733, "iff"),
        (417, "el"),
        (8765, " Tower"),
        (318, " is"),
        (287, " in"),
        (262, " the"),
        (1748, " city"),
        (286, " of"),
    ];
    let mut trace = gpt2_like(
        &clean,
        &[
            (6342, " Paris", -55.0),
            (10598, " Rome", -57.6),
            (3576, " London", -57.9),
            (262, " the", -58.2),
            (968, " New", -58.6),
        ],
    );
    let targets = [(6342, " Paris", 0.412), (10598, " Rome", 0.031)];
    trace.meta.ablation = Some(ablation(&targets, AblationMode::Mean, &eiffel_effect));
    let named = [(6342, " Paris"), (10598, " Rome")];
    let n = trace.meta.tokens.len();
    trace.meta.attribution = Some(attribution(&named, n, &eiffel_effect));
    let mut corrupted = clean;
    corrupted[1..5].copy_from_slice(&[
        (6156, " ancient"),
        (1623, " Col"),
        (418, "os"),
        (325, "seum"),
    ]);
    let patched = patching(
        tokens(&corrupted),
        (1, 4),
        (6342, " Paris"),
        (10598, " Rome"),
    );
    trace.meta.patching = Some(patched);
    trace
}

/// Every `.json` trace in the folder `dir`, by file stem.
fn real_traces(dir: &str) -> Vec<(String, Trace)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("TBF_TRACES is a folder")
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            out.push((name, Trace::read(&path).expect("a readable trace")));
        }
    }
    out
}
