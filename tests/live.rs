//! The live session (generator/live, the code the browser runs) against the real binary:
//! a model folder written by `tracebook dev test-model`, a prompt traced by `tracebook trace
//! --precision f32`, and figures drawn from that file as `tracebook build` draws them equal,
//! byte for byte, the figures the session draws from the folder's bytes and the same prompt.

use std::path::Path;
use tracebook_live::{ModelBytes, Session};
use tracebook_trace::{Precision, PromptOptions, PromptSpec, Trace, TraceOptions};

#[path = "support/cli.rs"]
mod cli;

const PROMPT: &str = "The robots will bring us tea, and then";
const NAME: &str = "mine";

/// The one trace the figures see, under the prompt's name.
struct One(Trace);

impl tracebook_figures::Traces for One {
    fn get(&self, prompt: &str) -> Option<&Trace> {
        (prompt == NAME).then_some(&self.0)
    }
    fn names(&self) -> Vec<String> {
        vec![NAME.to_string()]
    }
}

fn session(model: &Path, id: &str) -> Session {
    let read = |name: &str| std::fs::read(model.join(name)).unwrap();
    let (config, weights, tokenizer) = (
        String::from_utf8(read("config.json")).unwrap(),
        read("model.safetensors"),
        String::from_utf8(read("tokenizer.json")).unwrap(),
    );
    let bytes = ModelBytes {
        id,
        config_json: &config,
        weights: &weights,
        tokenizer_json: Some(&tokenizer),
        training: None,
    };
    let options = TraceOptions {
        precision: Precision::F32,
        top_k: 20,
    };
    Session::from_bytes(&bytes, options).unwrap()
}

#[test]
fn the_session_draws_what_the_build_draws_from_the_binary_s_trace() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tiny");
    let id = model.to_str().unwrap();
    cli::ok(
        &cli::run(dir.path(), &["dev", "test-model", id]),
        "dev test-model",
    );
    let out = dir.path().join("mine.json");
    let args = [
        "trace",
        "--model",
        id,
        "--prompt",
        PROMPT,
        "--out",
        out.to_str().unwrap(),
        "--precision",
        "f32",
        "--generate",
        "3",
    ];
    cli::ok(&cli::run(dir.path(), &args), "trace");
    let written = One(Trace::read(&out).unwrap());

    let mut session = session(&model, id);
    let prompt = PromptSpec {
        text: PROMPT.to_string(),
        options: PromptOptions {
            generate: 3,
            ..PromptOptions::default()
        },
        model: None,
    };
    session.trace(NAME, &prompt).unwrap();
    for (kind, extra) in [
        ("attention", "layer = 1\nhead = 2\n"),
        ("next-token", ""),
        ("generation", ""),
        ("residual", ""),
        ("logit-lens", ""),
    ] {
        let body = format!("prompt = \"{NAME}\"\n{extra}");
        let options: toml::Table = toml::from_str(&body).unwrap();
        let build = tracebook_figures::render(kind, &options, &written).unwrap();
        let live = session.figure(kind, &body).unwrap();
        assert_eq!(live.svg, build.svg, "{kind}");
        assert_eq!(live, build, "{kind}");
    }
}
