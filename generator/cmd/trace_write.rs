//! What both ways of tracing do with one prompt: load the model, trace the prompt and
//! write its file atomically, tell a stale trace from a fresh one, and show progress.

use super::builtin_model::resolve_model;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use tracebook_model::{AnyModel, TraceRequest};
use tracebook_trace::{Expected, PromptSpec, Trace, TraceOptions};

/// Resolve and load a model (decoder-only or encoder-decoder), saying what is happening
/// (loading can take seconds).
pub fn load_model(root: &Path, spec: &str, offline: bool) -> anyhow::Result<AnyModel> {
    let files = resolve_model(spec, root, !offline)?;
    eprintln!(
        "loading model {} from {}",
        files.id,
        files.describe_weights()
    );
    Ok(AnyModel::load(files)?)
}

/// What readers are shown for the model `spec` (as the site or `--model` wrote it): the
/// site's name for it if it gave one, else a folder's own name (never the path on this
/// machine), else nothing (a hub id or the built-in model is shown as it is written).
pub fn shown_name(explicit: Option<&str>, spec: &str, root: &Path) -> Option<String> {
    if let Some(name) = explicit {
        return Some(name.to_string());
    }
    let dir = root.join(spec);
    if !dir.is_dir() {
        return None;
    }
    let canonical = dir.canonicalize().unwrap_or(dir);
    let name = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    name.or_else(|| Some(tracebook_trace::folder_name(spec).to_string()))
}

/// Trace one prompt and write it atomically, its model shown as `shown`; returns the file
/// size in bytes.
pub fn write_one(
    model: &AnyModel,
    name: &str,
    prompt: &PromptSpec,
    options: &TraceOptions,
    out: &Path,
    shown: Option<&str>,
) -> anyhow::Result<u64> {
    let request = TraceRequest {
        name,
        prompt,
        options: options.clone(),
    };
    let mut trace = model.trace(&request)?;
    trace.meta.model.name = shown.map(str::to_string);
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
