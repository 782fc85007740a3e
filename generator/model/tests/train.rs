//! Training: a reference step against PyTorch, a run that learns, exact resumption, bad input
//! that writes nothing, and checkpoints that load like GPT-2.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracebook_model::train::adamw::{clip_grad_norm, AdamW, AdamWConfig};
use tracebook_model::train::checkpoint::model_bytes;
use tracebook_model::train::corpus::Corpus;
use tracebook_model::train::params::Params;
use tracebook_model::train::rng::Rng;
use tracebook_model::train::step::batch_gradients;
use tracebook_model::train::step::mean_loss;
use tracebook_model::train::windows::validation;
use tracebook_model::train::PositionInit;
use tracebook_model::train::{
    train, Arch, Architecture, Observer, Quiet, Settings, TrainError, TrainRun, TrainingLog,
    WeightsDtype,
};
use tracebook_model::Transformer;

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The values the fixture scripts keep: all of them, or `m` at floor(i (n-1) / (m-1)).
fn sample(data: &[f32], m: usize) -> Vec<f32> {
    let n = data.len();
    if n <= m {
        return data.to_vec();
    }
    (0..m).map(|i| data[(i * (n - 1)) / (m - 1)]).collect()
}

#[derive(Deserialize)]
struct StepFixture {
    init_sha256: String,
    seed: u64,
    architecture: Architecture,
    batch: usize,
    weight_decay: f64,
    grad_clip: f64,
    samples: usize,
    windows: Vec<Vec<u32>>,
    steps: Vec<ReferenceStep>,
    first_grads: BTreeMap<String, Vec<f32>>,
    final_weights: BTreeMap<String, Vec<f32>>,
}

#[derive(Deserialize)]
struct ReferenceStep {
    lr: f64,
    loss: f64,
    grad_norm: f64,
}

fn assert_close(what: &str, ours: &[f32], reference: &[f32], abs: f32, rel: f32) {
    assert_eq!(ours.len(), reference.len(), "{what}: lengths");
    for (i, (a, b)) in ours.iter().zip(reference).enumerate() {
        let tol = abs + rel * b.abs();
        assert!((a - b).abs() <= tol, "{what}[{i}]: ours {a}, PyTorch {b}");
    }
}

/// Three AdamW steps on a 2-layer GPT-2 equal PyTorch's (tests/reference/make_train_fixture.py):
/// loss, gradient of every weight, gradient norm, and every weight afterwards.
#[test]
fn optimiser_steps_match_pytorch() {
    replay("train-step.json");
}

/// The same on a 2-layer Llama (RoPE, RMSNorm, SwiGLU, four query heads sharing two key/value
/// heads): candle's gradients through every part the families add equal PyTorch's.
#[test]
fn llama_optimiser_steps_match_pytorch() {
    replay("train-step-llama.json");
}

fn replay(fixture: &str) {
    let text = std::fs::read_to_string(fixture_path(fixture)).unwrap();
    let f: StepFixture = serde_json::from_str(&text).unwrap();
    let config = f.architecture.config();
    let params = Params::init(&config, PositionInit::Normal, &mut Rng::new(f.seed)).unwrap();
    assert_eq!(
        sha256(&model_bytes(&params, WeightsDtype::F32).unwrap()),
        f.init_sha256,
        "the initial weights changed; regenerate train-step.json (see its script)"
    );
    let model = Transformer::trainable(&params.weights(), &config).unwrap();
    let mut optimizer = AdamW::new(&params, AdamWConfig::gpt2(f.weight_decay));
    let names: Vec<String> = params.iter().map(|(n, _)| n.to_string()).collect();
    for (i, reference) in f.steps.iter().enumerate() {
        let windows: Vec<&[u32]> = f.windows[i * f.batch..(i + 1) * f.batch]
            .iter()
            .map(Vec::as_slice)
            .collect();
        let (loss, mut grads) = batch_gradients(&model, &params, &windows).unwrap();
        assert!(
            (loss - reference.loss).abs() < 1e-4,
            "step {i} loss {loss} vs {}",
            reference.loss
        );
        if i == 0 {
            for (name, grad) in names.iter().zip(&grads) {
                let reference = &f.first_grads[name];
                assert_close(
                    &format!("grad {name}"),
                    &sample(grad, f.samples),
                    reference,
                    1e-6,
                    1e-3,
                );
            }
        }
        let norm = clip_grad_norm(&mut grads, f.grad_clip);
        assert!((norm - reference.grad_norm).abs() < 1e-4 * reference.grad_norm);
        optimizer.step(&params, &grads, reference.lr).unwrap();
    }
    let width = f.architecture.width;
    for (name, var) in params.iter() {
        let mut ours = sample(
            &var.as_tensor()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap(),
            f.samples,
        );
        let mut reference = f.final_weights[name].clone();
        if name.ends_with("attn.c_attn.bias") {
            // The key bias shifts every score of a row equally, so softmax cancels it: its
            // gradient is zero up to float noise, which Adam's normalisation turns into ±lr.
            ours.drain(width..2 * width);
            reference.drain(width..2 * width);
        }
        assert_close(&format!("weight {name}"), &ours, &reference, 2e-5, 1e-4);
    }
}

