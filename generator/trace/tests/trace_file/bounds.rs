//! Round trips through the file format prove each encoding's documented error bound.

use crate::common::{meta, Rng};
use tracebook_trace::{exact_math, Derivation, DeriveOp, Encoding, Precision, Trace};

const COLS: usize = 64;

/// Rows of the shapes that stress a per-row quantizer.
fn hard_rows(rng: &mut Rng) -> Vec<Vec<f32>> {
    let mut rows = Vec::new();
    for scale in [1e-3, 1.0, 30.0, 1e3] {
        rows.extend((0..100).map(|_| rng.normals(COLS, scale)));
    }
    rows.push(vec![0.0; COLS]);
    rows.push(vec![3.7; COLS]);
    rows.push(vec![-1e-6; COLS]);
    for sign in [1.0, -1.0] {
        let mut outlier = rng.normals(COLS, 1.0);
        outlier[rng.below(COLS)] = sign * 5e4;
        rows.push(outlier);
    }
    for _ in 0..50 {
        rows.push(rng.normals(COLS, 4.0).iter().map(|x| -x.abs()).collect());
        rows.push(
            (0..COLS)
                .map(|_| rng.uniform() as f32 * 2.0 - 1.0)
                .collect(),
        );
        rows.push(rng.normals(COLS, 1e-6));
    }
    rows
}

/// Insert, write to JSON, read back, decode.
fn round_trip(
    precision: Precision,
    name: &str,
    shape: Vec<usize>,
    data: &[f32],
) -> (Encoding, Vec<f32>) {
    let mut trace = Trace::new(meta(precision));
    trace.insert(name, shape.clone(), data).unwrap();
    let back = Trace::from_json(&trace.to_json()).unwrap();
    let tensor = back.tensor(name).unwrap();
    assert_eq!(tensor.shape, shape, "{name} keeps its shape");
    (back.encoding(name).unwrap(), tensor.data)
}

fn assert_bitwise_equal(a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.to_bits(), y.to_bits(), "value {i}: {x} became {y}");
    }
}

/// IEEE half: relative error ≤ 2^-11 for normal values, absolute ≤ 2^-25 below 2^-14.
fn assert_f16_bound(original: &[f32], decoded: &[f32]) {
    for (&x, &y) in original.iter().zip(decoded) {
        let err = (x - y).abs();
        let bound = if x.abs() >= 2f32.powi(-14) {
            x.abs() * 2f32.powi(-11)
        } else {
            2f32.powi(-25)
        };
        assert!(err <= bound, "{x} became {y}: error {err} > {bound}");
    }
}

fn flatten(rows: &[Vec<f32>]) -> Vec<f32> {
    rows.iter().flatten().copied().collect()
}

#[test]
fn compact_activations_stay_within_max_row_over_254() {
    let rows = hard_rows(&mut Rng::new(1));
    let data = flatten(&rows);
    let (encoding, decoded) = round_trip(
        Precision::Compact,
        "blocks.3.resid_mid",
        vec![rows.len(), COLS],
        &data,
    );
    assert_eq!(encoding, Encoding::Int8Rows);
    let mut worst = 0.0f64;
    for (row, back) in rows.iter().zip(decoded.chunks(COLS)) {
        let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let bound = max * (1.0 / 254.0 + 2f32.powi(-23));
        for (&x, &y) in row.iter().zip(back) {
            assert!(
                (x - y).abs() <= bound,
                "{x} became {y} in a row of max {max}"
            );
            if max > 0.0 {
                worst = worst.max(f64::from((x - y).abs() / max));
            }
        }
        if max == 0.0 {
            assert!(back.iter().all(|&y| y == 0.0), "a row of zeros stays zeros");
        }
        let peak = row.iter().position(|x| x.abs() == max).unwrap();
        assert!(
            (row[peak] - back[peak]).abs() <= max * 2f32.powi(-23),
            "the row's peak is kept"
        );
    }
    assert!(
        worst > 0.9 / 254.0,
        "the bound is nearly reached ({worst}), so it is the right one"
    );
}

