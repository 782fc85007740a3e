//! `train --pairs`: a Marian-architecture model learns a small translation task (number words,
//! English to French) from scratch: its loss falls, its checkpoint is a folder the forward
//! pass loads, its greedy translations are logged; bad pairs files and occupied folders are
//! refused with the line or folder named.

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use tracebook_model::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use tracebook_model::seq2seq::Seq2Seq;
use tracebook_model::train::{train_translation, Architecture, Settings, TranslationRun};
use tracebook_tokenizer::Tokenizer;

const EN: [&str; 6] = ["one", "two", "three", "four", "five", "six"];
const FR: [&str; 6] = ["un", "deux", "trois", "quatre", "cinq", "six"];

/// Every pair of two number words: "two four" -> "deux quatre".
fn pairs() -> String {
    let mut out = String::new();
    for (a, fa) in EN.iter().zip(FR) {
        for (b, fb) in EN.iter().zip(FR) {
            out.push_str(&format!("{a} {b}\t{fa} {fb}\n"));
        }
    }
    out
}

fn run(dir: &std::path::Path, steps: usize) -> TranslationRun {
    let mut settings = Settings::small(Architecture::gpt2(1, 2, 32, 12));
    (settings.steps, settings.batch_size, settings.warmup) = (steps, 8, 10);
    (settings.eval_every, settings.checkpoint_every) = (steps, steps);
    settings.learning_rate = 3e-3;
    settings.val_share = 0.1;
    TranslationRun {
        pairs: dir.join("pairs.tsv"),
        out: dir.join("model"),
        settings,
        vocab: 300,
        samples: vec!["two four".into()],
    }
}

#[test]
fn a_translation_model_learns_and_saves_a_folder_the_forward_pass_loads() {
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("pairs.tsv"), pairs()).unwrap();
    let run = run(temp.path(), 150);
    let log = train_translation(&run, &mut |_, _| {}).unwrap();
    let first: f64 = log.steps[..10].iter().map(|s| s.loss).sum::<f64>() / 10.0;
    let last: f64 = log.steps[140..].iter().map(|s| s.loss).sum::<f64>() / 10.0;
    assert!(
        last < first * 0.5,
        "the loss falls: {first:.3} -> {last:.3}"
    );
    assert_eq!(log.train_pairs + log.val_pairs, 36);
    let evaluation = log.evaluations.last().unwrap();
    assert_eq!(evaluation.samples[0].0, "two four");
    assert!(evaluation.val_loss.is_finite());

    // The folder: config.json as transformers reads it, weights, tokenizer, log.
    for file in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "training_log.json",
    ] {
        assert!(run.out.join(file).is_file(), "{file}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.out.join("config.json")).unwrap())
            .unwrap();
    let config = Seq2SeqConfig::from_json(Seq2SeqKind::Marian, json.as_object().unwrap()).unwrap();
    assert_eq!(
        (
            config.d_model,
            config.encoder_layers,
            config.decoder_start_token_id
        ),
        (32, 1, 2)
    );
    let tensors =
        candle_core::safetensors::load(run.out.join("model.safetensors"), &Device::Cpu).unwrap();
    assert!(tensors.contains_key("final_logits_bias"));
    let model = Seq2Seq::load(
        VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu),
        &config,
    )
    .unwrap();
    let tokenizer = Tokenizer::from_file(&run.out.join("tokenizer.json")).unwrap();
    assert_eq!(tokenizer.special_token("</s>"), Some(0));
    let mut source: Vec<u32> = tokenizer
        .encode("three one")
        .unwrap()
        .iter()
        .map(|t| t.id)
        .collect();
    source.push(0);
    let output = model.translate_greedy(&source, 12).unwrap();
    assert!(!output.is_empty() && output.len() <= 12);
}

#[test]
fn a_line_without_a_tab_and_an_occupied_folder_are_refused() {
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("pairs.tsv"), "one\tun\ntwo deux\n").unwrap();
    let err = train_translation(&run(temp.path(), 20), &mut |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pairs.tsv") && err.contains("line 2 has no tab"),
        "{err}"
    );

    std::fs::write(temp.path().join("pairs.tsv"), pairs()).unwrap();
    std::fs::create_dir(temp.path().join("model")).unwrap();
    std::fs::write(temp.path().join("model/notes.txt"), "mine").unwrap();
    let err = train_translation(&run(temp.path(), 20), &mut |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("not empty"), "{err}");
    assert_eq!(
        std::fs::read_to_string(temp.path().join("model/notes.txt")).unwrap(),
        "mine"
    );
}
