//! Every recorded tensor equals Hugging Face `transformers` GPT-2 (eager attention) within 1e-4,
//! on the tiny test model and on a GPT-2-small-shaped one, both with random weights.
//!
//! Fixtures come from tests/reference/make_fixtures.py (see its docstring); this test regenerates
//! the same model folder, checks its sha256 against the fixture, and needs no Python.

#[path = "support/reference.rs"]
mod reference;

use reference::{recorded, sample};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use tracebook_model::testmodel::{write_test_model, TestModelSpec};
use tracebook_model::ModelFiles;
use tracebook_trace::sha256_file;

const TOLERANCE: f32 = 1e-4;

#[derive(Deserialize)]
struct Fixture {
    weights_sha256: String,
    samples: usize,
    prompts: Vec<FixturePrompt>,
}

#[derive(Deserialize)]
struct FixturePrompt {
    text: String,
    ids: Vec<u32>,
    tensors: BTreeMap<String, FixtureTensor>,
}

#[derive(Deserialize)]
struct FixtureTensor {
    shape: Vec<usize>,
    values: Vec<f32>,
}

fn fixture(name: &str) -> Fixture {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn check(spec: TestModelSpec, fixture_name: &str) {
    let fixture = fixture(fixture_name);
    let dir = tempfile::tempdir().unwrap();
    write_test_model(dir.path(), &spec).unwrap();
    let files = tracebook_model::source::from_dir("test", dir.path()).unwrap();
    assert_eq!(
        sha256_file(&files.weights[0]).unwrap(),
        fixture.weights_sha256,
        "the test model's weights changed; regenerate {fixture_name} with tests/reference/make_fixtures.py"
    );
    let model = tracebook_model::Model::load(ModelFiles {
        id: "test".into(),
        ..files
    })
    .unwrap();

    for prompt in &fixture.prompts {
        let ids: Vec<u32> = model
            .tokenizer
            .encode(&prompt.text)
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, prompt.ids, "token ids of {:?}", prompt.text);
        let ours = recorded(&model, &ids);

        let names: Vec<&String> = ours.keys().collect();
        let expected: Vec<&String> = prompt.tensors.keys().collect();
        assert_eq!(
            names, expected,
            "recorded tensor names differ from the reference"
        );
        let mut worst = (0.0f32, String::new());
        for (name, reference) in &prompt.tensors {
            let (shape, data) = &ours[name];
            assert_eq!(shape, &reference.shape, "shape of {name}");
            let got = sample(data, fixture.samples);
            assert_eq!(got.len(), reference.values.len(), "sample count of {name}");
            for (i, (a, b)) in got.iter().zip(&reference.values).enumerate() {
                let err = (a - b).abs();
                assert!(
                    err <= TOLERANCE,
                    "{name}[sample {i}]: ours {a}, transformers {b} (|diff| {err})"
                );
                if err > worst.0 {
                    worst = (err, name.clone());
                }
            }
        }
        eprintln!(
            "{fixture_name} {:?}: largest |diff| {:e} in {}",
            prompt.text, worst.0, worst.1
        );
    }
}

#[test]
fn tiny_model_matches_transformers() {
    check(TestModelSpec::tiny(), "reference-tiny.json");
}

#[test]
fn gpt2_small_shape_matches_transformers() {
    check(TestModelSpec::small(), "reference-small.json");
}
