//! A tiny Llama-family trace for the kinds that draw what GPT-2 lacks (grouped key/value
//! heads, RoPE, RMSNorm, a gated MLP): 2 layers, d = 8, 4 query heads sharing 2 key/value
//! heads of 8 dimensions, an MLP 12 wide, on the tokens of the GPT-2 test traces. Inputs are
//! smooth formulas; every tensor made from them is computed as the model computes it:
//! RMSNorm `x / √(mean(x²) + eps) · w`, q and k turned by position × θ^(−2i/dh) with pair i
//! being dims (i, i + dh/2) (transformers' rotate_half), and `SiLU(gate) × up`.

use crate::testing::test_traces::trace_of;
use tracebook_trace::{ModelShape, Trace};

pub const D: usize = 8;
pub const HEADS: usize = 4;
pub const KV_HEADS: usize = 2;
pub const DH: usize = 8;
pub const INNER: usize = 12;
pub const LAYERS: usize = 2;
pub const THETA: f64 = 1_000.0;
pub const EPS: f64 = 1e-6;

/// The Llama test trace of the prompt made of vocabulary ids `ids`.
pub fn llama_trace_of(ids: &[u32]) -> Trace {
    let mut meta = trace_of(ids).meta;
    meta.model.id = "test/tiny-llama".to_string();
    meta.model.config = ModelShape {
        n_layer: LAYERS,
        n_head: HEADS,
        n_embd: D,
        n_positions: 64,
        vocab_size: meta.model.config.vocab_size,
        layer_norm_epsilon: EPS,
        activation_function: "silu".to_string(),
        model_type: Some("llama".to_string()),
        n_kv_head: Some(KV_HEADS),
        head_dim: Some(DH),
        rope_theta: Some(THETA),
        decoder: None,
        seq2seq: None,
    };
    let mut trace = Trace::new(meta);
    for layer in 0..LAYERS {
        insert_layer(&mut trace, layer, ids);
    }
    trace
}

pub fn llama_trace() -> Trace {
    llama_trace_of(&[10, 11, 12, 13])
}

/// The input of layer `layer` at the token `id`: with a mean away from zero, so that the
/// mean RMSNorm keeps is visible.
pub fn resid_pre(layer: usize, id: u32) -> Vec<f64> {
    (0..D)
        .map(|j| 0.2 + 0.7 * (f64::from(id) * 0.37 + j as f64 * 1.3 + layer as f64).sin())
        .collect()
}

/// RMSNorm's learned weight of dimension `j`.
pub fn norm_weight(j: usize) -> f64 {
    1.0 + 0.1 * j as f64
}

/// `√(mean(x²) + eps)`.
pub fn rms(x: &[f64]) -> f64 {
    (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64 + EPS).sqrt()
}

/// The angle pair `i` turns per position.
pub fn frequency(i: usize) -> f64 {
    THETA.powf(-2.0 * i as f64 / DH as f64)
}

/// `x` (one head's dh values) turned to position `p`: pair i = (x[i], x[i + dh/2]) rotated
/// by p × [`frequency`] i.
pub fn rotate(x: &[f64], p: usize) -> Vec<f64> {
    let half = x.len() / 2;
    let mut out = x.to_vec();
    for i in 0..half {
        let (sin, cos) = (p as f64 * frequency(i)).sin_cos();
        out[i] = x[i] * cos - x[i + half] * sin;
        out[i + half] = x[i + half] * cos + x[i] * sin;
    }
    out
}

/// An unrotated query (`of` = 0) or key (`of` = 1) of head `head` at position `t`.
pub fn unrotated(of: usize, layer: usize, head: usize, t: usize) -> Vec<f64> {
    (0..DH)
        .map(|i| {
            (0.9 * head as f64 + 0.5 * t as f64 + 1.7 * i as f64 + layer as f64 + of as f64).sin()
        })
        .collect()
}

pub fn silu(x: f64) -> f64 {
    x / (1.0 + (-x).exp())
}

/// Gate and up of the MLP from its input `x`.
pub fn gate_up(layer: usize, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let project = |phase: f64| -> Vec<f64> {
        (0..INNER)
            .map(|n| {
                x.iter()
                    .enumerate()
                    .map(|(j, v)| v * (0.4 * ((n * 7 + j * 3 + layer) as f64 + phase).cos()))
                    .sum()
            })
            .collect()
    };
    (project(0.0), project(1.1))
}

fn insert_layer(trace: &mut Trace, layer: usize, ids: &[u32]) {
    let n = ids.len();
    let pre: Vec<Vec<f64>> = ids.iter().map(|&id| resid_pre(layer, id)).collect();
    let mid: Vec<Vec<f64>> = pre
        .iter()
        .map(|x| x.iter().map(|v| 0.8 * v - 0.1).collect())
        .collect();
    put(trace, &format!("blocks.{layer}.resid_pre"), &pre);
    put(trace, &format!("blocks.{layer}.resid_mid"), &mid);
    norm(trace, &format!("blocks.{layer}.ln1"), &pre);
    let normed = norm(trace, &format!("blocks.{layer}.ln2"), &mid);
    for (of, name, heads) in [(0, "q", HEADS), (1, "k", KV_HEADS)] {
        let raw: Vec<Vec<f64>> = (0..heads)
            .flat_map(|h| (0..n).map(move |t| unrotated(of, layer, h, t)))
            .collect();
        let turned: Vec<Vec<f64>> = raw
            .iter()
            .enumerate()
            .map(|(row, x)| rotate(x, row % n))
            .collect();
        let shape = vec![heads, n, DH];
        let base = format!("blocks.{layer}.attn.{name}");
        insert(trace, &format!("{base}_unrotated"), shape.clone(), &raw);
        insert(trace, &base, shape, &turned);
    }
    let (gate, up): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
        normed.iter().map(|x| gate_up(layer, x)).unzip();
    let act: Vec<Vec<f64>> = gate
        .iter()
        .map(|r| r.iter().map(|&g| silu(g)).collect())
        .collect();
    let post: Vec<Vec<f64>> = act
        .iter()
        .zip(&up)
        .map(|(a, u)| a.iter().zip(u).map(|(a, u)| a * u).collect())
        .collect();
    for (name, rows) in [("gate", gate), ("up", up), ("act", act), ("post", post)] {
        put(trace, &format!("blocks.{layer}.mlp.{name}"), &rows);
    }
}

/// `<prefix>.rms` and `.normalized` of `x`; returns the output.
fn norm(trace: &mut Trace, prefix: &str, x: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let rmses: Vec<f64> = x.iter().map(|r| rms(r)).collect();
    let out: Vec<Vec<f64>> = x
        .iter()
        .zip(&rmses)
        .map(|(r, s)| {
            r.iter()
                .enumerate()
                .map(|(j, v)| v / s * norm_weight(j))
                .collect()
        })
        .collect();
    insert(trace, &format!("{prefix}.rms"), vec![x.len()], &[rmses]);
    put(trace, &format!("{prefix}.normalized"), &out);
    out
}

fn put(trace: &mut Trace, name: &str, rows: &[Vec<f64>]) {
    let shape = vec![rows.len(), rows.first().map_or(0, Vec::len)];
    insert(trace, name, shape, rows);
}

fn insert(trace: &mut Trace, name: &str, shape: Vec<usize>, rows: &[Vec<f64>]) {
    let data: Vec<f32> = rows.iter().flatten().map(|&x| x as f32).collect();
    trace.insert(name, shape, &data).unwrap();
}
