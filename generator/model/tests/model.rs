//! Loading, recording, generation and bad input, on the tiny random-weights test model.

use std::path::Path;
use tracebook_model::testmodel::{write_test_model, KeyLayout, TestModelSpec};
use tracebook_model::{source, trace, Model, ModelBytes, NoRecorder, TensorRecorder, TraceRequest};
use tracebook_trace::{Precision, PromptOptions, PromptSpec, TraceOptions};

fn tiny(dir: &Path, layout: KeyLayout) -> Model {
    let spec = TestModelSpec {
        layout,
        ..TestModelSpec::tiny()
    };
    write_test_model(dir, &spec).unwrap();
    Model::load(source::from_dir("tiny", dir).unwrap()).unwrap()
}

fn prompt(text: &str, options: PromptOptions) -> PromptSpec {
    PromptSpec {
        text: text.into(),
        options,
        model: None,
        model_name: None,
    }
}

fn request<'a>(prompt: &'a PromptSpec) -> TraceRequest<'a> {
    TraceRequest {
        name: "p",
        prompt,
        options: TraceOptions {
            precision: Precision::F32,
            top_k: 5,
        },
    }
}

/// Every name of the trace tensor table (AUTHORING.md), for a model of `layers` blocks.
fn table(layers: usize) -> Vec<String> {
    let mut names: Vec<String> = ["embed", "pos_embed", "ln_final.normalized"]
        .map(String::from)
        .into();
    for l in 0..layers {
        for n in [
            "resid_pre",
            "ln1.mean",
            "ln1.std",
            "ln1.normalized",
            "attn.q",
            "attn.k",
            "attn.v",
            "attn.scores",
            "attn.pattern",
            "attn.z",
            "attn_out",
            "resid_mid",
            "ln2.mean",
            "ln2.std",
            "ln2.normalized",
            "mlp.pre",
            "mlp.post",
            "mlp_out",
            "resid_post",
        ] {
            names.push(format!("blocks.{l}.{n}"));
        }
    }
    names.sort();
    names
}

#[test]
fn both_key_layouts_load_to_the_same_model() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let bare = tiny(a.path(), KeyLayout::Bare);
    let prefixed = tiny(b.path(), KeyLayout::Transformer);
    let ids = [464, 14193, 481, 2222];
    let x = bare.net.forward(&ids, &mut NoRecorder).unwrap();
    let y = prefixed.net.forward(&ids, &mut NoRecorder).unwrap();
    assert_eq!(x.to_vec2::<f32>().unwrap(), y.to_vec2::<f32>().unwrap());
}

#[test]
fn tracing_records_the_whole_table_and_a_plain_forward_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let ids = [464, 14193, 481, 2222];
    let mut rec = TensorRecorder::default();
    let traced = model.net.forward(&ids, &mut rec).unwrap();
    let mut names: Vec<String> = rec.tensors.iter().map(|t| t.name.clone()).collect();
    names.sort();
    assert_eq!(names, table(2));
    assert_eq!(
        rec.get("blocks.1.attn.pattern").unwrap().shape,
        vec![4, 4, 4]
    );
    assert_eq!(rec.get("blocks.0.mlp.pre").unwrap().shape, vec![4, 256]);
    let plain = model.net.forward(&ids, &mut NoRecorder).unwrap();
    assert_eq!(
        traced.to_vec2::<f32>().unwrap(),
        plain.to_vec2::<f32>().unwrap()
    );
}

#[test]
fn pattern_is_causal_and_rows_sum_to_one() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let mut rec = TensorRecorder::default();
    model.net.forward(&[1, 2, 3, 4, 5], &mut rec).unwrap();
    let p = &rec.get("blocks.0.attn.pattern").unwrap().data;
    for h in 0..4 {
        for q in 0..5 {
            let row = &p[(h * 5 + q) * 5..(h * 5 + q + 1) * 5];
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(
                row[q + 1..].iter().all(|&v| v == 0.0),
                "head {h} query {q} looks ahead"
            );
        }
    }
}

