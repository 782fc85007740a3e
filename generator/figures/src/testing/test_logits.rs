//! Synthetic logits for tests: one row per position (the last is [`logits`]), the top-k
//! and log-sum-exp a trace derives from them, the per-token loss, a logit lens whose last
//! layer is the model's own prediction, and a three-step generation.

use tracebook_trace::{Candidate, GenerationStep, Trace};

pub const VOCAB: usize = 40;
pub const TOP_K: usize = 12;

/// Token texts of the tiny vocabulary, hostile ones included.
pub const TEXTS: [&str; VOCAB] = [
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

/// Distinct logits around −80 (GPT-2's range), largest at id 9 (" light").
pub fn logits() -> Vec<f32> {
    (0..VOCAB)
        .map(|i| -80.0 + ((i * 17 + 6) % VOCAB) as f32 * 0.3)
        .collect()
}

/// The logits at position `p` of `n`: [`logits`] at the last, perturbed elsewhere.
pub fn position_logits(p: usize, n: usize) -> Vec<f32> {
    let base = logits();
    if p + 1 == n {
        return base;
    }
    base.iter()
        .enumerate()
        .map(|(i, l)| l + 2.5 * ((p as f32) * 1.7 + i as f32 * 0.9).sin())
        .collect()
}

/// log Σ exp, in f64.
pub fn lse(row: &[f32]) -> f64 {
    let max = row
        .iter()
        .fold(f64::NEG_INFINITY, |m, &l| m.max(f64::from(l)));
    max + row
        .iter()
        .map(|&l| (f64::from(l) - max).exp())
        .sum::<f64>()
        .ln()
}

/// Ids of `row` from largest to smallest (ties: lower id first).
pub fn order(row: &[f32]) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..row.len()).collect();
    ids.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
    ids
}

/// Writes the same logits `last` at every one of `n_tokens` positions.
pub fn insert_logits(trace: &mut Trace, n_tokens: usize, last: &[f32]) {
    insert_logit_rows(trace, &vec![last.to_vec(); n_tokens]);
}

/// Writes `logits.last`, `logits.topk_ids` / `.topk_values` and `logits.lse` from one
/// row of logits per position.
pub fn insert_logit_rows(trace: &mut Trace, rows: &[Vec<f32>]) {
    let n = rows.len();
    let mut ids = Vec::new();
    let mut values = Vec::new();
    for row in rows {
        for &i in &order(row)[..TOP_K] {
            ids.push(i as f32);
            values.push(row[i]);
        }
    }
    let lses: Vec<f32> = rows.iter().map(|r| lse(r) as f32).collect();
    let last = &rows[n - 1];
    trace.insert("logits.last", vec![last.len()], last).unwrap();
    trace
        .insert("logits.topk_ids", vec![n, TOP_K], &ids)
        .unwrap();
    trace
        .insert("logits.topk_values", vec![n, TOP_K], &values)
        .unwrap();
    trace.insert("logits.lse", vec![n], &lses).unwrap();
}

/// The lens distribution of `layer` at a position whose logits are `row`: the logits
/// scaled by (layer + 1) / 2, so the last of the two layers is the model's own.
pub fn lens_probs(layer: usize, row: &[f32]) -> Vec<f64> {
    let scale = (layer + 1) as f32 / 2.0;
    let scaled: Vec<f32> = row.iter().map(|l| l * scale).collect();
    let total = lse(&scaled);
    scaled
        .iter()
        .map(|&l| (f64::from(l) - total).exp())
        .collect()
}

/// Writes `loss.per_token` (−ln p of each next prompt token) and the logit lens.
pub fn insert_loss_and_lens(trace: &mut Trace, ids: &[u32], rows: &[Vec<f32>]) {
    let n = ids.len();
    let loss: Vec<f32> = (0..n.saturating_sub(1))
        .map(|i| (lse(&rows[i]) - f64::from(rows[i][ids[i + 1] as usize])) as f32)
        .collect();
    trace
        .insert("loss.per_token", vec![loss.len()], &loss)
        .unwrap();
    let (mut lens_ids, mut lens_probs_out) = (Vec::new(), Vec::new());
    for layer in 0..2 {
        for row in rows {
            let probs = lens_probs(layer, row);
            let probs32: Vec<f32> = probs.iter().map(|&p| p as f32).collect();
            for &i in &order(&probs32)[..10] {
                lens_ids.push(i as f32);
                lens_probs_out.push(probs32[i]);
            }
        }
    }
    let shape = vec![2, n, 10];
    trace
        .insert("logit_lens.topk_ids", shape.clone(), &lens_ids)
        .unwrap();
    trace
        .insert("logit_lens.topk_probs", shape, &lens_probs_out)
        .unwrap();
}

/// Three steps continuing a prompt whose last logits are `last`: the likeliest token,
/// then the second likeliest (as a sampler might pick), then the likeliest again, each
/// step's distribution shifted so the steps differ.
pub fn generation(last: &[f32]) -> Vec<GenerationStep> {
    (0..3)
        .map(|step| {
            let row: Vec<f32> = last
                .iter()
                .enumerate()
                .map(|(i, l)| l + (step * i % 7) as f32 * 0.4)
                .collect();
            let total = lse(&row);
            let prob = |i: usize| (f64::from(row[i]) - total).exp() as f32;
            let ranked = order(&row);
            let chosen = ranked[usize::from(step == 1)];
            GenerationStep {
                id: chosen as u32,
                text: TEXTS[chosen].to_string(),
                prob: prob(chosen),
                top: ranked[..5]
                    .iter()
                    .map(|&i| Candidate {
                        id: i as u32,
                        text: TEXTS[i].to_string(),
                        prob: prob(i),
                    })
                    .collect(),
            }
        })
        .collect()
}
