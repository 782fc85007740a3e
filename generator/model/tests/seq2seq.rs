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
#[path = "support/tiny_marian.rs"]
mod tiny_marian;

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use reference::sample;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use tiny_marian::folder_with_tokenizer;
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
        let logits = model.decode(&memory, &fixture.target, &mut rec).unwrap();
        let mut ours: BTreeMap<String, (Vec<usize>, Vec<f32>)> = rec
            .tensors
            .into_iter()
            .map(|t| (t.name, (t.shape, t.data)))
            .collect();
        let values = logits.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        ours.insert("logits".into(), (logits.dims().to_vec(), values));
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

#[test]
fn a_trace_holds_the_source_the_translation_and_every_tensor_within_its_bound() {
    use tracebook_model::{AnyModel, TraceRequest};
    use tracebook_trace::{PromptOptions, PromptSpec, Trace, TraceOptions};
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("marian");
    folder_with_tokenizer(&dir);
    let files = tracebook_model::source::from_dir("tiny-marian", &dir).unwrap();
    let model = AnyModel::load(files).unwrap();
    let AnyModel::Seq2Seq(seq2seq) = &model else {
        panic!("a marian folder loads as an encoder-decoder")
    };
    let prompt = PromptSpec {
        text: "cannot open file 7".into(),
        options: PromptOptions {
            generate: 6,
            ..PromptOptions::default()
        },
        model: None,
        model_name: None,
    };
    let request = TraceRequest {
        name: "open",
        prompt: &prompt,
        options: TraceOptions::default(),
    };
    let path = temp.path().join("open.json");
    model.trace(&request).unwrap().write(&path).unwrap();
    let trace = Trace::read(&path).unwrap();

    // The source ends with </s>; the decoder's positions start with its start token, and
    // each has its step in `generation`.
    let source = &trace.meta.tokens;
    assert_eq!(source.last().unwrap().id, 0);
    let translation = trace.meta.translation.as_ref().unwrap();
    assert_eq!(translation.tokens[0].id, 2);
    assert_eq!(translation.tokens.len(), trace.meta.generation.len());
    assert!(trace.meta.generation.len() <= 6);
    for (t, token) in translation.tokens.iter().enumerate().skip(1) {
        assert_eq!(
            token.id,
            trace.meta.generation[t - 1].id,
            "position {t} reads step {t}'s token"
        );
    }
    let (s, t) = (source.len(), translation.tokens.len());
    assert_eq!(
        trace.tensor("encoder.blocks.1.attn.pattern").unwrap().shape,
        [4, s, s]
    );
    assert_eq!(
        trace
            .tensor("decoder.blocks.0.self_attn.pattern")
            .unwrap()
            .shape,
        [4, t, t]
    );
    let cross = trace.tensor("decoder.blocks.1.cross_attn.pattern").unwrap();
    assert_eq!(cross.shape, [4, t, s]);
    for row in cross.data.chunks(s) {
        assert!(
            (row.iter().sum::<f32>() - 1.0).abs() < 0.05,
            "a row of weights sums to 1"
        );
    }

    // Every tensor as decoded equals the forward pass's own, within the trace's bound.
    let mut rec = tracebook_model::TensorRecorder::default();
    let ids: Vec<u32> = source.iter().map(|t| t.id).collect();
    let inputs: Vec<u32> = translation.tokens.iter().map(|t| t.id).collect();
    let memory = seq2seq.net.encode(&ids, &mut rec).unwrap();
    seq2seq.net.decode(&memory, &inputs, &mut rec).unwrap();
    assert!(rec.tensors.len() > 80);
    for recorded in &rec.tensors {
        let stored = trace.tensor(&recorded.name).unwrap();
        let bound = trace.bound(&recorded.name).unwrap();
        for ((a, b), e) in stored.data.iter().zip(&recorded.data).zip(&bound) {
            assert!(
                ((a - b).abs() as f64) <= e + 1e-5,
                "{}: {a} vs {b} (bound {e})",
                recorded.name
            );
        }
    }
    // What a translation does not do yet is refused by name.
    let ablate = PromptSpec {
        options: PromptOptions {
            ablate: Some(tracebook_trace::AblationSpec {
                targets: vec![" le".into()],
                mode: Default::default(),
            }),
            ..PromptOptions::default()
        },
        ..prompt.clone()
    };
    let request = TraceRequest {
        name: "open",
        prompt: &ablate,
        options: TraceOptions::default(),
    };
    let err = model.trace(&request).err().unwrap().to_string();
    assert!(
        err.contains("`ablate`") && err.contains("\"open\""),
        "{err}"
    );
}

