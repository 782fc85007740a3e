//! The size target: a compact trace of a GPT-2-small run takes at most 1 byte per value.

use crate::common::{meta, Rng};
use tracebook_trace::{Encoding, Precision, Trace};

const LAYERS: usize = 12;
const HEADS: usize = 12;
const WIDTH: usize = 768;
const TOKENS: usize = 16;
const VOCAB: usize = 50257;
const TOP_K: usize = 20;

/// Every tensor of the AUTHORING.md table at GPT-2-small sizes, with values of realistic scale.
fn gpt2_small_trace(precision: Precision) -> Trace {
    let mut rng = Rng::new(42);
    let mut trace = Trace::new(meta(precision));
    let (t, d, h, dh) = (TOKENS, WIDTH, HEADS, WIDTH / HEADS);
    let mut put = |name: &str, shape: Vec<usize>, data: Vec<f32>| {
        trace.insert(name, shape, &data).unwrap();
    };
    put("embed", vec![t, d], rng.normals(t * d, 0.1));
    put("pos_embed", vec![t, d], rng.normals(t * d, 0.05));
    for l in 0..LAYERS {
        let b = format!("blocks.{l}");
        put(&format!("{b}.resid_pre"), vec![t, d], residual(&mut rng, l));
        for ln in ["ln1", "ln2"] {
            put(&format!("{b}.{ln}.mean"), vec![t], rng.normals(t, 0.1));
            let std = rng.normals(t, 0.5).iter().map(|x| 1.0 + x.abs()).collect();
            put(&format!("{b}.{ln}.std"), vec![t], std);
            put(
                &format!("{b}.{ln}.normalized"),
                vec![t, d],
                rng.normals(t * d, 1.0),
            );
        }
        for part in ["q", "k", "v", "z"] {
            put(
                &format!("{b}.attn.{part}"),
                vec![h, t, dh],
                rng.normals(h * t * dh, 1.5),
            );
        }
        put(
            &format!("{b}.attn.scores"),
            vec![h, t, t],
            rng.normals(h * t * t, 3.0),
        );
        put(
            &format!("{b}.attn.pattern"),
            vec![h, t, t],
            rng.causal_pattern(h * t, t),
        );
        put(
            &format!("{b}.attn_out"),
            vec![t, d],
            rng.normals(t * d, 1.0),
        );
        put(&format!("{b}.resid_mid"), vec![t, d], residual(&mut rng, l));
        let pre = rng.normals(t * 4 * d, 2.0);
        let post = pre.iter().map(|&x| gelu(x)).collect();
        put(&format!("{b}.mlp.pre"), vec![t, 4 * d], pre);
        put(&format!("{b}.mlp.post"), vec![t, 4 * d], post);
        put(&format!("{b}.mlp_out"), vec![t, d], rng.normals(t * d, 1.0));
        put(
            &format!("{b}.resid_post"),
            vec![t, d],
            residual(&mut rng, l),
        );
    }
    put("ln_final.normalized", vec![t, d], rng.normals(t * d, 1.0));
    let logits: Vec<f32> = rng.normals(VOCAB, 3.0).iter().map(|x| x - 80.0).collect();
    put("logits.last", vec![VOCAB], logits);
    let ids = (0..t * TOP_K).map(|_| rng.below(VOCAB) as f32).collect();
    put("logits.topk_ids", vec![t, TOP_K], ids);
    put(
        "logits.topk_values",
        vec![t, TOP_K],
        rng.normals(t * TOP_K, 3.0),
    );
    trace
}

/// A residual stream that grows with depth, with GPT-2's few huge dimensions.
fn residual(rng: &mut Rng, layer: usize) -> Vec<f32> {
    let mut data = rng.normals(TOKENS * WIDTH, 1.0 + layer as f32);
    for row in data.chunks_mut(WIDTH) {
        row[138] = 300.0 + rng.normal() * 20.0;
    }
    data
}

fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044_715 * x * x * x)).tanh())
}

#[test]
fn a_compact_gpt2_small_trace_takes_at_most_one_byte_per_value() {
    let trace = gpt2_small_trace(Precision::Compact);
    let names = trace.tensor_names().count();
    assert_eq!(names, 2 + LAYERS * 19 + 4, "every tensor of the table");
    assert!(trace
        .tensor_names()
        .all(|n| trace.encoding(n) != Some(Encoding::F32) || n == "logits.topk_ids"));
    let bytes = trace.to_json().len();
    let values = trace.stored_values();
    let per_value = bytes as f64 / values as f64;
    println!("compact GPT-2 small trace (T={TOKENS}): {bytes} bytes, {values} values, {per_value:.3} bytes/value");
    assert!(per_value <= 1.0, "{per_value:.3} bytes per value");
}

#[test]
fn f16_and_f32_traces_take_at_most_what_their_encodings_promise() {
    for (precision, raw) in [(Precision::F16, 2.0), (Precision::F32, 4.0)] {
        let trace = gpt2_small_trace(precision);
        let per_value = trace.to_json().len() as f64 / trace.stored_values() as f64;
        println!("{precision} GPT-2 small trace: {per_value:.3} bytes/value");
        // Compression only ever makes a tensor smaller.
        let base64 = raw * 4.0 / 3.0;
        assert!(per_value < base64 * 1.01, "{precision}: {per_value:.3}");
    }
}
