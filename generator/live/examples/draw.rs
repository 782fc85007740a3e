//! The native twin of `draw.mjs`: load a model folder into a [`Session`] as the browser does
//! (from its files' bytes), trace a prompt, print one figure's SVG and how long the trace and a
//! bare traced forward took.
//! Diffing the two outputs checks the WebAssembly module against the native build.
//!
//!     cargo run --release -p tracebook-live --example draw -- MODEL_DIR PROMPT KIND [TOML]

use std::path::Path;
use std::time::Instant;
use tracebook_live::{ModelBytes, Session};
use tracebook_trace::{Precision, PromptSpec, TraceOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, text, kind, rest @ ..] = args.as_slice() else {
        return Err("usage: draw MODEL_DIR PROMPT KIND [TOML]".into());
    };
    let dir = Path::new(dir);
    let config = std::fs::read_to_string(dir.join("config.json"))?;
    let weights = std::fs::read(dir.join("model.safetensors"))?;
    let tokenizer = std::fs::read_to_string(dir.join("tokenizer.json")).ok();
    let bytes = ModelBytes {
        id: "model",
        config_json: &config,
        weights: &weights,
        tokenizer_json: tokenizer.as_deref(),
        training: None,
    };
    let options = TraceOptions {
        precision: Precision::F32,
        top_k: 20,
    };
    let mut session = Session::from_bytes(&bytes, options)?;
    let prompt = PromptSpec {
        text: text.clone(),
        ..PromptSpec::default()
    };
    let mut ms = Vec::new();
    for _ in 0..7 {
        let start = Instant::now();
        session.trace("mine", &prompt)?;
        ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    let ids: Vec<u32> = session
        .tokenize(text, false)?
        .iter()
        .map(|t| t.id)
        .collect();
    let mut forward = Vec::new();
    for _ in 0..21 {
        let start = Instant::now();
        session.forward(&ids)?;
        forward.push(start.elapsed().as_secs_f64() * 1e3);
    }
    forward.sort_by(f64::total_cmp);
    eprintln!(
        "{} tokens: trace median {:.1} ms, traced forward median {:.1} ms",
        ids.len(),
        ms[ms.len() / 2],
        forward[forward.len() / 2]
    );
    let body = format!("prompt = \"mine\"\n{}", rest.join("\n"));
    print!("{}", session.figure(kind, &body)?.svg);
    Ok(())
}
