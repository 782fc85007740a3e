//! `tracebook_trace._native`: the Rust half of tracebook's Python package. Two functions, each
//! the code the command line runs, so that a notebook's figure is the one `tracebook figure`
//! draws and a notebook's trace the one `tracebook trace` writes:
//!
//! - `figure(kind, traces, options, number, site)`: the figure of kind `kind` drawn from traces
//!   (their JSON text, by name) with the block body the options make (JSON, written out as
//!   TOML), as `site` (a site's folder: its theme, templates and own kinds) would draw it;
//!   returns the standalone SVG and the HTML fragment (`tracebook_site::figure_of_traces`).
//! - `trace(prompt, model, options, precision, top_k, offline)` (feature `trace`): one
//!   prompt run through a model (the built-in one, a folder, or a hub id) with its options
//!   (generation, ablation, patching, attribution: a prompt table of tracebook.toml, as JSON);
//!   returns the trace's JSON text.
//!
//! The Python side (`tracebook_trace/_figures.py`) turns keyword arguments into those JSON
//! strings and wraps the results for Jupyter. Work runs with the GIL released.
//!
//! PyO3 and maturin rather than a C ABI behind ctypes: strings and errors cross as Python
//! objects with no hand-written marshalling or freeing, one abi3 wheel serves every CPython
//! from 3.9, and maturin packs the extension beside the pure-Python reader in one wheel.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// The figure's block body: one `key = value` line per option, in the order given.
fn body_of(options: &str) -> Result<String, String> {
    let options: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(options).map_err(|e| format!("the options are not JSON: {e}"))?;
    let mut body = String::new();
    for (key, value) in options {
        let value = toml::Value::try_from(&value)
            .map_err(|e| format!("option `{key}` cannot be written as TOML: {e}"))?;
        body.push_str(&format!("{} = {value}\n", toml_key(&key)));
    }
    Ok(body)
}

/// `key` as TOML writes a key: bare when it can be (`layer`), quoted otherwise.
fn toml_key(key: &str) -> String {
    let bare =
        !key.is_empty() && (key.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        toml::Value::from(key).to_string()
    }
}

/// Draws a figure; returns `(svg, html)`. Raises ValueError with tracebook's message (the
/// option at fault and the fix) when the figure cannot be drawn.
#[pyfunction]
#[pyo3(signature = (kind, traces, options, number, site=None))]
fn figure(
    py: Python<'_>,
    kind: &str,
    traces: Vec<(String, String)>,
    options: &str,
    number: usize,
    site: Option<std::path::PathBuf>,
) -> PyResult<(String, String)> {
    let body = body_of(options).map_err(PyValueError::new_err)?;
    py.detach(|| {
        let mut read = Vec::with_capacity(traces.len());
        for (name, json) in traces {
            let trace = tracebook_trace::Trace::from_json(&json)
                .map_err(|e| PyValueError::new_err(format!("the trace `{name}`: {e}")))?;
            read.push((name, trace));
        }
        let block = ("<figure options>", kind, body.as_str());
        let drawn = tracebook_site::figure_of_traces(read, block, number.max(1), site.as_deref())
            .map_err(|d| PyValueError::new_err(d.to_string().trim_end().to_string()))?;
        Ok((drawn.svg, drawn.html))
    })
}

/// Traces one prompt; returns the trace's JSON text.
#[cfg(feature = "trace")]
#[pyfunction]
fn trace(
    py: Python<'_>,
    prompt: &str,
    model: &str,
    options: &str,
    precision: &str,
    top_k: usize,
    offline: bool,
) -> PyResult<String> {
    use tracebook_trace::{PromptSpec, TraceOptions};
    let mut spec: serde_json::Map<String, serde_json::Value> = serde_json::from_str(options)
        .map_err(|e| PyValueError::new_err(format!("the options are not JSON: {e}")))?;
    spec.insert("text".into(), prompt.into());
    let spec: PromptSpec = serde_json::from_value(spec.into())
        .map_err(|e| PyValueError::new_err(format!("trace(): {e}")))?;
    let precision = serde_json::from_value(precision.into()).map_err(|_| {
        PyValueError::new_err(format!(
            "precision {precision:?}: write \"compact\", \"f16\" or \"f32\""
        ))
    })?;
    let options = TraceOptions { precision, top_k };
    py.detach(|| {
        let files = resolve(model, offline).map_err(PyValueError::new_err)?;
        let model_name = shown_name(model);
        let loaded = tracebook_model::AnyModel::load(files)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot load {model}: {e}")))?;
        let request = tracebook_model::TraceRequest {
            name: "",
            prompt: &spec,
            options,
        };
        let mut trace = loaded
            .trace(&request)
            .map_err(|e| PyValueError::new_err(format!("{e}")))?;
        trace.meta.model.name = model_name;
        Ok(trace.to_json())
    })
}

/// A model as `tracebook trace --model` names it: a folder, the built-in name, or a hub id
/// (from the Hugging Face cache, or downloaded unless `offline`).
#[cfg(feature = "trace")]
fn resolve(spec: &str, offline: bool) -> Result<tracebook_model::ModelFiles, String> {
    use tracebook_trace::{BUILTIN_MODEL_ID, RETIRED_BUILTIN_MODEL_ID};
    let here = std::path::Path::new(".");
    if spec == BUILTIN_MODEL_ID && !here.join(spec).is_dir() {
        let dir = tracebook_mini_en::materialize()
            .map_err(|e| format!("cannot write the built-in model into the cache: {e}"))?;
        return tracebook_model::source::from_dir(BUILTIN_MODEL_ID, &dir)
            .map_err(|e| e.to_string());
    }
    if spec == RETIRED_BUILTIN_MODEL_ID && !here.join(spec).is_dir() {
        return Err(tracebook_trace::retired_builtin_model_message());
    }
    tracebook_model::resolve(spec, here, !offline).map_err(|e| e.to_string())
}

/// What figures call a model traced from a folder: the folder's name, never the path on this
/// machine; a hub id or the built-in name is shown as written.
#[cfg(feature = "trace")]
fn shown_name(spec: &str) -> Option<String> {
    let dir = std::path::Path::new(spec);
    if !dir.is_dir() {
        return None;
    }
    let canonical = dir.canonicalize().unwrap_or(dir.to_path_buf());
    canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(figure, m)?)?;
    #[cfg(feature = "trace")]
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add("HAS_TRACE", cfg!(feature = "trace"))?;
    Ok(())
}
