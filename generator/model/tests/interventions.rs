//! Ablation and activation patching against Hugging Face `transformers` with the same hooks
//! (tests/reference/make_intervention_fixtures.py): every head and MLP ablated by zero and by
//! the mean, and every residual position and head patched, on GPT-2 and Llama-family test
//! models (grouped-query attention, a sliding window, q/k norms); every log-probability,
//! top-token probability and logit difference within 1e-4. And the trace side: a prompt's
//! `ablate` and `patch` options recorded in its trace, and refused when they cannot run.

use serde::Deserialize;
use std::path::Path;
use tracebook_model::intervene::{ablate, patch, Next};
use tracebook_model::testmodel::{write_test_model, TestModelSpec};
use tracebook_model::{trace, Family, Model, TraceRequest};
use tracebook_trace::{AblationMode, AblationSpec, PatchSpec, PromptOptions, PromptSpec};

const TOLERANCE: f32 = 1e-4;

#[derive(Deserialize)]
struct Fixture {
    args: Vec<String>,
    config: serde_json::Map<String, serde_json::Value>,
    ids: Vec<u32>,
    corrupted_ids: Vec<u32>,
    targets: Vec<u32>,
    answer: u32,
    wrong: u32,
    ablation: serde_json::Value,
    patching: RefPatching,
}

#[derive(Deserialize)]
struct RefOutcome {
    logprobs: Vec<f32>,
    top_ids: Vec<u32>,
    top_probs: Vec<f32>,
}

#[derive(Deserialize)]
struct RefAblation {
    heads: Vec<Vec<RefOutcome>>,
    mlp: Vec<RefOutcome>,
}

#[derive(Deserialize)]
struct RefPatching {
    clean: f32,
    corrupted: f32,
    resid: Vec<Vec<f32>>,
    heads: Vec<Vec<f32>>,
}

fn fixtures() -> Vec<(String, Fixture)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/interventions");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (
                name,
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap(),
            )
        })
        .collect()
}

fn model_of(f: &Fixture, dir: &Path) -> Model {
    let mut spec = match f.args.as_slice() {
        [] => TestModelSpec::tiny(),
        [flag, arch] if flag == "--arch" => {
            TestModelSpec::family(Family::from_model_type(arch).unwrap())
        }
        other => panic!("test-model arguments {other:?}"),
    };
    for (field, value) in &f.config {
        spec.config = spec.config.with(field, &value.to_string()).unwrap();
    }
    write_test_model(dir, &spec).unwrap();
    Model::load(tracebook_model::source::from_dir("test", dir).unwrap()).unwrap()
}

/// The largest gap between our run and the reference's, or where one differs by more than the
/// tolerance.
fn gap(what: &str, ours: &Next, theirs: &RefOutcome) -> Result<f32, String> {
    let mut worst = 0f32;
    let pairs = ours.logprobs.iter().zip(&theirs.logprobs);
    let probs = ours
        .top
        .iter()
        .map(|t| t.1)
        .zip(theirs.top_probs.iter().copied());
    for (i, (a, b)) in pairs.map(|(a, b)| (*a, *b)).chain(probs).enumerate() {
        if (a - b).abs() > TOLERANCE {
            return Err(format!("{what} [{i}]: ours {a}, transformers {b}"));
        }
        worst = worst.max((a - b).abs());
    }
    // Ids must agree where the probabilities are not tied.
    for (i, (a, b)) in ours.top.iter().zip(&theirs.top_ids).enumerate() {
        let tied = theirs
            .top_probs
            .windows(2)
            .any(|w| (w[0] - w[1]).abs() < 1e-6);
        if a.0 != *b && !tied {
            return Err(format!(
                "{what} top[{i}]: ours id {}, transformers {b}",
                a.0
            ));
        }
    }
    Ok(worst)
}

