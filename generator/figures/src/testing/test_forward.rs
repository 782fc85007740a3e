//! A synthetic forward pass for the tiny test model (d = 8, 2 heads of 4, 2 layers), so
//! test traces hold every activation a real trace does and the relations between them
//! hold: resid_mid = resid_pre + attn_out, scores = q·k/√dh, pattern = causal softmax,
//! z = pattern·v, mlp.post = GELU(mlp.pre), LayerNorm outputs from their mean and std.
//!
//! Weights are smooth deterministic formulas, not learned; queries and keys are chosen so
//! that q·k/√dh is exactly
//! [`score`], which the attention tests know in closed form.

use tracebook_trace::Trace;

pub const D: usize = 8;
pub const HEADS: usize = 2;
pub const DH: usize = 4;
pub const LAYERS: usize = 2;
pub const MLP: usize = 4 * D;

/// Row-major `rows × cols` values, the layout traces use.
pub type Rows = Vec<Vec<f64>>;

/// The token embedding row of vocabulary id `id`.
pub fn wte(id: u32) -> Vec<f64> {
    (0..D)
        .map(|j| 0.6 * (f64::from(id) * 0.37 + j as f64 * 1.3).sin())
        .collect()
}

/// The position embedding row of position `p`.
pub fn wpe(p: usize) -> Vec<f64> {
    (0..D)
        .map(|j| 0.25 * (p as f64 * 0.5 + j as f64 * 0.9).cos())
        .collect()
}

/// Query of position `q` in `layer`, `head`: with [`key`], q·k/√dh = [`score`].
pub fn query(layer: usize, head: usize, q: usize) -> [f64; DH] {
    let phase = (layer * 7 + head * 3) as f64;
    let a = q as f64 * 5.0 * 0.7 + phase;
    let root = (DH as f64).sqrt();
    [3.0 * a.sin() * root, 3.0 * a.cos() * root, 2.0 * root, 0.5]
}

/// Key of position `k` (see [`query`]).
pub fn key(_layer: usize, _head: usize, k: usize) -> [f64; DH] {
    let b = k as f64 * 3.0 * 0.7;
    [b.cos(), b.sin(), if k == 0 { 1.0 } else { 0.0 }, 0.0]
}

/// Value of position `k`.
pub fn value(layer: usize, head: usize, k: usize) -> [f64; DH] {
    std::array::from_fn(|i| (k as f64 * 1.1 + i as f64 * 0.8 + (layer + 2 * head) as f64).sin())
}

/// GPT-2's GELU (the tanh approximation).
pub fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044_715 * x.powi(3))).tanh())
}

/// Mean and `sqrt(var + eps)` of `x`, as LayerNorm computes them.
pub fn stats(x: &[f64]) -> (f64, f64) {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / x.len() as f64;
    (mean, (var + 1e-5).sqrt())
}

/// Writes every activation of the forward pass over `ids` into `trace`.
pub fn insert_forward(trace: &mut Trace, ids: &[u32]) {
    let n = ids.len();
    let embed: Rows = ids.iter().map(|&id| wte(id)).collect();
    let pos: Rows = (0..n).map(wpe).collect();
    put(trace, "embed", &embed);
    put(trace, "pos_embed", &pos);
    let mut resid: Rows = embed
        .iter()
        .zip(&pos)
        .map(|(e, p)| e.iter().zip(p).map(|(a, b)| a + b).collect())
        .collect();
    for layer in 0..LAYERS {
        put(trace, &format!("blocks.{layer}.resid_pre"), &resid);
        layer_norm(trace, &format!("blocks.{layer}.ln1"), &resid);
        let attn_out = attention(trace, layer, n);
        put(trace, &format!("blocks.{layer}.attn_out"), &attn_out);
        resid = add(&resid, &attn_out);
        put(trace, &format!("blocks.{layer}.resid_mid"), &resid);
        let normed = layer_norm(trace, &format!("blocks.{layer}.ln2"), &resid);
        let mlp_out = mlp(trace, layer, &normed);
        put(trace, &format!("blocks.{layer}.mlp_out"), &mlp_out);
        resid = add(&resid, &mlp_out);
        put(trace, &format!("blocks.{layer}.resid_post"), &resid);
    }
    let normed: Rows = resid.iter().map(|r| normalize(r)).collect();
    put(trace, "ln_final.normalized", &normed);
}

fn normalize(x: &[f64]) -> Vec<f64> {
    let (mean, std) = stats(x);
    x.iter().map(|v| (v - mean) / std).collect()
}

