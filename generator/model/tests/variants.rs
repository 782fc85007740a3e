//! Every config field and storage format tracebook computes exactly, against Hugging Face
//! `transformers`: one fixture per variant of the tiny test model (activation functions,
//! attention scaling, inner width, LayerNorm epsilon, an untied `lm_head`, f16 / bf16 weights,
//! sharded checkpoints), made by tests/reference/make_variant_fixtures.py; and one per family
//! of the Llama architecture and per variant of its config (grouped-query attention, head_dim,
//! biases, RoPE's theta and Llama 3 scaling, sliding windows, q/k norms, Gemma's norms and
//! embedding scale, tied embeddings, bf16 and sharded weights), made by
//! tests/reference/make_family_fixtures.py. Each test writes the same folder with
//! `write_test_model`, checks its weights' sha256 against the fixture's model, and compares
//! every sampled value of every recorded tensor within 1e-4.

#[path = "support/reference.rs"]
mod reference;

use reference::{recorded, sample};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracebook_model::testmodel::{write_test_model, StoredDtype, TestModelSpec};
use tracebook_model::{Family, Model};

const TOLERANCE: f32 = 1e-4;

#[derive(Deserialize)]
struct Fixture {
    /// `gpt2` (absent in the GPT-2 variants' fixtures) or a Llama-family model_type.
    #[serde(default = "gpt2")]
    arch: String,
    config: BTreeMap<String, serde_json::Value>,
    dtype: String,
    shards: usize,
    weight_files: Vec<String>,
    samples: usize,
    text: String,
    ids: Vec<u32>,
    tensors: BTreeMap<String, FixtureTensor>,
}

#[derive(Deserialize)]
struct FixtureTensor {
    shape: Vec<usize>,
    values: Vec<f32>,
}

fn gpt2() -> String {
    "gpt2".into()
}

/// The fixtures of `tests/fixtures/{folder}`, by file name.
fn fixtures(folder: &str) -> Vec<(String, Fixture)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(folder);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

fn spec(f: &Fixture) -> TestModelSpec {
    let mut spec = match f.arch.as_str() {
        "gpt2" => TestModelSpec::tiny(),
        arch => TestModelSpec::family(Family::from_model_type(arch).expect("a known family")),
    };
    for (field, value) in &f.config {
        spec.config = spec.config.with(field, &value.to_string()).unwrap();
    }
    spec.dtype = match f.dtype.as_str() {
        "f32" => StoredDtype::F32,
        "f16" => StoredDtype::F16,
        "bf16" => StoredDtype::BF16,
        other => panic!("dtype {other}"),
    };
    spec.shards = f.shards;
    spec
}

/// Largest |ours − transformers| over the fixture's tensors, or the first mismatch in kind.
fn compare(name: &str, f: &Fixture) -> Result<f32, String> {
    let dir = tempfile::tempdir().unwrap();
    write_test_model(dir.path(), &spec(f)).unwrap();
    let files = tracebook_model::source::from_dir("test", dir.path()).map_err(|e| e.to_string())?;
    let names: Vec<String> = files
        .weights
        .iter()
        .map(|w| w.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    if names != f.weight_files {
        return Err(format!(
            "weight files {names:?}, fixture {:?}",
            f.weight_files
        ));
    }
    let model = Model::load(files).map_err(|e| e.to_string())?;
    if model.weights_dtype != f.dtype {
        return Err(format!(
            "stored dtype {} recorded as {}",
            f.dtype, model.weights_dtype
        ));
    }
    let ids: Vec<u32> = model
        .tokenizer
        .encode(&f.text)
        .unwrap()
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, f.ids, "{name}: token ids");
    let ours = recorded(&model, &ids);
    if ours.keys().ne(f.tensors.keys()) {
        return Err("recorded tensor names differ from the reference".into());
    }
    let mut worst = 0f32;
    for (tensor, reference) in &f.tensors {
        let (shape, data) = &ours[tensor];
        if shape != &reference.shape {
            return Err(format!(
                "{tensor}: shape {shape:?}, transformers {:?}",
                reference.shape
            ));
        }
        for (i, (a, b)) in sample(data, f.samples)
            .iter()
            .zip(&reference.values)
            .enumerate()
        {
            let err = (a - b).abs();
            if err > TOLERANCE {
                return Err(format!("{tensor}[sample {i}]: ours {a}, transformers {b}"));
            }
            worst = worst.max(err);
        }
    }
    Ok(worst)
}