/// A few kilobytes of simple, repetitive English: learnable in a few dozen steps.
fn small_text() -> String {
    let subjects = ["The cat", "A dog", "My sister", "The robot", "Our teacher"];
    let verbs = ["likes", "sees", "brings", "finds", "paints"];
    let objects = [
        "a red ball",
        "the old house",
        "some warm tea",
        "a small bird",
        "the blue sky",
    ];
    let mut text = String::new();
    for i in 0..400 {
        let (s, v, o) = (
            subjects[i % 5],
            verbs[(i / 5) % 5],
            objects[(i * 3 + i / 25) % 5],
        );
        text.push_str(&format!("{s} {v} {o}. "));
        if i % 7 == 6 {
            text.push('\n');
        }
    }
    text
}

fn tiny_settings() -> Settings {
    let mut s = Settings::small(Architecture::gpt2(1, 2, 16, 16));
    s.steps = 30;
    s.batch_size = 4;
    s.learning_rate = 1e-2;
    s.min_learning_rate = 1e-3;
    s.warmup = 3;
    s.val_share = 0.1;
    s.val_windows = 8;
    s.eval_every = 10;
    s.checkpoint_every = 10;
    s
}

fn run_in(dir: &Path, settings: Settings, resume: bool) -> Result<TrainingLog, TrainError> {
    let corpus = dir.join("corpus.txt");
    if !corpus.exists() {
        std::fs::write(&corpus, small_text()).unwrap();
    }
    let run = TrainRun {
        corpus,
        out: dir.join("model"),
        settings,
        resume,
        stop_after: None,
    };
    train(&run, &mut Quiet)
}

#[test]
fn a_short_run_lowers_the_loss_and_its_checkpoint_loads_like_gpt2() {
    let dir = tempfile::tempdir().unwrap();
    let log = run_in(dir.path(), tiny_settings(), false).unwrap();
    let initial = log.initial_val_loss.unwrap();
    let last = log.last_val_loss().unwrap();
    assert!(initial > 10.0, "a fresh model is near ln(50257): {initial}");
    assert!(
        last < initial - 4.0,
        "validation loss went from {initial} to {last}"
    );
    assert!(log.steps[29].loss < log.steps[0].loss - 4.0);
    assert_eq!(log.steps.len(), 30);
    assert_eq!(log.steps[29].tokens_seen, 30 * 4 * 16);
    let measured: Vec<usize> = log
        .steps
        .iter()
        .filter(|r| r.val_loss.is_some())
        .map(|r| r.step)
        .collect();
    assert_eq!(measured, [10, 20, 30]);

    // One weight is followed through the run: its value after every update (each one moved
    // it) and its gradient, and the summary traces copy starts from its initial value.
    let watched = log.watched.clone().expect("a new run follows one weight");
    assert_eq!(
        (watched.name.as_str(), watched.index),
        ("h.0.mlp.c_fc.weight", 0)
    );
    let values: Vec<f64> = std::iter::once(watched.initial)
        .chain(log.steps.iter().map(|r| r.weight.unwrap()))
        .collect();
    assert!(values.windows(2).all(|w| w[0] != w[1]), "{values:?}");
    assert!(log
        .steps
        .iter()
        .all(|r| r.weight_grad.is_some_and(f64::is_finite)));
    let summary = log.summary();
    let history = summary.weight.expect("the summary carries the weight");
    assert_eq!(history.values[0], (0, watched.initial));
    assert_eq!(*history.values.last().unwrap(), (30, values[30]));
    assert_eq!(history.grads.len(), 30);
    assert_eq!(summary.lr.len(), 30);
    assert_eq!(summary.lr[0], (1, log.steps[0].lr));

    // The folder is a GPT-2 checkpoint: the model loaded from it scores the validation windows
    // exactly as the trainer measured them.
    let folder = dir.path().join("model");
    let files = tracebook_model::source::from_dir("tiny", &folder).unwrap();
    let model = tracebook_model::Model::load(files).unwrap();
    assert_eq!(model.config, tiny_settings().architecture.config());
    let corpus = Corpus::load(&dir.path().join("corpus.txt"), &model.tokenizer, 0.1, 16).unwrap();
    let windows = validation(&corpus.val, 16, 8);
    let reloaded = mean_loss(&model.net, &windows).unwrap();
    assert!(
        (reloaded - last).abs() < 1e-5,
        "reloaded {reloaded} vs logged {last}"
    );
    let saved = TrainingLog::load(&folder.join("training_log.json")).unwrap();
    assert_eq!(
        (&saved.settings, &saved.corpus),
        (&log.settings, &log.corpus)
    );
    assert_eq!(saved.steps.len(), log.steps.len());
    assert!((saved.steps[29].loss - log.steps[29].loss).abs() < 1e-12);
}

