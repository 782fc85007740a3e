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

/// A session over model files in memory, tracing at f32 so its numbers are its own.
fn session_of(id: &str, config: &str, weights: &[u8], tokenizer: &str) -> Session {
    let bytes = ModelBytes {
        id,
        config_json: config,
        weights,
        tokenizer_json: Some(tokenizer),
        training: None,
    };
    let options = TraceOptions {
        precision: Precision::F32,
        top_k: 20,
    };
    Session::from_bytes(&bytes, options).unwrap()
}

/// A session over the files of the model folder `model`.
fn session(model: &Path, id: &str) -> Session {
    let read = |name: &str| std::fs::read(model.join(name)).unwrap();
    let text = |name: &str| String::from_utf8(read(name)).unwrap();
    let weights = read("model.safetensors");
    session_of(id, &text("config.json"), &weights, &text("tokenizer.json"))
}

/// A prompt of `text`, continued by `generate` tokens.
fn prompt(text: &str, generate: usize) -> PromptSpec {
    PromptSpec {
        text: text.to_string(),
        options: PromptOptions {
            generate,
            ..PromptOptions::default()
        },
        model: None,
        model_name: None,
    }
}

/// Each figure block (`kind`, options after the prompt) drawn by the session equals, byte for
/// byte, the one the build draws from `written`.
fn draws_as_the_build(session: &Session, written: &One, figures: &[(&str, &str)]) {
    for (kind, extra) in figures {
        let body = format!("prompt = \"{NAME}\"\n{extra}");
        let options: toml::Table = toml::from_str(&body).unwrap();
        let build = tracebook_figures::render(kind, &options, written).unwrap();
        let live = session.figure(kind, &body).unwrap();
        assert_eq!(live.svg, build.svg, "{kind}");
        assert_eq!(live, build, "{kind}");
    }
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
    session.trace(NAME, &prompt(PROMPT, 3)).unwrap();
    let figures = [
        ("attention", "layer = 1\nhead = 2\n"),
        ("next-token", ""),
        ("generation", ""),
        ("residual", ""),
        ("logit-lens", ""),
    ];
    draws_as_the_build(&session, &written, &figures);
}