fn compare(f: &Fixture) -> Result<f32, String> {
    let dir = tempfile::tempdir().unwrap();
    let model = model_of(f, dir.path());
    let mut worst = 0f32;
    for (mode, key) in [(AblationMode::Zero, "zero"), (AblationMode::Mean, "mean")] {
        let reference: RefAblation = serde_json::from_value(f.ablation[key].clone()).unwrap();
        let ours = ablate(&model.net, &f.ids, &f.targets, mode, 5).map_err(|e| e.to_string())?;
        for (l, heads) in reference.heads.iter().enumerate() {
            for (h, theirs) in heads.iter().enumerate() {
                let what = format!("{key} head {l}.{h}");
                worst = worst.max(gap(&what, &ours.heads[l][h], theirs)?);
            }
            worst = worst.max(gap(
                &format!("{key} mlp {l}"),
                &ours.mlp[l],
                &reference.mlp[l],
            )?);
        }
        let base: RefOutcome = serde_json::from_value(f.ablation["base"].clone()).unwrap();
        worst = worst.max(gap("base", &ours.base, &base)?);
    }
    let ours = patch(&model.net, &f.ids, &f.corrupted_ids, f.answer, f.wrong)
        .map_err(|e| e.to_string())?;
    let theirs = &f.patching;
    let flat = |rows: &[Vec<f32>]| rows.concat();
    let all_ours = [
        vec![ours.clean, ours.corrupted],
        flat(&ours.resid),
        flat(&ours.heads),
    ];
    let all_theirs = [
        vec![theirs.clean, theirs.corrupted],
        flat(&theirs.resid),
        flat(&theirs.heads),
    ];
    for (part, (a, b)) in all_ours.iter().zip(&all_theirs).enumerate() {
        if a.len() != b.len() {
            return Err(format!(
                "patching part {part}: {} values, transformers {}",
                a.len(),
                b.len()
            ));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            if (x - y).abs() > TOLERANCE {
                return Err(format!(
                    "patching part {part} [{i}]: ours {x}, transformers {y}"
                ));
            }
            worst = worst.max((x - y).abs());
        }
    }
    Ok(worst)
}