/// `--arch llama`: the same trainer on the Llama architecture (RoPE, RMSNorm, SwiGLU, two query
/// heads sharing one key/value head) lowers the loss, and its folder is a LlamaForCausalLM
/// checkpoint that loads back with the loss the trainer measured.
#[test]
fn a_llama_run_lowers_the_loss_and_its_checkpoint_loads_as_llama() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = tiny_settings();
    settings.architecture.arch = Arch::Llama;
    let log = run_in(dir.path(), settings.clone(), false).unwrap();
    let (initial, last) = (log.initial_val_loss.unwrap(), log.last_val_loss().unwrap());
    assert!(
        last < initial - 4.0,
        "validation loss went from {initial} to {last}"
    );
    assert_eq!(
        log.watched.as_ref().map(|w| w.name.as_str()),
        Some("model.layers.0.mlp.up_proj.weight")
    );

    let folder = dir.path().join("model");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("config.json")).unwrap())
            .unwrap();
    assert_eq!(config["model_type"], "llama");
    assert_eq!(config["architectures"][0], "LlamaForCausalLM");
    assert_eq!(config["num_key_value_heads"], 1);
    assert_eq!(
        config["intermediate_size"], 64,
        "8/3 of 16, rounded up to 32s"
    );
    let bytes = std::fs::read(folder.join("model.safetensors")).unwrap();
    let keys: Vec<String> = safetensors::SafeTensors::deserialize(&bytes)
        .unwrap()
        .names()
        .into_iter()
        .map(str::to_string)
        .collect();
    assert!(keys.contains(&"model.embed_tokens.weight".to_string()));
    assert!(keys.contains(&"model.layers.0.self_attn.k_proj.weight".to_string()));
    assert!(
        keys.iter().all(|k| !k.starts_with("transformer.")),
        "{keys:?}"
    );

    let files = tracebook_model::source::from_dir("tiny-llama", &folder).unwrap();
    let model = tracebook_model::Model::load(files).unwrap();
    assert_eq!(model.config, settings.architecture.config());
    assert_eq!(model.config.model_type(), "llama");
    let corpus = Corpus::load(&dir.path().join("corpus.txt"), &model.tokenizer, 0.1, 16).unwrap();
    let reloaded = mean_loss(&model.net, &validation(&corpus.val, 16, 8)).unwrap();
    assert!(
        (reloaded - last).abs() < 1e-5,
        "reloaded {reloaded} vs logged {last}"
    );
    let saved = TrainingLog::load(&folder.join("training_log.json")).unwrap();
    assert_eq!(saved.settings.architecture, settings.architecture);
}