#[test]
fn a_trace_holds_tokens_spans_logits_and_generation() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let spec = prompt(
        "I like cats and",
        PromptOptions {
            generate: 3,
            ..Default::default()
        },
    );
    let t = trace(&model, &request(&spec)).unwrap();
    let text: String = t.meta.tokens.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(text, "I like cats and");
    assert_eq!(t.meta.tokens[1].start, 1);
    assert_eq!(t.meta.tokens[1].end, 6);
    assert_eq!(t.shape("logits.last").unwrap(), &[50257]);
    assert_eq!(t.shape("logits.topk_ids").unwrap(), &[4, 5]);
    assert_eq!(t.meta.model.weights_sha256.len(), 64);
    // Greedy: each generated token is the top candidate of its step, with the same probability.
    assert_eq!(t.meta.generation.len(), 3);
    for step in &t.meta.generation {
        assert_eq!(step.id, step.top[0].id);
        assert_eq!(step.prob, step.top[0].prob);
        assert!(step.top.windows(2).all(|w| w[0].prob >= w[1].prob));
    }
    // The first generated token is the argmax of logits.last.
    let last = t.tensor("logits.last").unwrap().data;
    let ids = t.tensor("logits.topk_ids").unwrap().data;
    let argmax = (0..last.len())
        .max_by(|&a, &b| last[a].total_cmp(&last[b]))
        .unwrap();
    assert_eq!(t.meta.generation[0].id as usize, argmax);
    assert_eq!(ids[3 * 5] as usize, argmax);
    assert!(t.meta.token_texts.contains_key(&(argmax as u32)));
}

#[test]
fn a_beam_tree_holds_each_nodes_likeliest_children_with_the_models_log_probabilities() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let spec = prompt(
        "I like cats and",
        PromptOptions {
            generate: 2,
            beams: Some(2),
            ..Default::default()
        },
    );
    let t = trace(&model, &request(&spec)).unwrap();
    let tree = t.meta.beam.as_ref().expect("a beam tree");
    assert_eq!((tree.width, tree.steps, tree.nodes.len()), (2, 2, 2 + 4));
    // The first level is the prompt's two likeliest tokens, with ln of their softmax.
    let last = t.tensor("logits.last").unwrap().data;
    let max = last.iter().copied().fold(f32::MIN, f32::max);
    let lse = max
        + last
            .iter()
            .map(|v| f64::from(v - max).exp())
            .sum::<f64>()
            .ln() as f32;
    let ids = t.tensor("logits.topk_ids").unwrap().data;
    for (r, node) in tree.nodes[..2].iter().enumerate() {
        assert_eq!(node.parent, None);
        assert_eq!(node.id as f32, ids[3 * 5 + r]);
        assert!((node.logprob - (last[node.id as usize] - lse)).abs() < 1e-4);
    }
    // Then two children of each, in order of likelihood, every one named in token_texts.
    let parents: Vec<Option<usize>> = tree.nodes[2..].iter().map(|n| n.parent).collect();
    assert_eq!(parents, [Some(0), Some(0), Some(1), Some(1)]);
    assert!(tree.nodes[2].logprob >= tree.nodes[3].logprob);
    assert!(tree
        .nodes
        .iter()
        .all(|n| n.logprob <= 0.0 && t.meta.token_texts.contains_key(&n.id)));
    // The greedy continuation is the tree's first child at each level.
    assert_eq!(t.meta.generation[0].id, tree.nodes[0].id);
    assert_eq!(t.meta.generation[1].id, tree.nodes[2].id);
}