#[test]
fn an_opus_mt_folder_is_traced_with_its_own_sentencepiece_files() {
    use tracebook_model::{AnyModel, TraceRequest};
    use tracebook_tokenizer::MarianTokenizer;
    use tracebook_trace::{PromptSpec, TraceOptions};
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("opus-mt-recipe");
    let recipe =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tokenizers/marian-recipe");
    let marian = MarianTokenizer::from_dir(&recipe).unwrap();
    let pad = marian.pad_id().unwrap();
    let config = Seq2SeqConfig::tiny(Seq2SeqKind::Marian)
        .with("vocab_size", &marian.vocab_size().to_string())
        .unwrap()
        .with("decoder_start_token_id", &pad.to_string())
        .unwrap()
        .with("pad_token_id", &pad.to_string())
        .unwrap();
    testmodel::write(&dir, &config, 3, StoredDtype::F32).unwrap();
    for file in [
        "source.spm",
        "target.spm",
        "vocab.json",
        "tokenizer_config.json",
    ] {
        std::fs::copy(recipe.join(file), dir.join(file)).unwrap();
    }
    let model =
        AnyModel::load(tracebook_model::source::from_dir("opus-mt-recipe", &dir).unwrap()).unwrap();
    let prompt = PromptSpec::new("Impossible d’ouvrir le fichier « été »");
    let request = TraceRequest {
        name: "",
        prompt: &prompt,
        options: TraceOptions::default(),
    };
    let trace = model.trace(&request).unwrap();
    let ids: Vec<u32> = trace.meta.tokens.iter().map(|t| t.id).collect();
    let expected: Vec<u32> = marian
        .encode_source(&prompt.text)
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(
        ids, expected,
        "the source as MarianTokenizer reads it, </s> last"
    );
    assert_eq!(*ids.last().unwrap(), marian.eos_id());
    let translation = trace.meta.translation.unwrap();
    assert_eq!(
        translation.tokens[0].id, pad,
        "the decoder starts from <pad>"
    );
}

#[test]
fn a_marian_folder_with_pickled_weights_is_told_the_marian_conversion() {
    let temp = tempfile::tempdir().unwrap();
    let config = Seq2SeqConfig::tiny(Seq2SeqKind::Marian);
    testmodel::write(temp.path(), &config, 1, StoredDtype::F32).unwrap();
    std::fs::rename(
        temp.path().join("model.safetensors"),
        temp.path().join("pytorch_model.bin"),
    )
    .unwrap();
    let err = tracebook_model::source::from_dir("m", temp.path())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("import MarianMTModel as M"), "{err}");
}

/// models/tracebook-tiny-en-fr, trained by `tracebook train --pairs`, translates as
/// transformers' MarianMTModel does: the same greedy translation of each text, and the same
/// logits within 1e-4 (tests/fixtures/tracebook-tiny-en-fr-translations.json, made by
/// tests/reference/make_translation_fixture.py).
#[test]
fn the_trained_translation_model_translates_as_transformers_does() {
    use tracebook_model::AnyModel;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::var("TRANSLATION_MODEL")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| root.join("models/tracebook-tiny-en-fr"));
    let fixture_path = std::env::var("TRANSLATION_FIXTURE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| root.join("tests/fixtures/tracebook-tiny-en-fr-translations.json"));
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture_path).unwrap()).unwrap();
    let model = AnyModel::load(tracebook_model::source::from_dir("en-fr", &dir).unwrap()).unwrap();
    let AnyModel::Seq2Seq(model) = model else {
        panic!("a Marian folder")
    };
    assert_eq!(
        model.weights_sha256,
        fixture["weights_sha256"].as_str().unwrap()
    );
    let ids = |v: &serde_json::Value| -> Vec<u32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect()
    };
    let m = fixture["samples"].as_u64().unwrap() as usize;
    for case in fixture["texts"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let source: Vec<u32> = model
            .tokenizer
            .encode_source(text)
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(source, ids(&case["source"]), "{text}: the source's ids");
        let written = model.net.translate_greedy(&source, 40).unwrap();
        assert_eq!(
            written,
            ids(&case["written"]),
            "{text}: the greedy translation"
        );
        let mut inputs = vec![model.config.decoder_start_token_id];
        inputs.extend(&written[..written.len() - 1]);
        let memory = model
            .net
            .encode(&source, &mut tracebook_model::NoRecorder)
            .unwrap();
        let logits = model
            .net
            .decode(&memory, &inputs, &mut tracebook_model::NoRecorder)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let expected: Vec<f32> = case["last_logits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        for (a, b) in sample(logits.last().unwrap(), m).iter().zip(&expected) {
            assert!((a - b).abs() <= TOLERANCE, "{text}: last logits {a} vs {b}");
        }
        for (row, top) in logits.iter().zip(case["top_ids"].as_array().unwrap()) {
            let ours: Vec<u32> = tracebook_model::topk::top_k(row, 10)
                .iter()
                .map(|p| p.0)
                .collect();
            assert_eq!(ours[..3], ids(top)[..3], "{text}: the likeliest ids");
        }
    }
}