/// The next-token distribution after `text` under the browser model `weights` of the example
/// model (f32 trace, so the numbers are the session's own).
fn next_token(config: &str, weights: &[u8], tokenizer: &str, text: &str) -> Vec<f64> {
    let mut session = session_of("models/tracebook-tiny-en", config, weights, tokenizer);
    let prompt = prompt(text, 0);
    let logits = session
        .trace(NAME, &prompt)
        .unwrap()
        .tensor("logits.last")
        .unwrap();
    let max = logits.data.iter().fold(f32::MIN, |m, &v| m.max(v)) as f64;
    let exp: Vec<f64> = logits
        .data
        .iter()
        .map(|&v| (v as f64 - max).exp())
        .collect();
    let sum: f64 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

/// The error bound docs/authoring.md states for the browser model (`[live] precision`), on the
/// example model and the example site's prompts: the likeliest next token is the f32 model's,
/// and no token's probability moves by more than `bound` (int8: half a percentage point, f16: a
/// twentieth, int4: five points; measured: int8 under 0.09 points, f16 under 0.001, int4 under
/// 2.9).
#[test]
fn the_browser_model_predicts_what_the_site_s_model_predicts() {
    use tracebook_site::live::browser_model::{convert, locate};
    use tracebook_site::LivePrecision;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = locate("models/tracebook-tiny-en", root).unwrap();
    let config = String::from_utf8(source.config_json.clone()).unwrap();
    let tokenizer = String::from_utf8(source.tokenizer_json.clone().unwrap()).unwrap();
    let prompts = [
        "The robots will bring",
        "I like cats and",
        "The animal didn't cross the street because it was too tired",
        "Data visualization empowers users to",
    ];
    let weights = std::fs::read(root.join("models/tracebook-tiny-en/model.safetensors")).unwrap();
    let precisions = [
        (LivePrecision::Int8, 0.005),
        (LivePrecision::F16, 0.0005),
        (LivePrecision::Int4, 0.05),
    ];
    for (precision, bound) in precisions {
        let browser = convert(&source, precision).unwrap();
        for text in prompts {
            let exact = next_token(&config, &weights, &tokenizer, text);
            let approx = next_token(&config, &browser, &tokenizer, text);
            let argmax = |p: &[f64]| (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap();
            assert_eq!(argmax(&approx), argmax(&exact), "{precision:?}, {text:?}");
            let worst = exact
                .iter()
                .zip(&approx)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            eprintln!("{precision:?} {text:?}: largest probability change {worst:.5}");
            assert!(worst <= bound, "{precision:?}, {text:?}: {worst} > {bound}");
        }
    }
}

/// A session over an encoder-decoder's files in memory (models/tracebook-tiny-en-fr), with
/// `weights` for its model.safetensors.
fn translation_session(weights: &[u8]) -> Session {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/tracebook-tiny-en-fr");
    let read = |name: &str| std::fs::read_to_string(root.join(name)).unwrap();
    let (config, tokenizer) = (read("config.json"), read("tokenizer.json"));
    session_of("models/tracebook-tiny-en-fr", &config, weights, &tokenizer)
}

/// An encoder-decoder in the reader's page: the session translates a source text as
/// `tracebook trace` does and draws the encoder-decoder figures from it byte for byte as the
/// build draws them from the binary's trace file.
#[test]
fn the_session_translates_and_draws_what_the_build_draws() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("models/tracebook-tiny-en-fr");
    let text = "Error while reading the configuration file";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mine.json");
    let args = [
        "trace",
        "--model",
        model.to_str().unwrap(),
        "--prompt",
        text,
        "--out",
        out.to_str().unwrap(),
        "--precision",
        "f32",
    ];
    cli::ok(&cli::run(dir.path(), &args), "trace");
    let mut written = Trace::read(&out).unwrap();
    // Named as the session names its model (the binary was given a path, and names it).
    written.meta.model.id = "models/tracebook-tiny-en-fr".to_string();
    written.meta.model.name = None;
    let written = One(written);

    let weights = std::fs::read(model.join("model.safetensors")).unwrap();
    let mut session = translation_session(&weights);
    let tokens = session.tokenize(text, false).unwrap();
    assert_eq!(
        tokens.last().unwrap().text,
        "</s>",
        "the source ends with </s>"
    );
    let traced = session.trace(NAME, &prompt(text, 0)).unwrap();
    let translation = traced.meta.translation.as_ref().unwrap();
    assert_eq!(
        translation.text,
        written.0.meta.translation.as_ref().unwrap().text
    );
    let figures = [
        ("cross-attention", "layer = 2\n"),
        ("attention", "stack = \"encoder\"\nlayer = 1\nhead = 2\n"),
        ("attention", "stack = \"decoder\"\nlayer = 2\nhead = 1\n"),
        ("generation", ""),
        ("architecture", ""),
    ];
    draws_as_the_build(&session, &written, &figures);
    assert!(session.forward(&[1, 2]).is_err(), "no bench forward");
}

/// The browser model of the encoder-decoder (int8 and f16, as `[live] precision` writes it)
/// translates the example article's source texts as the model's own weights do.
#[test]
fn the_browser_translation_model_writes_what_the_model_writes() {
    use tracebook_site::live::browser_model::{convert, locate};
    use tracebook_site::LivePrecision;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source_model = locate("models/tracebook-tiny-en-fr", root).unwrap();
    let exact = std::fs::read(root.join("models/tracebook-tiny-en-fr/model.safetensors")).unwrap();
    let texts = [
        "Error while reading the configuration file",
        "access method \"%s\" already exists",
        "File not found",
        "cannot open file %s",
    ];
    let translate = |weights: &[u8], text: &str| {
        let mut session = translation_session(weights);
        let trace = session.trace(NAME, &prompt(text, 0)).unwrap();
        trace.meta.translation.clone().unwrap().text
    };
    for precision in [LivePrecision::Int8, LivePrecision::F16] {
        let browser = convert(&source_model, precision).unwrap();
        for text in texts {
            assert_eq!(
                translate(&browser, text),
                translate(&exact, text),
                "{precision:?}, {text:?}"
            );
        }
    }
}