#[test]
fn derived_tensors_agree_with_the_logits() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let spec = prompt("The robots will bring", PromptOptions::default());
    let t = trace(&model, &request(&spec)).unwrap();
    let ids: Vec<u32> = t.meta.tokens.iter().map(|t| t.id).collect();
    let logits = model
        .net
        .forward(&ids, &mut NoRecorder)
        .unwrap()
        .to_vec2::<f32>()
        .unwrap();
    let softmax = |row: &[f32]| -> Vec<f64> {
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
        let e: Vec<f64> = row.iter().map(|&x| (x as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|x| x / s).collect()
    };
    let lse = t.tensor("logits.lse").unwrap().data;
    let loss = t.tensor("loss.per_token").unwrap().data;
    assert_eq!(loss.len(), 3);
    for i in 0..4 {
        let p = softmax(&logits[i]);
        let top = t.tensor("logits.topk_values").unwrap().data[i * 5];
        let top_id = t.tensor("logits.topk_ids").unwrap().data[i * 5] as usize;
        assert!(((top - lse[i]).exp() as f64 - p[top_id]).abs() < 1e-5);
        if i < 3 {
            let expected = -p[ids[i + 1] as usize].ln();
            assert!(
                (loss[i] as f64 - expected).abs() < 1e-4,
                "loss {i}: {} vs {expected}",
                loss[i]
            );
        }
    }
    // The lens after the last block is the model's own prediction.
    let lens_ids = t.tensor("logit_lens.topk_ids").unwrap();
    let lens_probs = t.tensor("logit_lens.topk_probs").unwrap();
    assert_eq!(lens_ids.shape, vec![2, 4, 10]);
    let last_layer = 4 * 10;
    for (pos, row) in logits.iter().enumerate() {
        let p = softmax(row);
        let at = last_layer + pos * 10;
        let id = lens_ids.data[at] as usize;
        assert_eq!(
            id,
            t.tensor("logits.topk_ids").unwrap().data[pos * 5] as usize
        );
        assert!((lens_probs.data[at] as f64 - p[id]).abs() < 1e-5);
        assert!(t.meta.token_texts.contains_key(&(id as u32)));
    }
}

#[test]
fn sampling_is_reproducible_by_seed() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let sampled = |seed| {
        let spec = prompt(
            "The robots will bring",
            PromptOptions {
                generate: 8,
                temperature: Some(1.5),
                top_k: Some(40),
                top_p: Some(0.95),
                seed: Some(seed),
                ..PromptOptions::default()
            },
        );
        let t = trace(&model, &request(&spec)).unwrap();
        t.meta.generation.iter().map(|s| s.id).collect::<Vec<_>>()
    };
    assert_eq!(sampled(7), sampled(7));
    assert_ne!(
        sampled(7),
        sampled(8),
        "different seeds should differ on a random model"
    );
}

#[test]
fn empty_and_too_long_prompts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let empty = prompt("", PromptOptions::default());
    let err = trace(&model, &request(&empty)).err().unwrap().to_string();
    assert!(err.contains("prompt \"p\" is empty"), "{err}");
    let long = prompt(&" cat".repeat(1025), PromptOptions::default());
    let err = trace(&model, &request(&long)).err().unwrap().to_string();
    assert!(
        err.contains("1025 positions") && err.contains("context of 1024"),
        "{err}"
    );
    let generating = prompt(
        &" cat".repeat(1020),
        PromptOptions {
            generate: 10,
            ..Default::default()
        },
    );
    let err = trace(&model, &request(&generating))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("1020 tokens + 10 to generate"), "{err}");
}