#[test]
fn kv_heads_are_checked_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = tiny_settings();
    settings.architecture.kv_heads = Some(1);
    let gpt2 = run_in(dir.path(), settings.clone(), false).unwrap_err();
    assert!(
        gpt2.to_string()
            .contains("--kv-heads 1 is for --arch llama"),
        "{gpt2}"
    );
    settings.architecture.arch = Arch::Llama;
    settings.architecture.kv_heads = Some(3);
    let uneven = run_in(dir.path(), settings, false).unwrap_err();
    assert!(
        uneven
            .to_string()
            .contains("--kv-heads 3 does not divide --heads 2"),
        "{uneven}"
    );
    assert!(!dir.path().join("model").exists());
}

/// Copies the checkpoint folder away right after the save at `step`: what an interrupted run
/// leaves behind.
struct KeepCheckpointAt {
    step: usize,
    to: PathBuf,
}

impl Observer for KeepCheckpointAt {
    fn saved(&mut self, step: usize, dir: &Path) {
        if step == self.step {
            copy_dir(dir, &self.to);
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn a_seed_fixes_the_weights_and_a_resumed_run_ends_where_an_uninterrupted_one_does() {
    let weights = |dir: &Path| std::fs::read(dir.join("model/model.safetensors")).unwrap();
    let mut settings = tiny_settings();
    settings.steps = 6;
    settings.checkpoint_every = 3;
    settings.dtype = WeightsDtype::F16;

    let straight = tempfile::tempdir().unwrap();
    let interrupted = tempfile::tempdir().unwrap();
    let corpus = straight.path().join("corpus.txt");
    std::fs::write(&corpus, small_text()).unwrap();
    let mut keep = KeepCheckpointAt {
        step: 3,
        to: interrupted.path().join("model"),
    };
    let run = TrainRun {
        corpus,
        out: straight.path().join("model"),
        settings: settings.clone(),
        resume: false,
        stop_after: None,
    };
    let full = train(&run, &mut keep).unwrap();

    let again = tempfile::tempdir().unwrap();
    run_in(again.path(), settings.clone(), false).unwrap();
    assert_eq!(weights(straight.path()), weights(again.path()));

    let kept = TrainingLog::load(&interrupted.path().join("model/training_log.json")).unwrap();
    assert_eq!(kept.steps.len(), 3);
    let resumed = run_in(interrupted.path(), settings.clone(), true).unwrap();
    assert_eq!(weights(straight.path()), weights(interrupted.path()));
    let losses = |log: &TrainingLog| log.steps.iter().map(|r| r.loss).collect::<Vec<_>>();
    assert_eq!(losses(&resumed), losses(&full));

    let other = tempfile::tempdir().unwrap();
    run_in(
        other.path(),
        Settings {
            seed: 1,
            ..settings
        },
        false,
    )
    .unwrap();
    assert_ne!(weights(straight.path()), weights(other.path()));
}

#[test]
fn resuming_with_other_settings_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = tiny_settings();
    (settings.steps, settings.warmup) = (2, 1);
    run_in(dir.path(), settings.clone(), false).unwrap();
    let before = std::fs::read(dir.path().join("model/model.safetensors")).unwrap();
    let err = run_in(
        dir.path(),
        Settings {
            batch_size: 5,
            steps: 4,
            ..settings
        },
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("--batch-size 4 (asked 5)"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("model/model.safetensors")).unwrap(),
        before
    );
}

/// Each bad input fails before anything is written, naming the file or option at fault.
#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let attempt = |corpus: &Path, settings: Settings| {
        let run = TrainRun {
            corpus: corpus.to_path_buf(),
            out: out.clone(),
            settings,
            resume: false,
            stop_after: None,
        };
        let err = train(&run, &mut Quiet).unwrap_err().to_string();
        assert!(!out.exists(), "nothing may be written on: {err}");
        err
    };
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };

    let missing = dir.path().join("missing.txt");
    let err = attempt(&missing, tiny_settings());
    assert!(
        err.contains("missing.txt") && err.contains("does not exist"),
        "{err}"
    );

    let empty = file("empty.txt", b"  \n");
    let err = attempt(&empty, tiny_settings());
    assert!(err.contains("empty.txt") && err.contains("empty"), "{err}");

    let latin1 = file("latin1.txt", b"caf\xe9 au lait\n");
    let err = attempt(&latin1, tiny_settings());
    assert!(
        err.contains("latin1.txt") && err.contains("not UTF-8") && err.contains("offset 3"),
        "{err}"
    );

    let short = file("short.txt", b"Too short for one window of sixteen tokens.");
    let err = attempt(&short, tiny_settings());
    assert!(
        err.contains("short.txt") && err.contains("too few"),
        "{err}"
    );

    let good = file("good.txt", small_text().as_bytes());
    let mut odd = tiny_settings();
    odd.architecture.width = 18;
    odd.architecture.heads = 4;
    let err = attempt(&good, odd);
    assert!(
        err.contains("--width 18 is not divisible by --heads 4"),
        "{err}"
    );
}

