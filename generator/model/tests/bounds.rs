//! A compact or f16 trace against the f32 trace of the same run: every value within the bound
//! the trace states for it (`Trace::bound`, the rules of docs/trace-format.md § Error bounds),
//! and every tensor that follows from others derived, so the trace is one consistent
//! computation.

use std::collections::BTreeMap;
use tracebook_model::testmodel::{write_test_model, TestModelSpec};
use tracebook_model::{source, trace, Model, TraceRequest};
use tracebook_trace::{Precision, PromptOptions, PromptSpec, Trace, TraceOptions};

const PROMPT: &str = "The robots will bring the boxes to the old house by the river before it gets";

fn traced(model: &Model, precision: Precision) -> Trace {
    let prompt = PromptSpec {
        text: PROMPT.into(),
        options: PromptOptions::default(),
        model: None,
        model_name: None,
    };
    let request = TraceRequest {
        name: "robots",
        prompt: &prompt,
        options: TraceOptions {
            precision,
            top_k: 20,
        },
    };
    let lossy = trace(model, &request).unwrap();
    // Through the file, as a site reads it.
    Trace::from_json(&lossy.to_json()).unwrap()
}

/// The hook a tensor name stands for, blocks folded together: `blocks.L.attn.q`.
fn family(name: &str) -> String {
    match name.strip_prefix("blocks.") {
        Some(rest) => format!("blocks.L.{}", rest.split_once('.').map_or(rest, |(_, h)| h)),
        None => name.to_string(),
    }
}

/// For every tensor family: the largest error over its bound (at most 1) and the largest error.
fn check(spec: TestModelSpec, precision: Precision) -> BTreeMap<String, (f64, f64)> {
    let dir = tempfile::tempdir().unwrap();
    write_test_model(dir.path(), &spec).unwrap();
    let model = Model::load(source::from_dir("test", dir.path()).unwrap()).unwrap();
    let (exact, lossy) = (traced(&model, Precision::F32), traced(&model, precision));
    let mut worst: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for name in lossy.tensor_names() {
        let truth = exact.tensor(name).unwrap().data;
        let got = lossy.tensor(name).unwrap().data;
        let bound = lossy.bound(name).unwrap();
        let entry = worst.entry(family(name)).or_default();
        for (i, ((&x, &y), &b)) in truth.iter().zip(&got).zip(&bound).enumerate() {
            let err = (f64::from(x) - f64::from(y)).abs();
            assert!(
                err <= b,
                "{precision} {name}[{i}]: the f32 run has {x}, the trace {y}: error {err:e} > bound {b:e}"
            );
            if b > 0.0 {
                entry.0 = entry.0.max(err / b);
            }
            entry.1 = entry.1.max(err);
        }
    }
    worst
}

/// What the relations of GPT-2's forward pass make derived, per block.
const DERIVED: [&str; 13] = [
    "resid_pre",
    "ln1.mean",
    "ln1.std",
    "ln1.normalized",
    "attn.scores",
    "attn.pattern",
    "attn.z",
    "resid_mid",
    "ln2.mean",
    "ln2.std",
    "ln2.normalized",
    "mlp.post",
    "resid_post",
];

#[test]
fn every_value_of_a_compact_trace_is_within_its_stated_bound_of_the_f32_run() {
    for spec in [TestModelSpec::tiny(), TestModelSpec::small()] {
        let worst = check(spec, Precision::Compact);
        for (family, (ratio, err)) in &worst {
            eprintln!(
                "compact {family:28} largest error {err:.3e}, {:.1}% of its bound",
                ratio * 100.0
            );
        }
        // The encodings' bounds are tight: some value comes near each.
        for tight in ["blocks.L.mlp.pre", "blocks.L.attn.v", "embed"] {
            assert!(worst[tight].0 > 0.8, "{tight}: {:?}", worst[tight]);
        }
    }
}

#[test]
fn every_value_of_an_f16_trace_is_within_its_stated_bound_of_the_f32_run() {
    let worst = check(TestModelSpec::tiny(), Precision::F16);
    assert!(
        worst["blocks.L.mlp.pre"].0 > 0.3,
        "{:?}",
        worst["blocks.L.mlp.pre"]
    );
}

#[test]
fn what_follows_from_other_tensors_is_derived_at_every_precision() {
    let dir = tempfile::tempdir().unwrap();
    write_test_model(dir.path(), &TestModelSpec::tiny()).unwrap();
    let model = Model::load(source::from_dir("test", dir.path()).unwrap()).unwrap();
    for precision in Precision::ALL {
        let t = traced(&model, precision);
        let layers = t.meta.model.config.n_layer;
        for l in 0..layers {
            for hook in DERIVED {
                let name = format!("blocks.{l}.{hook}");
                assert!(
                    t.derivation(&name).is_some(),
                    "{precision}: {name} is derived"
                );
            }
        }
        for name in ["ln_final.normalized", "logit_lens.topk_probs"] {
            assert!(
                t.derivation(name).is_some(),
                "{precision}: {name} is derived"
            );
        }
        // The lens after the last block is the model's own next-token distribution.
        let probs = t.tensor("logit_lens.topk_probs").unwrap();
        let values = t.tensor("logits.topk_values").unwrap().data;
        let lse = t.tensor("logits.lse").unwrap().data;
        let (k, tokens) = (probs.shape[2], probs.shape[1]);
        let last_layer = &probs.data[(layers - 1) * tokens * k..];
        let top_k = values.len() / tokens;
        for p in 0..tokens {
            for r in 0..k {
                let from_logits = tracebook_trace::exact_math::prob(values[p * top_k + r], lse[p]);
                assert_eq!(
                    last_layer[p * k + r],
                    from_logits,
                    "{precision}: position {p}"
                );
            }
        }
        // Each loss is exactly −ln of the probability the candidates give the next token.
        let ids = t.tensor("logits.topk_ids").unwrap().data;
        let loss = t.tensor("loss.per_token").unwrap().data;
        for (p, window) in t.meta.tokens.windows(2).enumerate() {
            let next = window[1].id as f32;
            if let Some(r) = ids[p * top_k..(p + 1) * top_k]
                .iter()
                .position(|&i| i == next)
            {
                let logit = values[p * top_k + r];
                assert_eq!(loss[p], lse[p] - logit, "{precision}: loss at {p}");
            }
        }
    }
}
