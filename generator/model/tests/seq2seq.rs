//! Marian and BART computed exactly, against Hugging Face `transformers`: one fixture per
//! variant of the tiny encoder-decoder (tied and untied unembedding, embeddings scaled or not,
//! activations, unequal head counts and layer counts in the two stacks), made by
//! tests/reference/make_seq2seq_fixtures.py. Each test writes the same folder, checks its
//! weights' sha256 against the fixture's, runs the encoder on the fixture's source ids and
//! the decoder on its target ids, and compares every sampled value of every tensor the
//! fixture holds (embeddings, positions, q/k/v, self- and cross-attention patterns, sublayer
//! outputs, norms, logits) within 1e-4; a tensor tracebook does not record fails the test.

#[allow(dead_code)]
#[path = "support/reference.rs"]
mod reference;

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use reference::sample;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use tracebook_model::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use tracebook_model::seq2seq::{testmodel, Seq2Seq};
use tracebook_model::testmodel::{StoredDtype, TestModelSpec};
use tracebook_model::TensorRecorder;

const TOLERANCE: f32 = 1e-4;

#[derive(Deserialize)]
struct Fixture {
    arch: String,
    config: BTreeMap<String, serde_json::Value>,
    weights_sha256: String,
    samples: usize,
    source: Vec<u32>,
    target: Vec<u32>,
    tensors: BTreeMap<String, FixtureTensor>,
}

#[derive(Deserialize)]
struct FixtureTensor {
    shape: Vec<usize>,
    values: Vec<f32>,
}

/// The model of `fixture`, written into `dir` and loaded.
fn model(fixture: &Fixture, dir: &Path) -> Seq2Seq {
    let kind = Seq2SeqKind::from_model_type(&fixture.arch).unwrap();
    let mut config = Seq2SeqConfig::tiny(kind);
    for (field, value) in &fixture.config {
        config = config.with(field, &value.to_string()).unwrap();
    }
    testmodel::write(dir, &config, TestModelSpec::tiny().seed, StoredDtype::F32).unwrap();
    let bytes = std::fs::read(dir.join("model.safetensors")).unwrap();
    let sha = format!("{:x}", Sha256::digest(&bytes));
    assert_eq!(
        sha, fixture.weights_sha256,
        "the same weights as the fixture's"
    );
    let tensors = candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu);
    let vb = VarBuilder::from_tensors(tensors.unwrap(), DType::F32, &Device::Cpu);
    Seq2Seq::load(vb, &config).unwrap()
}

#[test]
fn every_encoder_decoder_variant_equals_transformers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/seq2seq");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "the fixtures of both kinds are there");
    let mut report = Vec::new();
    for path in names {
        let fixture: Fixture =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let temp = tempfile::tempdir().unwrap();
        let model = model(&fixture, temp.path());
        let mut rec = TensorRecorder::default();
        let memory = model.encode(&fixture.source, &mut rec).unwrap();
        model.decode(&memory, &fixture.target, &mut rec).unwrap();
        let ours: BTreeMap<String, (Vec<usize>, Vec<f32>)> = rec
            .tensors
            .into_iter()
            .map(|t| (t.name, (t.shape, t.data)))
            .collect();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let mut worst = 0f32;
        for (tensor, expected) in &fixture.tensors {
            let (shape, data) = ours
                .get(tensor)
                .unwrap_or_else(|| panic!("{name}: tracebook records no {tensor}"));
            assert_eq!(shape, &expected.shape, "{name}: the shape of {tensor}");
            let got = sample(data, fixture.samples);
            for (i, (a, b)) in got.iter().zip(&expected.values).enumerate() {
                let diff = (a - b).abs();
                worst = worst.max(diff);
                assert!(
                    diff <= TOLERANCE,
                    "{name}: {tensor}[sample {i}] is {a}, transformers says {b}"
                );
            }
        }
        report.push(format!(
            "{name}: {} tensors, largest |diff| {worst:.1e}",
            fixture.tensors.len()
        ));
    }
    println!("{}", report.join("\n"));
}

#[test]
fn configs_that_ask_for_another_computation_are_refused_by_name() {
    let base = Seq2SeqConfig::tiny(Seq2SeqKind::Marian);
    for (field, value, says) in [
        ("normalize_before", "true", "pre-norm"),
        ("add_final_layer_norm", "true", "final LayerNorm"),
        (
            "share_encoder_decoder_embeddings",
            "false",
            "its own vocabulary",
        ),
        ("decoder_vocab_size", "200", "decoder vocabulary"),
        ("activation_function", "\"xielu\"", "learned parameters"),
        ("encoder_attention_heads", "5", "not a multiple"),
    ] {
        let err = base.with(field, value).unwrap_err();
        assert!(err.contains(field) || err.contains(says), "{field}: {err}");
        assert!(err.contains(says), "{field}: {err}");
    }
    // Fields transformers reads are taken; legacy ones it ignores are ignored.
    let bart = Seq2SeqConfig::tiny(Seq2SeqKind::Bart)
        .with("static_position_embeddings", "true")
        .unwrap();
    assert_eq!(bart, Seq2SeqConfig::tiny(Seq2SeqKind::Bart));
}