/// The largest |a − b| over two fixtures' samples of one tensor.
fn largest_gap(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max)
}

#[test]
fn every_variant_matches_transformers() {
    compare_all("variants", 25);
}

#[test]
fn every_family_and_variant_matches_transformers() {
    let fixtures = compare_all("families", 20);
    for family in ["llama", "mistral", "qwen2", "qwen3", "gemma"] {
        assert!(
            fixtures.iter().any(|(_, f)| f.arch == family),
            "no fixture of {family}"
        );
    }
}

/// Compare every fixture of the folder (at least `least` of them); fails naming each mismatch.
fn compare_all(folder: &str, least: usize) -> Vec<(String, Fixture)> {
    let fixtures = fixtures(folder);
    assert!(
        fixtures.len() >= least,
        "only {} fixtures in {folder}",
        fixtures.len()
    );
    let mut failures = Vec::new();
    for (name, f) in &fixtures {
        match compare(name, f) {
            Ok(worst) => eprintln!("{name}: largest |diff| {worst:e}"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    fixtures
}

/// The variants are not all the same model: an exact GELU and the tanh one give different MLP
/// outputs, so a forward that ignored `activation_function` would fail the comparison above.
#[test]
fn variants_differ_where_their_config_does() {
    let fixtures: BTreeMap<String, Fixture> = fixtures("variants").into_iter().collect();
    let post = |name: &str| fixtures[name].tensors["blocks.0.mlp.post"].values.clone();
    assert!(largest_gap(&post("gelu"), &post("gelu_pytorch_tanh")) > 1e-4);
    assert!(largest_gap(&post("gelu"), &post("relu")) > 1e-2);
    let scores = |name: &str| {
        fixtures[name].tensors["blocks.1.attn.scores"]
            .values
            .clone()
    };
    assert!(largest_gap(&scores("inverse_layer_scaling"), &scores("gelu")) > 1e-3);
}

/// The families' variants are not all one model: the window hides keys, Llama 3's scaling
/// changes the rotation, Gemma's √d scales the embeddings, so a forward that ignored any of
/// them would fail the comparison above.
#[test]
fn family_variants_differ_where_their_config_does() {
    let fixtures: BTreeMap<String, Fixture> = fixtures("families").into_iter().collect();
    let values = |name: &str, tensor: &str| fixtures[name].tensors[tensor].values.clone();
    let pattern = "blocks.0.attn.pattern";
    assert!(
        largest_gap(
            &values("mistral", pattern),
            &values("mistral_no_window", pattern)
        ) > 1e-2
    );
    let q = "blocks.0.attn.q";
    assert!(largest_gap(&values("llama", q), &values("llama3_rope_scaling", q)) > 1e-3);
    assert!(largest_gap(&values("llama", q), &values("llama_theta", q)) > 1e-3);
    let zeros = |tensor: &str| {
        let t = &fixtures["qwen2_sliding"].tensors[tensor];
        t.values.iter().filter(|v| **v == 0.0).count()
    };
    // Layer 0 is full attention and layer 1 windowed (max_window_layers = 1), as in
    // transformers: the window hides more keys than the causal mask alone.
    assert!(zeros("blocks.1.attn.pattern") > zeros("blocks.0.attn.pattern"));
    assert_eq!(fixtures["llama"].tensors["blocks.0.attn.k"].shape[0], 2);
    assert_eq!(fixtures["llama_mqa"].tensors["blocks.0.attn.k"].shape[0], 1);
}
