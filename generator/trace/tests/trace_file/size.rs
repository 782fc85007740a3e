//! The size target: a compact trace of a GPT-2-small run takes at most 1 byte per value.

use crate::common::{meta, Rng};
use tracebook_trace::{Derivation, DeriveOp, Encoding, Precision, Trace};

const LAYERS: usize = 12;
const HEADS: usize = 12;
const WIDTH: usize = 768;
const TOKENS: usize = 16;
const VOCAB: usize = 50257;
const TOP_K: usize = 20;

/// Every tensor of the trace table at GPT-2-small sizes, with values of realistic scale, stored
/// as the tracer stores them: what follows from other tensors is derived.
fn gpt2_small_trace(precision: Precision) -> Trace {
    let mut rng = Rng::new(42);
    let mut trace = Trace::new(meta(precision));
    let (t, d, h, dh) = (TOKENS, WIDTH, HEADS, WIDTH / HEADS);
    let mut put = |name: &str, shape: Vec<usize>, data: Vec<f32>, how: Option<Derivation>| match how
    {
        Some(how) => trace.insert_derived(name, shape, &data, how).unwrap(),
        None => trace.insert(name, shape, &data).unwrap(),
    };
    // Only a sum's values are read by the writer (to re-encode its last base); the other
    // derived tensors store their computation whatever values the model gave.
    let unread = |n: usize| vec![0.0; n];
    let derive = |op, from: &[&str]| Some(Derivation::new(op, from));
    let add = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x + y).collect::<Vec<_>>();
    let embed = rng.normals(t * d, 0.1);
    let pos = rng.normals(t * d, 0.05);
    let mut resid = add(&embed, &pos);
    put("embed", vec![t, d], embed, None);
    put("pos_embed", vec![t, d], pos, None);
    let mut input = derive(DeriveOp::Sum, &["embed", "pos_embed"]);
    for l in 0..LAYERS {
        let b = format!("blocks.{l}");
        let at = |hook: &str| format!("{b}.{hook}");
        put(&at("resid_pre"), vec![t, d], resid.clone(), input);
        for (ln, x) in [("ln1", at("resid_pre")), ("ln2", at("resid_mid"))] {
            if ln == "ln2" {
                let attn_out = residual(&mut rng, l);
                resid = add(&resid, &attn_out);
                put(&at("attn_out"), vec![t, d], attn_out, None);
                let how = derive(DeriveOp::Sum, &[&at("resid_pre"), &at("attn_out")]);
                put(&at("resid_mid"), vec![t, d], resid.clone(), how);
            }
            let (w, bias) = (at(&format!("{ln}.w")), at(&format!("{ln}.b")));
            put(&w, vec![d], rng.normals(d, 0.3), None);
            put(&bias, vec![d], rng.normals(d, 0.1), None);
            let stat = |op| derive(op, &[&x]).map(|s| s.with_eps(1e-5));
            put(
                &at(&format!("{ln}.mean")),
                vec![t],
                unread(t),
                derive(DeriveOp::Mean, &[&x]),
            );
            put(
                &at(&format!("{ln}.std")),
                vec![t],
                unread(t),
                stat(DeriveOp::Std),
            );
            let how = derive(DeriveOp::LayerNorm, &[&x, &w, &bias]).map(|s| s.with_eps(1e-5));
            put(
                &at(&format!("{ln}.normalized")),
                vec![t, d],
                unread(t * d),
                how,
            );
            if ln == "ln1" {
                for part in ["q", "k", "v"] {
                    let data = rng.normals(h * t * dh, 1.5);
                    put(&at(&format!("attn.{part}")), vec![h, t, dh], data, None);
                }
                let (q, k, v) = (at("attn.q"), at("attn.k"), at("attn.v"));
                let (scores, pattern) = (at("attn.scores"), at("attn.pattern"));
                let dot = derive(DeriveOp::Dot, &[&q, &k]).map(|s| s.with_scale(0.125));
                put(&scores, vec![h, t, t], unread(h * t * t), dot);
                let softmax = derive(DeriveOp::CausalSoftmax, &[&scores]);
                put(&pattern, vec![h, t, t], unread(h * t * t), softmax);
                let z = derive(DeriveOp::Matmul, &[&pattern, &v]);
                put(&at("attn.z"), vec![h, t, dh], unread(h * t * dh), z);
            }
        }
        put(
            &at("mlp.pre"),
            vec![t, 4 * d],
            rng.normals(t * 4 * d, 2.0),
            None,
        );
        let gelu = derive(DeriveOp::GeluTanh, &[&at("mlp.pre")]);
        put(&at("mlp.post"), vec![t, 4 * d], unread(t * 4 * d), gelu);
        let mlp_out = rng.normals(t * d, 1.0);
        resid = add(&resid, &mlp_out);
        put(&at("mlp_out"), vec![t, d], mlp_out, None);
        let how = derive(DeriveOp::Sum, &[&at("resid_mid"), &at("mlp_out")]);
        put(&at("resid_post"), vec![t, d], resid.clone(), how);
        input = Some(Derivation::new(DeriveOp::Sum, &[&at("resid_post")]));
    }
    let last = format!("blocks.{}.resid_post", LAYERS - 1);
    put("ln_final.w", vec![d], rng.normals(d, 0.3), None);
    put("ln_final.b", vec![d], rng.normals(d, 0.1), None);
    let how = derive(DeriveOp::LayerNorm, &[&last, "ln_final.w", "ln_final.b"]);
    put(
        "ln_final.normalized",
        vec![t, d],
        unread(t * d),
        how.map(|s| s.with_eps(1e-5)),
    );
    let logits: Vec<f32> = rng.normals(VOCAB, 3.0).iter().map(|x| x - 80.0).collect();
    put("logits.last", vec![VOCAB], logits, None);
    let ids = (0..t * TOP_K).map(|_| rng.below(VOCAB) as f32).collect();
    put("logits.topk_ids", vec![t, TOP_K], ids, None);
    let values = rng.normals(t * TOP_K, 3.0);
    put("logits.topk_values", vec![t, TOP_K], values, None);
    put("logits.lse", vec![t], rng.normals(t, 3.0), None);
    put("loss.per_token", vec![t - 1], rng.normals(t - 1, 3.0), None);
    let lens = LAYERS * t * 10;
    let ids = (0..lens).map(|_| rng.below(VOCAB) as f32).collect();
    put("logit_lens.topk_ids", vec![LAYERS, t, 10], ids, None);
    let logits = rng.normals(lens, 3.0);
    put("logit_lens.topk_logits", vec![LAYERS, t, 10], logits, None);
    put(
        "logit_lens.lse",
        vec![LAYERS, t],
        rng.normals(LAYERS * t, 3.0),
        None,
    );
    let how = derive(
        DeriveOp::ExpDiff,
        &["logit_lens.topk_logits", "logit_lens.lse"],
    );
    put(
        "logit_lens.topk_probs",
        vec![LAYERS, t, 10],
        unread(lens),
        how,
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

#[test]
fn a_compact_gpt2_small_trace_takes_at_most_one_byte_per_value() {
    let trace = gpt2_small_trace(Precision::Compact);
    let names = trace.tensor_names().count();
    assert_eq!(
        names,
        2 + LAYERS * 23 + 3 + 5 + 4,
        "every tensor of the table"
    );
    let exact = ["logits.topk_ids", "logits.lse", "loss.per_token"];
    assert!(trace
        .tensor_names()
        .all(|n| trace.encoding(n) != Some(Encoding::F32)
            || exact.contains(&n)
            || n.starts_with("logit_lens.")));
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