#[test]
fn ablation_and_patching_match_transformers_with_the_same_hooks() {
    let fixtures = fixtures();
    assert!(fixtures.len() >= 4, "only {} fixtures", fixtures.len());
    let mut failures = Vec::new();
    for (name, f) in &fixtures {
        match compare(f) {
            Ok(worst) => eprintln!("{name}: largest |diff| {worst:e}"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The interventions change the run: a fixture whose ablations all gave the base run would
/// pass the comparison above with hooks that did nothing.
#[test]
fn the_fixtures_interventions_move_the_prediction() {
    for (name, f) in fixtures() {
        let base: RefOutcome = serde_json::from_value(f.ablation["base"].clone()).unwrap();
        let zero: RefAblation = serde_json::from_value(f.ablation["zero"].clone()).unwrap();
        let moved = zero
            .heads
            .iter()
            .flatten()
            .filter(|o| (o.logprobs[0] - base.logprobs[0]).abs() > 1e-2)
            .count();
        assert!(
            moved >= 4,
            "{name}: only {moved} head ablations move p(target)"
        );
        let p = &f.patching;
        assert!(
            (p.clean - p.corrupted).abs() > 0.1,
            "{name}: clean and corrupted agree"
        );
    }
}

fn tiny_llama(dir: &Path) -> Model {
    write_test_model(dir, &TestModelSpec::family(Family::Llama)).unwrap();
    Model::load(tracebook_model::source::from_dir("test", dir).unwrap()).unwrap()
}

fn request(prompt: &PromptSpec) -> TraceRequest<'_> {
    TraceRequest {
        name: "tea",
        prompt,
        options: Default::default(),
    }
}

fn with(text: &str, ablate: Option<AblationSpec>, patch: Option<PatchSpec>) -> PromptSpec {
    PromptSpec {
        options: PromptOptions {
            ablate,
            patch,
            ..PromptOptions::default()
        },
        ..PromptSpec::new(text)
    }
}

#[test]
fn a_trace_keeps_every_ablation_and_patch_the_prompt_asks_for() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_llama(dir.path());
    let ablate = AblationSpec {
        targets: vec![" the".into(), " and".into()],
        mode: AblationMode::Mean,
    };
    let patch = PatchSpec {
        corrupted: "The robots will bring us milk".into(),
        answer: " the".into(),
        wrong: " and".into(),
    };
    let prompt = with("The robots will bring us tea", Some(ablate), Some(patch));
    let t = trace(&model, &request(&prompt)).unwrap();
    let a = t.meta.ablation.as_ref().expect("the ablation");
    assert_eq!((a.heads.len(), a.heads[0].len(), a.mlp.len()), (2, 4, 2));
    assert_eq!(a.targets[1].text, " and");
    assert_eq!(a.target(" and"), Some(1));
    // The base run is the traced run: its top token is the trace's own top token.
    let top = t.tensor("logits.topk_ids").unwrap();
    assert_eq!(a.base.top[0].id as f32, top.get(&[-1, 0]).unwrap());
    let texts = &t.meta.token_texts;
    assert!(a.heads[1][3]
        .top
        .iter()
        .all(|c| texts.get(&c.id) == Some(&c.text)));
    let p = t.meta.patching.as_ref().expect("the patching");
    assert_eq!(
        (p.resid.len(), p.resid[0].len(), p.heads[0].len()),
        (2, 6, 4)
    );
    // Patching the whole stream at block 0 where the prompts differ gives the clean run
    // exactly; where they agree, the corrupted one.
    let last = p.resid[0].len() - 1;
    assert!(
        (p.resid[0][5] - 1.0).abs() < 1e-4 || last != 5,
        "{:?}",
        p.resid[0]
    );
    assert!(
        p.resid[0][..5].iter().all(|m| m.abs() < 1e-4),
        "{:?}",
        p.resid[0]
    );
    // The trace reads back as it was written.
    let back = tracebook_trace::Trace::from_json(&t.to_json()).unwrap();
    assert_eq!(back.meta.ablation, t.meta.ablation);
    assert_eq!(back.meta.patching, t.meta.patching);
}

#[test]
fn a_target_named_by_rule_is_the_model_s_own_guess_on_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_llama(dir.path());
    let ablate = AblationSpec {
        targets: vec!["guess(2)".into(), " and".into(), "guess(1)".into()],
        mode: AblationMode::Mean,
    };
    for text in ["The robots will bring us tea", "A cat"] {
        let prompt = with(text, Some(ablate.clone()), None);
        let t = trace(&model, &request(&prompt)).unwrap();
        let a = t.meta.ablation.as_ref().unwrap();
        let top = t.tensor("logits.topk_ids").unwrap();
        let guess = |k: i64| top.get(&[-1, k]).unwrap() as u32;
        assert_eq!((a.targets[0].id, a.targets[2].id), (guess(1), guess(0)));
        assert_eq!(a.targets[0].rule.as_deref(), Some("guess(2)"));
        assert_eq!(a.targets[1].rule, None);
        assert_eq!(t.meta.token_texts[&guess(0)], a.targets[2].text);
        // The ablation's base run is the traced run, so the first guess is its top token.
        assert_eq!(a.base.top[0].id, a.targets[2].id);
        let back = tracebook_trace::Trace::from_json(&t.to_json()).unwrap();
        assert_eq!(back.meta.ablation, t.meta.ablation);
    }
    let bad = AblationSpec {
        targets: vec!["guess(11)".into()],
        mode: AblationMode::Mean,
    };
    let prompt = with("A cat", Some(bad), None);
    let message = trace(&model, &request(&prompt)).err().unwrap().to_string();
    assert!(message.contains("from 1 to 10"), "{message}");
}

#[test]
fn experiments_that_cannot_run_say_why_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_llama(dir.path());
    let err = |prompt: PromptSpec| trace(&model, &request(&prompt)).err().unwrap().to_string();
    let two_tokens = AblationSpec {
        targets: vec![" Parisianistically".into()],
        mode: AblationMode::Zero,
    };
    let message = err(with("The robots", Some(two_tokens), None));
    assert!(message.contains("not one token"), "{message}");
    assert!(message.contains("+"), "{message}");
    let longer = PatchSpec {
        corrupted: "The big robots will bring us milk".into(),
        answer: " the".into(),
        wrong: " and".into(),
    };
    let message = err(with("The robots will bring us tea", None, Some(longer)));
    assert!(
        message.contains("7 tokens and the prompt is 6"),
        "{message}"
    );
    assert!(message.contains("hint:"), "{message}");
    let same = PatchSpec {
        corrupted: "The robots will bring us tea".into(),
        answer: " the".into(),
        wrong: " and".into(),
    };
    let message = err(with("The robots will bring us tea", None, Some(same)));
    assert!(message.contains("same logit difference"), "{message}");
}
