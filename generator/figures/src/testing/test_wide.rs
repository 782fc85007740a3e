//! Activations of GPT-2 small's shape (d = 768, 12 heads, 12 layers) for the preview page
//! and for size limits: pseudo-random but with GPT-2's habits (a residual stream that
//! grows with depth, a few outlier dimensions, a first token with a huge norm), and
//! consistent where a figure could tell: patterns are the causal softmax of the scores,
//! z = pattern·v, GELU, LayerNorm statistics, residual adds, loss from the logits.

use crate::testing::test_forward::{gelu, stats};
use tracebook_trace::Trace;

/// A deterministic stream of numbers in [−1, 1) (a linear congruential generator).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// Roughly normal: the sum of four uniforms.
    fn normal(&mut self) -> f64 {
        (self.next() + self.next() + self.next() + self.next()) * 0.87
    }
}

/// Writes every activation tensor for `trace`'s tokens and model, with attention scores
/// `score(layer, head, query, key)`.
pub fn insert_wide(trace: &mut Trace, score: &dyn Fn(usize, usize, usize, usize) -> f64) {
    let config = trace.meta.model.config.clone();
    let (n, d, heads) = (trace.meta.tokens.len(), config.n_embd, config.n_head);
    let dh = d / heads;
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    let embed: Vec<Vec<f64>> = (0..n).map(|_| row(&mut noise, d, 0.12)).collect();
    let pos: Vec<Vec<f64>> = (0..n)
        .map(|p| row(&mut noise, d, if p == 0 { 0.3 } else { 0.05 }))
        .collect();
    put(trace, "embed", &embed);
    put(trace, "pos_embed", &pos);
    let mut resid: Vec<Vec<f64>> = (0..n).map(|t| add(&embed[t], &pos[t])).collect();
    for layer in 0..config.n_layer {
        let name = |what: &str| format!("blocks.{layer}.{what}");
        put(trace, &name("resid_pre"), &resid);
        layer_norm(trace, &name("ln1"), &resid);
        let (attn_out, parts) = attention(&mut noise, layer, n, heads, dh, score);
        for (what, data) in parts {
            let data: Vec<f32> = data.iter().map(|&v| v as f32).collect();
            let shape = if what.ends_with("scores") || what.ends_with("pattern") {
                vec![heads, n, n]
            } else {
                vec![heads, n, dh]
            };
            trace.insert(&name(what), shape, &data).unwrap();
        }
        put(trace, &name("attn_out"), &attn_out);
        resid = (0..n).map(|t| add(&resid[t], &attn_out[t])).collect();
        put(trace, &name("resid_mid"), &resid);
        layer_norm(trace, &name("ln2"), &resid);
        let pre: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                row(&mut noise, 4 * d, 1.0)
                    .iter()
                    .map(|v| v - 0.6)
                    .collect()
            })
            .collect();
        let post: Vec<Vec<f64>> = pre
            .iter()
            .map(|r| r.iter().map(|&v| gelu(v)).collect())
            .collect();
        put(trace, &name("mlp.pre"), &pre);
        put(trace, &name("mlp.post"), &post);
        let growth = 0.4 + layer as f64 * 0.25;
        let mlp_out: Vec<Vec<f64>> = (0..n)
            .map(|t| {
                let mut r = row(&mut noise, d, growth * if t == 0 { 6.0 } else { 1.0 });
                r[138] += 4.0 * growth;
                r
            })
            .collect();
        put(trace, &name("mlp_out"), &mlp_out);
        resid = (0..n).map(|t| add(&resid[t], &mlp_out[t])).collect();
        put(trace, &name("resid_post"), &resid);
    }
    let normed: Vec<Vec<f64>> = resid.iter().map(|r| normalize(r)).collect();
    put(trace, "ln_final.normalized", &normed);
}

type Parts = Vec<(&'static str, Vec<f64>)>;

/// q, k, v, scores, pattern and z of one layer; and attn_out.
fn attention(
    noise: &mut Noise,
    layer: usize,
    n: usize,
    heads: usize,
    dh: usize,
    score: &dyn Fn(usize, usize, usize, usize) -> f64,
) -> (Vec<Vec<f64>>, Parts) {
    let mut parts: Parts = [
        "attn.q",
        "attn.k",
        "attn.v",
        "attn.scores",
        "attn.pattern",
        "attn.z",
    ]
    .into_iter()
    .map(|name| (name, Vec::new()))
    .collect();
    let mut concat = vec![Vec::with_capacity(heads * dh); n];
    for head in 0..heads {
        let v: Vec<Vec<f64>> = (0..n).map(|_| row(noise, dh, 0.8)).collect();
        for t in 0..n {
            parts[0].1.extend(row(noise, dh, 1.5));
            parts[1].1.extend(row(noise, dh, 1.5));
            parts[2].1.extend(&v[t]);
            let scores: Vec<f64> = (0..n).map(|k| score(layer, head, t, k)).collect();
            let top = scores[..=t]
                .iter()
                .fold(f64::NEG_INFINITY, |m, &s| m.max(s));
            let exps: Vec<f64> = scores[..=t].iter().map(|s| (s - top).exp()).collect();
            let total: f64 = exps.iter().sum();
            let weights: Vec<f64> = (0..n)
                .map(|k| exps.get(k).map_or(0.0, |e| e / total))
                .collect();
            let z: Vec<f64> = (0..dh)
                .map(|i| (0..=t).map(|k| weights[k] * v[k][i]).sum())
                .collect();
            parts[3].1.extend(scores);
            parts[4].1.extend(weights);
            parts[5].1.extend(&z);
            concat[t].extend(z);
        }
    }
    let out = concat
        .iter()
        .map(|z| z.iter().map(|v| v * 0.9 + noise.normal() * 0.1).collect())
        .collect();
    (out, parts)
}

fn layer_norm(trace: &mut Trace, prefix: &str, x: &[Vec<f64>]) {
    let (means, stds): (Vec<f64>, Vec<f64>) = x.iter().map(|r| stats(r)).unzip();
    let to32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    trace
        .insert(&format!("{prefix}.mean"), vec![x.len()], &to32(&means))
        .unwrap();
    trace
        .insert(&format!("{prefix}.std"), vec![x.len()], &to32(&stds))
        .unwrap();
    let normed: Vec<Vec<f64>> = x.iter().map(|r| normalize(r)).collect();
    put(trace, &format!("{prefix}.normalized"), &normed);
}

fn normalize(x: &[f64]) -> Vec<f64> {
    let (mean, std) = stats(x);
    x.iter()
        .enumerate()
        .map(|(j, v)| (v - mean) / std * (0.8 + 0.2 * ((j % 5) as f64 / 4.0)))
        .collect()
}

fn row(noise: &mut Noise, len: usize, scale: f64) -> Vec<f64> {
    (0..len).map(|_| noise.normal() * scale).collect()
}

fn add(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

fn put(trace: &mut Trace, name: &str, rows: &[Vec<f64>]) {
    let data: Vec<f32> = rows.iter().flatten().map(|&x| x as f32).collect();
    let shape = vec![rows.len(), rows.first().map_or(0, Vec::len)];
    trace.insert(name, shape, &data).unwrap();
}