#[test]
fn an_occupied_output_folder_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("model");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.md"), "mine").unwrap();
    let err = run_in(dir.path(), tiny_settings(), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not empty"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.md")).unwrap(),
        "mine"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
}

#[derive(Deserialize)]
struct LogitsFixture {
    weights_sha256: String,
    samples: usize,
    prompts: Vec<LogitsPrompt>,
}

#[derive(Deserialize)]
struct LogitsPrompt {
    text: String,
    ids: Vec<u32>,
    top_ids: Vec<Vec<u32>>,
    top_logits: Vec<Vec<f32>>,
    last_logits: Vec<f32>,
}

/// The model in `dir` gives the logits `transformers` gave (tests/reference/make_model_fixture.py).
fn check_against_transformers(dir: &Path, fixture: &Path) {
    let f: LogitsFixture =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let files = tracebook_model::source::from_dir("shipped", dir).unwrap();
    let model = tracebook_model::Model::load(files).unwrap();
    assert_eq!(
        model.weights_sha256,
        f.weights_sha256,
        "regenerate {}",
        fixture.display()
    );
    for p in &f.prompts {
        let ids: Vec<u32> = model
            .tokenizer
            .encode(&p.text)
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, p.ids, "token ids of {:?}", p.text);
        let logits = model
            .net
            .forward(&ids, &mut tracebook_model::NoRecorder)
            .unwrap();
        let rows = logits.to_vec2::<f32>().unwrap();
        for (pos, row) in rows.iter().enumerate() {
            let top: Vec<u32> = tracebook_model::topk::top_k(row, 20)
                .iter()
                .map(|(i, _)| *i)
                .collect();
            let values: Vec<f32> = p.top_ids[pos].iter().map(|&i| row[i as usize]).collect();
            assert_close(
                &format!("{:?} top logits at {pos}", p.text),
                &values,
                &p.top_logits[pos],
                1e-4,
                0.0,
            );
            assert_eq!(top[..5], p.top_ids[pos][..5], "{:?} top 5 at {pos}", p.text);
        }
        let last = sample(rows.last().unwrap(), f.samples);
        assert_close(
            &format!("{:?} last logits", p.text),
            &last,
            &p.last_logits,
            1e-4,
            0.0,
        );
    }
}

/// tracebook-tiny-en (GPT-2's vocabulary: tokens.md draws GPT-2's tokenizer from it) loads in
/// tracebook exactly as in Python's `transformers`.
#[test]
fn the_shipped_model_gives_the_logits_transformers_gives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    check_against_transformers(
        &root.join("models/tracebook-tiny-en"),
        &fixture_path("tracebook-tiny-en-logits.json"),
    );
}

/// tracebook-mini-en, the example model that copies, loads in `transformers` as a
/// GPT2LMHeadModel with its own BPE and the same logits (tests/reference/make_model_fixture.py).
#[test]
fn the_copying_model_gives_the_logits_transformers_gives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    check_against_transformers(
        &root.join("models/tracebook-mini-en"),
        &fixture_path("tracebook-mini-en-logits.json"),
    );
}

/// tracebook-mini-llama, tracebook-mini-en's twin trained by `tracebook train --arch llama`,
/// loads in `transformers` as a LlamaForCausalLM with the same logits.
#[test]
fn the_copying_llama_gives_the_logits_transformers_gives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    check_against_transformers(
        &root.join("models/tracebook-mini-llama"),
        &fixture_path("tracebook-mini-llama-logits.json"),
    );
}