#[test]
fn compact_patterns_stay_within_1_over_510_and_keep_masked_zeros() {
    let mut rng = Rng::new(2);
    let mut data = rng.causal_pattern(12 * 16, 16);
    data.extend((0..4096).map(|_| rng.uniform() as f32));
    data.extend([0.0, 1.0, 0.5, 1.0 / 510.0, 1.0 - 1e-7]);
    let n = data.len();
    let (encoding, decoded) =
        round_trip(Precision::Compact, "blocks.5.attn.pattern", vec![n], &data);
    assert_eq!(encoding, Encoding::Unorm8);
    let bound = 1.0 / 510.0 + 2f32.powi(-24);
    let mut worst = 0.0f32;
    for (&p, &y) in data.iter().zip(&decoded) {
        assert!((p - y).abs() <= bound, "{p} became {y}");
        worst = worst.max((p - y).abs());
        if p == 0.0 || p == 1.0 {
            assert_eq!(p, y, "0 and 1 are exact");
        }
    }
    assert!(worst > 0.9 / 510.0, "the bound is nearly reached ({worst})");
}

#[test]
fn compact_logits_are_half_precision_relative_to_the_row_maximum() {
    let mut rng = Rng::new(3);
    let mut data: Vec<f32> = rng.normals(50257, 8.0).iter().map(|x| x - 80.0).collect();
    data.extend([0.0, 1e-7, -30000.0]);
    let max = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for name in ["logits.last", "logits.topk_values"] {
        let (encoding, decoded) = round_trip(Precision::Compact, name, vec![data.len()], &data);
        assert_eq!(encoding, Encoding::F16Rows, "{name}");
        let mut worst = 0.0f32;
        for (&x, &y) in data.iter().zip(&decoded) {
            // The f16 bound on x - max, plus one f32 rounding of the subtraction and the sum.
            let bound = (x - max).abs() * 2f32.powi(-11)
                + 2f32.powi(-25)
                + 2.0 * max.abs().max(x.abs()) * f32::EPSILON;
            assert!((x - y).abs() <= bound, "{x} became {y} (bound {bound})");
            worst = worst.max((x - y).abs() / ((x - max).abs() * 2f32.powi(-11) + 1e-30));
        }
        assert!(worst > 0.5, "the bound is approached ({worst})");
        assert_eq!(decoded[data.iter().position(|&x| x == max).unwrap()], max);
    }
    // A spread wider than f16 can hold falls back to exact f32.
    let wide = [65504.0, -65504.0];
    let (encoding, decoded) = round_trip(Precision::Compact, "logits.last", vec![2], &wide);
    assert_eq!((encoding, decoded), (Encoding::F32, wide.to_vec()));
}

#[test]
fn f16_precision_bounds_every_float_kind() {
    let mut rng = Rng::new(4);
    let rows = hard_rows(&mut rng);
    let activations = flatten(&rows);
    let pattern = rng.causal_pattern(64, 16);
    let cases = [
        ("blocks.0.mlp.post", activations),
        ("blocks.0.attn.pattern", pattern),
        ("logits.last", rng.normals(1000, 100.0)),
    ];
    for (name, data) in cases {
        let (encoding, decoded) = round_trip(Precision::F16, name, vec![data.len()], &data);
        assert_eq!(encoding, Encoding::F16, "{name}");
        assert_f16_bound(&data, &decoded);
    }
}

#[test]
fn f32_precision_is_exact_for_every_kind() {
    let mut rng = Rng::new(5);
    let data = flatten(&hard_rows(&mut rng));
    let names = [
        "embed",
        "blocks.1.attn.pattern",
        "logits.last",
        "logits.topk_ids",
    ];
    for name in names {
        let (encoding, decoded) = round_trip(Precision::F32, name, vec![data.len()], &data);
        assert_eq!(encoding, Encoding::F32, "{name}");
        assert_bitwise_equal(&data, &decoded);
    }
}

#[test]
fn token_ids_survive_exactly_under_every_precision() {
    let mut rng = Rng::new(6);
    let mut ids: Vec<f32> = (0..16 * 20).map(|_| rng.below(50257) as f32).collect();
    ids[..4].copy_from_slice(&[0.0, 50256.0, 65535.0, 16_777_216.0]);
    for precision in Precision::ALL {
        let (encoding, decoded) = round_trip(precision, "logits.topk_ids", vec![16, 20], &ids);
        assert_eq!(encoding, Encoding::F32, "{precision}");
        assert_bitwise_equal(&ids, &decoded);
    }
}

