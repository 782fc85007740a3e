//! How an encoder-decoder's decoder writes a prompt's translation: greedily, sampled with a
//! seed (the sampler and `generation` of a decoder-only prompt's continuation), or as a
//! beam-search tree (`beams = N`, the decoder-only tree's format, branches ending at `</s>`).
//! On a random-weight tiny Marian (`tracebook dev test-model --arch marian`) and on the
//! trained models/tracebook-tiny-en-fr.

#[path = "support/tiny_marian.rs"]
mod tiny_marian;

use std::path::Path;
use tracebook_model::{AnyModel, TraceRequest};
use tracebook_trace::{BeamTree, PromptOptions, PromptSpec, Trace, TraceOptions};

/// `</s>` in both models.
const EOS: u32 = 0;

fn tiny_marian(dir: &Path) -> AnyModel {
    tiny_marian::folder_with_tokenizer(dir);
    AnyModel::load(tracebook_model::source::from_dir("tiny-marian", dir).unwrap()).unwrap()
}

fn en_fr() -> AnyModel {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/tracebook-tiny-en-fr");
    AnyModel::load(tracebook_model::source::from_dir("en-fr", &dir).unwrap()).unwrap()
}

fn trace(model: &AnyModel, text: &str, options: PromptOptions) -> Trace {
    let prompt = PromptSpec {
        text: text.into(),
        options,
        model: None,
        model_name: None,
    };
    prompt.options.validate().unwrap();
    let request = TraceRequest {
        name: "p",
        prompt: &prompt,
        options: TraceOptions::default(),
    };
    model.trace(&request).unwrap()
}

fn written(trace: &Trace) -> Vec<u32> {
    trace.meta.generation.iter().map(|s| s.id).collect()
}

fn sampled(temperature: f64, seed: u64) -> PromptOptions {
    PromptOptions {
        generate: 8,
        temperature: Some(temperature),
        top_k: Some(5),
        seed: Some(seed),
        ..PromptOptions::default()
    }
}

/// What the decoder wrote ends at `</s>` or after `generate` tokens, and its positions are
/// the start token then each token written but the last.
fn ends_as_greedy_does(trace: &Trace, generate: usize) {
    let ids = written(trace);
    assert!(!ids.is_empty() && ids.len() <= generate, "{ids:?}");
    assert!(
        !ids[..ids.len() - 1].contains(&EOS),
        "{ids:?} goes on past </s>"
    );
    assert!(ids.len() == generate || ids.last() == Some(&EOS), "{ids:?}");
    let positions = &trace.meta.translation.as_ref().unwrap().tokens;
    let inputs: Vec<u32> = positions.iter().skip(1).map(|t| t.id).collect();
    assert_eq!(inputs, ids[..ids.len() - 1], "the decoder's positions");
}

#[test]
fn a_seeded_sampled_translation_is_reproducible_and_not_greedy() {
    let temp = tempfile::tempdir().unwrap();
    let model = tiny_marian(&temp.path().join("marian"));
    let text = "cannot open file 7";
    let greedy = written(&trace(&model, text, sampled(0.0, 0)));
    // Random weights tied to the embedding echo the start token with p ≈ 1: a high
    // temperature flattens that enough for the others to be drawn.
    let first = trace(&model, text, sampled(5.0, 3));
    assert_eq!(
        written(&first),
        written(&trace(&model, text, sampled(5.0, 3)))
    );
    assert!(
        (0..8).any(|seed| written(&trace(&model, text, sampled(5.0, seed))) != greedy),
        "some seed samples another translation than greedy {greedy:?}"
    );
    ends_as_greedy_does(&first, 8);
    // The recorded pass is over what the sampler wrote.
    let t = first.meta.translation.as_ref().unwrap().tokens.len();
    let pattern = first.tensor("decoder.blocks.0.self_attn.pattern").unwrap();
    assert_eq!(pattern.shape[1..], [t, t]);
}

