//! `tracebook trace`: run the model on prompts and write their traces.

use super::builtin_model::resolve_model;
use anyhow::Context;
use indicatif::{HumanBytes, ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use tracebook_model::{trace, Model, TraceRequest};
use tracebook_trace::{Expected, Precision, PromptOptions, PromptSpec, Trace, TraceOptions};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A model folder, or a Hugging Face hub id (default: [model] id in tracebook.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// Trace only this prompt of the site.
    #[arg(long, conflicts_with = "prompt")]
    pub only: Option<String>,
    /// Rewrite traces even when they are up to date.
    #[arg(long)]
    pub force: bool,
    /// Never download a model; use only local folders and the Hugging Face cache.
    #[arg(long)]
    pub offline: bool,
    /// Trace this text instead of the site's prompts (needs --out).
    #[arg(long, requires = "out")]
    pub prompt: Option<String>,
    /// Where to write the ad-hoc trace.
    #[arg(long, requires = "prompt")]
    pub out: Option<PathBuf>,
    /// compact | f16 | f32 (default: the site's [trace] precision, else compact).
    #[arg(long)]
    pub precision: Option<Precision>,
    /// Next-token candidates kept per position (default: the site's [trace] top_k, else 20).
    #[arg(long)]
    pub top_k: Option<usize>,
    /// Tokens to generate after an ad-hoc prompt.
    #[arg(long, default_value_t = 0)]
    pub generate: usize,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<()> {
    match (&args.prompt, &args.out) {
        (Some(text), Some(out)) => ad_hoc(root, &args, text, out),
        _ => super::trace_site::run(root, &args),
    }
}

fn ad_hoc(root: &Path, args: &Args, text: &str, out: &Path) -> anyhow::Result<()> {
    let model_id = args
        .model
        .clone()
        .unwrap_or_else(|| "openai-community/gpt2".to_string());
    let model = load_model(root, &model_id, args.offline)?;
    let prompt = PromptSpec {
        text: text.to_string(),
        options: PromptOptions {
            generate: args.generate,
            ..PromptOptions::default()
        },
        model: None,
    };
    let options = TraceOptions {
        precision: args.precision.unwrap_or_default(),
        top_k: args.top_k.unwrap_or(20),
    };
    let written = write_one(&model, "", &prompt, &options, out)?;
    println!("wrote {} ({})", out.display(), HumanBytes(written));
    Ok(())
}

/// Resolve and load a model, saying what is happening (loading can take seconds).
pub fn load_model(root: &Path, spec: &str, offline: bool) -> anyhow::Result<Model> {
    let files = resolve_model(spec, root, !offline)?;
    eprintln!(
        "loading model {} from {}",
        files.id,
        files.describe_weights()
    );
    Ok(Model::load(files)?)
}

/// Trace one prompt and write it atomically; returns the file size in bytes.
pub fn write_one(
    model: &Model,
    name: &str,
    prompt: &PromptSpec,
    options: &TraceOptions,
    out: &Path,
) -> anyhow::Result<u64> {
    let request = TraceRequest {
        name,
        prompt,
        options: options.clone(),
    };
    let trace = trace(model, &request)?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    trace.write(out)?;
    Ok(std::fs::metadata(out).map(|m| m.len()).unwrap_or(0))
}

/// Why the trace at `path` must be (re)written, or None when it is up to date.
pub fn needs_writing(path: &Path, expected: &Expected) -> Option<String> {
    if !path.exists() {
        return Some("missing".to_string());
    }
    match Trace::read(path) {
        Ok(trace) => trace.stale_reason(expected),
        Err(err) => Some(format!("unreadable ({err})")),
    }
}

pub fn progress(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .expect("a fixed template parses"),
    );
    bar
}