#[test]
fn tensors_with_nan_or_infinity_are_stored_as_exact_f32() {
    let mut data = Rng::new(7).normals(48, 3.0);
    data[3] = f32::NAN;
    data[17] = f32::INFINITY;
    data[40] = f32::NEG_INFINITY;
    let names = ["blocks.2.attn_out", "blocks.2.attn.pattern", "logits.last"];
    for precision in Precision::ALL {
        for name in names {
            let (encoding, decoded) = round_trip(precision, name, vec![4, 12], &data);
            assert_eq!(encoding, Encoding::F32, "{name} at {precision}");
            assert_bitwise_equal(&data, &decoded);
        }
    }
}

#[test]
fn values_beyond_half_range_or_probabilities_beyond_one_fall_back_to_f32() {
    let big = [1.0, -70000.0, 3.5];
    for (precision, name) in [
        (Precision::Compact, "logits.last"),
        (Precision::F16, "logits.last"),
        (Precision::F16, "blocks.0.resid_pre"),
    ] {
        let (encoding, decoded) = round_trip(precision, name, vec![3], &big);
        assert_eq!(encoding, Encoding::F32, "{name} at {precision}");
        assert_bitwise_equal(&big, &decoded);
    }
    let not_probabilities = [0.5, 1.5, -0.25];
    let (encoding, decoded) = round_trip(
        Precision::Compact,
        "blocks.0.attn.pattern",
        vec![3],
        &not_probabilities,
    );
    assert_eq!(encoding, Encoding::F32);
    assert_bitwise_equal(&not_probabilities, &decoded);
    let (encoding, _) = round_trip(Precision::Compact, "blocks.0.resid_pre", vec![3], &big);
    assert_eq!(
        encoding,
        Encoding::Int8Rows,
        "int8 rows have no range limit"
    );
}

#[test]
fn shapes_are_preserved_including_scalars_and_empty_tensors() {
    let shapes: [Vec<usize>; 6] = [
        vec![],
        vec![5],
        vec![2, 3, 4],
        vec![3, 0],
        vec![0],
        vec![1, 1],
    ];
    for precision in Precision::ALL {
        for shape in &shapes {
            let n: usize = shape.iter().product();
            let data: Vec<f32> = (0..n).map(|i| i as f32 / 7.0 - 1.0).collect();
            for name in ["blocks.0.ln1.mean", "blocks.0.attn.pattern", "logits.last"] {
                let data: Vec<f32> = data.iter().map(|x| x.abs().min(1.0)).collect();
                let (_, decoded) = round_trip(precision, name, shape.clone(), &data);
                assert_eq!(decoded.len(), n, "{name} {shape:?} at {precision}");
            }
        }
    }
}

/// GPT-2's `gelu_new`, computed in f64.
fn gelu(x: f32) -> f32 {
    let x = f64::from(x);
    (0.5 * x * (1.0 + (0.797_884_560_802_865_4 * (x + 0.044_715 * x.powi(3))).tanh())) as f32
}

/// A residual stream, attention and MLP as the forward pass makes them (sums and GELU), with
/// GPT-2's large dimension, in the order the tracer inserts them.
fn forward_tensors(rng: &mut Rng, t: usize, d: usize) -> Vec<(String, Vec<f32>)> {
    let add = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x + y).collect::<Vec<f32>>();
    let embed = rng.normals(t * d, 0.1);
    let pos = rng.normals(t * d, 0.05);
    let mut resid = add(&embed, &pos);
    let mut out = vec![("embed".to_string(), embed), ("pos_embed".to_string(), pos)];
    for l in 0..3 {
        let b = format!("blocks.{l}");
        out.push((format!("{b}.resid_pre"), resid.clone()));
        let mut attn_out = rng.normals(t * d, 1.0 + l as f32);
        attn_out[5] = 300.0;
        let mid = add(&resid, &attn_out);
        out.push((format!("{b}.attn_out"), attn_out));
        out.push((format!("{b}.resid_mid"), mid.clone()));
        let pre = rng.normals(t * 4 * d, 2.0);
        let post = pre.iter().map(|&x| gelu(x)).collect();
        out.push((format!("{b}.mlp.pre"), pre));
        out.push((format!("{b}.mlp.post"), post));
        let mlp_out = rng.normals(t * d, 2.0);
        resid = add(&mid, &mlp_out);
        out.push((format!("{b}.mlp_out"), mlp_out));
        out.push((format!("{b}.resid_post"), resid.clone()));
    }
    out
}