/// `<prefix>.mean`, `.std` and `.normalized` (weight 1, bias 0); returns the output.
fn layer_norm(trace: &mut Trace, prefix: &str, x: &Rows) -> Rows {
    let (means, stds): (Vec<f64>, Vec<f64>) = x.iter().map(|r| stats(r)).unzip();
    put(trace, &format!("{prefix}.mean"), &[means]);
    put(trace, &format!("{prefix}.std"), &[stds]);
    let normed: Rows = x.iter().map(|r| normalize(r)).collect();
    put(trace, &format!("{prefix}.normalized"), &normed);
    normed
}

/// q, k, v, z per head; returns attn_out = Wo·concat(z).
fn attention(trace: &mut Trace, layer: usize, n: usize) -> Rows {
    let mut q = Vec::new();
    let mut k = Vec::new();
    let mut v = Vec::new();
    let mut z = Vec::new();
    let mut concat = vec![vec![0.0; D]; n];
    for head in 0..HEADS {
        for (t, row) in concat.iter_mut().enumerate() {
            q.extend(query(layer, head, t));
            k.extend(key(layer, head, t));
            v.extend(value(layer, head, t));
            let weights = pattern_row(layer, head, t);
            let zt: Vec<f64> = (0..DH)
                .map(|i| (0..=t).map(|s| weights[s] * value(layer, head, s)[i]).sum())
                .collect();
            row[head * DH..(head + 1) * DH].copy_from_slice(&zt);
            z.extend(zt);
        }
    }
    for (name, data) in [("q", q), ("k", k), ("v", v), ("z", z)] {
        let data: Vec<f32> = data.iter().map(|&x| x as f32).collect();
        let name = format!("blocks.{layer}.attn.{name}");
        trace.insert(&name, vec![HEADS, n, DH], &data).unwrap();
    }
    concat
        .iter()
        .map(|zc| matmul(zc, D, |j, m| 0.3 * ((j * 5 + m * 3 + layer) as f64).sin()))
        .collect()
}

/// mlp.pre, mlp.post; returns mlp_out.
fn mlp(trace: &mut Trace, layer: usize, x: &Rows) -> Rows {
    let pre: Rows = x
        .iter()
        .map(|r| {
            let mut h = matmul(r, MLP, |n, j| 0.5 * ((n * 7 + j * 11 + layer) as f64).cos());
            h.iter_mut()
                .enumerate()
                .for_each(|(n, v)| *v -= 0.4 * (n % 3) as f64);
            h
        })
        .collect();
    let post: Rows = pre
        .iter()
        .map(|r| r.iter().map(|&v| gelu(v)).collect())
        .collect();
    put(trace, &format!("blocks.{layer}.mlp.pre"), &pre);
    put(trace, &format!("blocks.{layer}.mlp.post"), &post);
    post.iter()
        .map(|r| matmul(r, D, |j, n| 0.1 * ((j * 13 + n * 5 + layer) as f64).sin()))
        .collect()
}

/// `out[j] = Σ_m w(j, m) · x[m]` for `j < rows`.
fn matmul(x: &[f64], rows: usize, w: impl Fn(usize, usize) -> f64) -> Vec<f64> {
    (0..rows)
        .map(|j| x.iter().enumerate().map(|(m, v)| w(j, m) * v).sum())
        .collect()
}

fn add(a: &Rows, b: &Rows) -> Rows {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.iter().zip(y).map(|(u, v)| u + v).collect())
        .collect()
}

/// Inserts `rows` as a T×cols tensor, or a T vector when given as one row of statistics.
fn put(trace: &mut Trace, name: &str, rows: &[Vec<f64>]) {
    let data: Vec<f32> = rows.iter().flatten().map(|&x| x as f32).collect();
    let shape = if name.ends_with(".mean") || name.ends_with(".std") {
        vec![data.len()]
    } else {
        vec![rows.len(), rows.first().map_or(0, Vec::len)]
    };
    trace.insert(name, shape, &data).unwrap();
}

/// Scores of query `q` and key `k` in layer `layer`, head `head`: varied, signed, deterministic.
pub fn score(layer: usize, head: usize, q: usize, k: usize) -> f32 {
    let phase = (layer * 7 + head * 3) as f32;
    3.0 * ((q * 5 + k * 3) as f32 * 0.7 + phase).sin() + if k == 0 { 2.0 } else { 0.0 }
}

/// The causal softmax of [`score`] for one query row.
pub fn pattern_row(layer: usize, head: usize, q: usize) -> Vec<f64> {
    let exps: Vec<f64> = (0..=q)
        .map(|k| f64::from(score(layer, head, q, k)).exp())
        .collect();
    let total: f64 = exps.iter().sum();
    exps.iter().map(|e| e / total).collect()
}