#[test]
fn each_sampled_step_is_one_of_its_recorded_candidates() {
    let model = en_fr();
    let text = "cannot open file %s";
    let greedy = written(&trace(&model, text, sampled(0.0, 0)));
    let mut differ = false;
    for seed in 0..4 {
        let trace = trace(&model, text, sampled(1.0, seed));
        ends_as_greedy_does(&trace, 8);
        differ |= written(&trace) != greedy;
        for (t, step) in trace.meta.generation.iter().enumerate() {
            let chosen = step.top.iter().find(|c| c.id == step.id);
            let chosen = chosen.unwrap_or_else(|| panic!("step {t}: {} not a candidate", step.id));
            assert_eq!(chosen.prob, step.prob, "step {t}");
            let total: f32 = step.top.iter().map(|c| c.prob).sum();
            assert!(total <= 1.0 + 1e-5, "step {t}: candidates sum to {total}");
            assert!(step.top.windows(2).all(|w| w[0].prob >= w[1].prob));
            assert_eq!(trace.meta.token_texts[&step.id], step.text);
        }
    }
    assert!(
        differ,
        "some seed samples another translation than greedy {greedy:?}"
    );
}

/// Each node's children, index 0 the root's (the decoder's start token), node i's at i + 1.
fn children(tree: &BeamTree) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); tree.nodes.len() + 1];
    for (i, node) in tree.nodes.iter().enumerate() {
        out[node.parent.map_or(0, |p| p + 1)].push(i);
    }
    out
}

fn depth(tree: &BeamTree, mut node: usize) -> usize {
    let mut d = 1;
    while let Some(p) = tree.nodes[node].parent {
        (node, d) = (p, d + 1);
    }
    d
}

#[test]
fn a_beam_tree_grows_from_the_decoder_start_and_ends_branches_at_eos() {
    let model = en_fr();
    let options = PromptOptions {
        generate: 5,
        beams: Some(3),
        ..PromptOptions::default()
    };
    let beam = trace(&model, "The file already exists", options.clone());
    ends_as_greedy_does(&beam, 5);
    let tree = beam.meta.beam.as_ref().expect("a beam tree");
    assert_eq!((tree.width, tree.steps), (3, 5));
    assert!(tree.nodes.len() <= 400);
    let children = children(tree);
    // The root's children: the first step's three likeliest tokens, with its log-probs.
    let options = PromptOptions {
        beams: None,
        ..options
    };
    let greedy = trace(&model, "The file already exists", options);
    let first = &greedy.meta.generation[0];
    assert_eq!(children[0].len(), 3);
    for (&node, candidate) in children[0].iter().zip(&first.top) {
        let node = &tree.nodes[node];
        assert_eq!(node.id, candidate.id);
        let expected = candidate.prob.ln();
        assert!(
            (node.logprob - expected).abs() < 1e-4,
            "{node:?} vs {expected}"
        );
    }
    assert_eq!(beam.meta.generation, greedy.meta.generation);
    // </s> ends a branch; every other node above the last step has its three children.
    let ends = tree.nodes.iter().filter(|n| n.id == EOS).count();
    assert!(ends > 0, "some branch of the tree ends within 5 tokens");
    for (i, node) in tree.nodes.iter().enumerate() {
        let kids = children[i + 1].len();
        match (node.id == EOS, depth(tree, i) < tree.steps) {
            (true, _) | (false, false) => assert_eq!(kids, 0, "node {i}"),
            (false, true) => assert_eq!(kids, 3, "node {i}"),
        }
        assert!(beam.meta.token_texts.contains_key(&node.id));
    }
    // Following the likeliest child from the root writes the greedy translation.
    let mut path = Vec::new();
    let mut at = 0;
    while let Some(&child) = children[at].first() {
        path.push(tree.nodes[child].id);
        at = child + 1;
    }
    assert_eq!(path, written(&greedy));
}