/// What the writer decodes for the tensors `from`, in order.
fn decoded(trace: &Trace, from: &[&str]) -> Vec<Vec<f32>> {
    from.iter().map(|n| trace.tensor(n).unwrap().data).collect()
}

#[test]
fn derived_sums_and_gelu_are_exact_relations_within_the_bound_of_the_last_base() {
    let (t, d) = (8, 48);
    let tensors = forward_tensors(&mut Rng::new(8), t, d);
    let mut trace = Trace::new(meta(Precision::Compact));
    for (name, data) in &tensors {
        let cols = if name.contains("mlp.") { 4 * d } else { d };
        let hook = name.split_once('.').map_or("", |(_, rest)| rest);
        let layer: usize = name
            .strip_prefix("blocks.")
            .and_then(|r| r.split('.').next()?.parse().ok())
            .unwrap_or(0);
        let at = |h: &str| format!("blocks.{layer}.{h}");
        let how = match hook.split_once('.').map_or(hook, |(_, h)| h) {
            "resid_pre" if layer == 0 => {
                Some(Derivation::new(DeriveOp::Sum, &["embed", "pos_embed"]))
            }
            "resid_pre" => Some(Derivation::new(
                DeriveOp::Sum,
                &[&format!("blocks.{}.resid_post", layer - 1)],
            )),
            "resid_mid" => Some(Derivation::new(
                DeriveOp::Sum,
                &[&at("resid_pre"), &at("attn_out")],
            )),
            "resid_post" => Some(Derivation::new(
                DeriveOp::Sum,
                &[&at("resid_mid"), &at("mlp_out")],
            )),
            "mlp.post" => Some(Derivation::new(DeriveOp::GeluTanh, &[&at("mlp.pre")])),
            _ => None,
        };
        match how {
            Some(how) => trace
                .insert_derived(name, vec![t, cols], data, how)
                .unwrap(),
            None => trace.insert(name, vec![t, cols], data).unwrap(),
        }
    }
    let back = Trace::from_json(&trace.to_json()).unwrap();
    assert_eq!(back, trace, "the file holds what the writer kept");
    for l in 0..3 {
        let at = |h: &str| format!("blocks.{l}.{h}");
        // Exact: the sum of the decoded bases, bit for bit.
        let [mid, pre, attn] = &decoded(
            &back,
            &[&at("resid_mid"), &at("resid_pre"), &at("attn_out")],
        )[..] else {
            unreachable!()
        };
        let sum: Vec<f32> = pre.iter().zip(attn).map(|(a, b)| a + b).collect();
        assert_eq!(mid, &sum, "resid_mid = resid_pre + attn_out");
        let [post, pre] = &decoded(&back, &[&at("mlp.post"), &at("mlp.pre")])[..] else {
            unreachable!()
        };
        let gelu: Vec<f32> = pre.iter().map(|&a| exact_math::gelu_tanh(a)).collect();
        assert_eq!(post, &gelu, "mlp.post = GELU(mlp.pre)");
    }
    // Each sum is within half a step of its last base (re-encoded to absorb the rounding of
    // the stream before it) of what the model computed: the error does not build up.
    let original = |n: &str| &tensors.iter().find(|(m, _)| m == n).unwrap().1;
    let mut worst = 0.0f64;
    for l in 0..3 {
        for (sum, last) in [("resid_mid", "attn_out"), ("resid_post", "mlp_out")] {
            let (sum, last) = (format!("blocks.{l}.{sum}"), format!("blocks.{l}.{last}"));
            let (truth, got) = (original(&sum), back.tensor(&sum).unwrap().data);
            let absorbed = back.tensor(&last).unwrap().data;
            for ((row, got), step) in truth.chunks(d).zip(got.chunks(d)).zip(absorbed.chunks(d)) {
                let max_last = step.iter().fold(0.0f32, |m, x| m.max(x.abs()));
                let max_sum = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
                let bound = max_last / 254.0 + 4.0 * f32::EPSILON * (max_sum + max_last);
                for (&x, &y) in row.iter().zip(got) {
                    assert!(
                        (x - y).abs() <= bound,
                        "{sum}: {x} became {y} (bound {bound})"
                    );
                    worst = worst.max(f64::from((x - y).abs() / bound));
                }
            }
        }
    }
    assert!(worst > 0.8, "the bound is nearly reached ({worst})");
}