fn load_err(dir: &Path) -> String {
    match source::from_dir("m", dir).and_then(Model::load) {
        Ok(_) => panic!("{} loaded", dir.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn broken_model_folders_name_the_file_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path();
    write_test_model(m, &TestModelSpec::tiny()).unwrap();

    std::fs::rename(m.join("config.json"), m.join("c")).unwrap();
    let err = load_err(m);
    assert!(
        err.contains("has no config.json") && err.contains("a model folder holds"),
        "{err}"
    );
    std::fs::rename(m.join("c"), m.join("config.json")).unwrap();

    let weights = std::fs::read(m.join("model.safetensors")).unwrap();
    std::fs::write(m.join("model.safetensors"), &weights[..weights.len() / 2]).unwrap();
    let err = load_err(m);
    assert!(
        err.contains("model.safetensors: not a readable safetensors file"),
        "{err}"
    );
    assert!(err.contains("truncated"), "{err}");
    std::fs::write(m.join("model.safetensors"), &weights).unwrap();

    let config = std::fs::read_to_string(m.join("config.json")).unwrap();
    std::fs::write(
        m.join("config.json"),
        config.replace("\"n_layer\": 2", "\"n_layer\": 3"),
    )
    .unwrap();
    let err = load_err(m);
    assert!(
        err.contains("holds 2 layers but config.json says n_layer = 3"),
        "{err}"
    );
    std::fs::write(
        m.join("config.json"),
        config.replace("\"n_embd\": 64", "\"n_embd\": 128"),
    )
    .unwrap();
    let err = load_err(m);
    assert!(
        err.contains("has shape [50257, 64], but config.json implies [50257, 128]"),
        "{err}"
    );
    std::fs::write(m.join("config.json"), "{ not json").unwrap();
    let err = load_err(m);
    assert!(
        err.contains("config.json: not a config.json tracebook can trace"),
        "{err}"
    );

    std::fs::write(m.join("config.json"), config).unwrap();
    std::fs::remove_file(m.join("tokenizer.json")).unwrap();
    let model = Model::load(source::from_dir("m", m).unwrap()).unwrap();
    assert_eq!(
        model.tokenizer.vocab_size(),
        50257,
        "falls back to the built-in GPT-2 tokenizer"
    );
}

#[test]
fn hub_ids_resolve_from_the_hugging_face_cache() {
    let home = tempfile::tempdir().unwrap();
    let snapshot = home
        .path()
        .join("hub/models--openai-community--gpt2/snapshots/0123abcd");
    write_test_model(&snapshot, &TestModelSpec::tiny()).unwrap();
    let refs = home.path().join("hub/models--openai-community--gpt2/refs");
    std::fs::create_dir_all(&refs).unwrap();
    std::fs::write(refs.join("main"), "0123abcd").unwrap();
    let cache = hf_hub::Cache::new(home.path().join("hub"));
    let files = source::from_cache("openai-community/gpt2", &cache).unwrap();
    assert_eq!(files.weights, [snapshot.join("model.safetensors")]);
    assert_eq!(files.id, "openai-community/gpt2");
    assert!(source::from_cache("openai-community/gpt2-xl", &cache).is_none());
}

#[test]
fn a_missing_folder_and_an_unreachable_hub_say_what_to_do() {
    let base = tempfile::tempdir().unwrap();
    let err = source::resolve("./models/nope", base.path(), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("models/nope does not exist"), "{err}");
    let err = source::resolve("someone/some-model", base.path(), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not in the Hugging Face cache"), "{err}");
    assert!(
        err.contains("config.json, model.safetensors") && err.contains("--model DIR"),
        "{err}"
    );
}

/// A config a checkpoint may carry that tracebook cannot compute exactly is refused by name,
/// with the reason; the loader never runs a different computation in silence.
#[test]
fn configs_tracebook_cannot_compute_exactly_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path();
    write_test_model(m, &TestModelSpec::tiny()).unwrap();
    let config = std::fs::read_to_string(m.join("config.json")).unwrap();
    let refused = [
        (
            r#""activation_function": "gelu_new""#,
            r#""activation_function": "prelu""#,
            "\"prelu\" has learned parameters",
        ),
        (
            r#""activation_function": "gelu_new""#,
            r#""activation_function": "gelu_fancy""#,
            "\"gelu_fancy\" is not one tracebook computes; supported: gelu_new",
        ),
        (
            r#""model_type": "gpt2""#,
            r#""model_type": "gpt_neo""#,
            "model_type is \"gpt_neo\", which tracebook does not trace",
        ),
        (
            r#""model_type": "gpt2""#,
            r#""model_type": "gpt2", "add_cross_attention": true"#,
            "add_cross_attention is true",
        ),
    ];
    for (from, to, expected) in refused {
        assert!(config.contains(from), "{config}");
        std::fs::write(m.join("config.json"), config.replace(from, to)).unwrap();
        let err = load_err(m);
        assert!(
            err.contains(expected) && err.contains("config.json"),
            "{to}: {err}"
        );
    }
}

#[test]
fn an_untied_head_without_its_weights_and_a_pickle_only_folder_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path();
    write_test_model(m, &TestModelSpec::tiny()).unwrap();
    let config = std::fs::read_to_string(m.join("config.json")).unwrap();
    std::fs::write(
        m.join("config.json"),
        config.replace(
            r#""tie_word_embeddings": true"#,
            r#""tie_word_embeddings": false"#,
        ),
    )
    .unwrap();
    let err = load_err(m);
    assert!(
        err.contains("lm_head.weight is missing") && err.contains("tie_word_embeddings = false"),
        "{err}"
    );

    std::fs::rename(m.join("model.safetensors"), m.join("pytorch_model.bin")).unwrap();
    let err = load_err(m);
    assert!(
        err.contains("has pytorch_model.bin but no model.safetensors")
            && err.contains("import GPT2LMHeadModel as M")
            && err.contains("save_pretrained")
            && err.contains("safe_serialization=True"),
        "{err}"
    );
}

#[test]
fn a_sharded_checkpoint_with_a_shard_missing_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path();
    let spec = TestModelSpec {
        shards: 2,
        ..TestModelSpec::tiny()
    };
    write_test_model(m, &spec).unwrap();
    assert!(!m.join("model.safetensors").exists());
    let whole = Model::load(source::from_dir("m", m).unwrap()).unwrap();
    let single = tempfile::tempdir().unwrap();
    write_test_model(single.path(), &TestModelSpec::tiny()).unwrap();
    let one = Model::load(source::from_dir("m", single.path()).unwrap()).unwrap();
    let (mut a, mut b) = (NoRecorder, NoRecorder);
    let ids = [464, 14193, 481];
    let sharded = whole
        .net
        .forward(&ids, &mut a)
        .unwrap()
        .to_vec2::<f32>()
        .unwrap();
    let unsharded = one
        .net
        .forward(&ids, &mut b)
        .unwrap()
        .to_vec2::<f32>()
        .unwrap();
    assert_eq!(sharded, unsharded, "the same weights, split in two files");
    assert_ne!(whole.weights_sha256, one.weights_sha256);

    std::fs::remove_file(m.join("model-00002-of-00002.safetensors")).unwrap();
    let err = source::from_dir("m", m).unwrap_err().to_string();
    assert!(
        err.contains(
            "names the shard model-00002-of-00002.safetensors, which is not in the folder"
        ),
        "{err}"
    );
}

#[test]
fn special_tokens_are_text_unless_a_prompt_opts_in_and_the_trace_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny(dir.path(), KeyLayout::Transformer);
    let text = "One story ends.<|endoftext|>Another";
    let plain = prompt(text, PromptOptions::default());
    let t = trace(&model, &request(&plain)).unwrap();
    assert!(t.meta.tokens.iter().all(|t| t.id != 50256));
    assert!(!t.meta.prompt.options.special_tokens);
    let opted = prompt(
        text,
        PromptOptions {
            special_tokens: true,
            ..Default::default()
        },
    );
    let t = trace(&model, &request(&opted)).unwrap();
    let eot: Vec<_> = t.meta.tokens.iter().filter(|t| t.id == 50256).collect();
    assert_eq!(eot.len(), 1, "{:?}", t.meta.tokens);
    assert_eq!(eot[0].text, "<|endoftext|>");
    assert_eq!(&text[eot[0].start..eot[0].end], "<|endoftext|>");
    assert!(
        t.meta.prompt.options.special_tokens,
        "the trace records the choice"
    );
    let json = serde_json::to_string(&t.meta.prompt).unwrap();
    assert!(json.contains("\"special_tokens\":true"), "{json}");
}

#[test]
fn a_model_from_bytes_in_memory_is_the_model_from_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = tiny(dir.path(), KeyLayout::Transformer);
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    let (config, weights, tokenizer) = (
        String::from_utf8(read("config.json")).unwrap(),
        read("model.safetensors"),
        String::from_utf8(read("tokenizer.json")).unwrap(),
    );
    let memory = Model::from_bytes(&ModelBytes {
        id: "tiny",
        config_json: &config,
        weights: &weights,
        tokenizer_json: Some(&tokenizer),
        training: None,
    })
    .unwrap();
    assert_eq!(memory.info(), folder.info());
    let spec = prompt("The robots will bring", PromptOptions::default());
    assert_eq!(
        trace(&memory, &request(&spec)).unwrap().to_json(),
        trace(&folder, &request(&spec)).unwrap().to_json()
    );

    let broken = Model::from_bytes(&ModelBytes {
        id: "tiny",
        config_json: &config,
        weights: &weights[..weights.len() / 2],
        tokenizer_json: None,
        training: None,
    });
    let message = broken.err().unwrap().to_string();
    assert!(
        message.starts_with("tiny/model.safetensors: not a readable safetensors file"),
        "{message}"
    );
}
