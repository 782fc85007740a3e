//! `[live]`: the reader's own prompt, traced and drawn in the browser by `tracebook-live`
//! (the site's model, tokenizer and figure kinds compiled to WebAssembly).
//!
//! With `[live] enabled = true` the build writes, under `live/`: the browser model (the site's
//! model at `[live] precision`, [`browser_model`]), the WebAssembly module and its glue (built
//! by `generator/live/build.sh` and embedded in tracebook, so authors need no wasm
//! toolchain), the worker script the session runs in (off the page's main thread), and
//! `manifest.json` (what the page loads, with sizes and digests). Each article with figures
//! drawn from one prompt of the site's model gets the data its session needs (made while it
//! renders, `render::live_page`) and
//! the loader `tracebook-live.js`; nothing else is fetched until the reader asks.

pub mod browser_model;
/// The model built into tracebook, embedded.
pub use tracebook_mini_en as builtin;
mod cache;

use crate::base::diagnostic::Diagnostic;
use crate::load::config::SiteConfig;
use crate::load::live_models::{self, LiveModel};
use crate::load::site::Site;
use crate::load::traces::TraceSet;
use serde::Serialize;
use tracebook_trace::{sha256_bytes, TraceOptions, TrainingSummary};

/// The folder of the live files in the output.
pub const DIR: &str = "live/";

/// The page's loader, at the output root: a classic script (it must run from `file://`,
/// where module scripts do not load, to say that live mode needs the site served).
pub const LOADER: (&str, &str) = (
    "tracebook-live.js",
    include_str!("../../../defaults/static/tracebook-live.js"),
);

/// The module worker that runs the reader's session off the page's main thread, in `live/`.
pub const WORKER: (&str, &str) = (
    "tracebook-live-worker.js",
    include_str!("../../../defaults/static/tracebook-live-worker.js"),
);

/// The module `generator/live/build.sh` built: the wasm and wasm-bindgen's ES-module glue.
use tracebook_live_dist::MODULE;

/// `live/manifest.json`: what the loader fetches and how to start the session.
#[derive(Serialize)]
struct Manifest<'a> {
    /// The model as readers are shown it (`[model] name`, else its folder's name or hub id,
    /// never a path of the author's machine): the id the session gives its traces, and what
    /// the live caption names.
    model_id: &'a str,
    precision: &'static str,
    /// The model's context length (the longest prompt plus generated tokens).
    context: Option<u64>,
    /// The site's `[trace]` options, so a live trace holds what a trace file would.
    trace_options: &'a TraceOptions,
    /// The training summary the site's traces of this model carry.
    training: Option<&'a TrainingSummary>,
    config: String,
    tokenizer: Option<String>,
    weights: WeightsInfo,
    module: FileInfo,
    glue: &'static str,
    /// The worker script the session runs in.
    worker: FileInfo,
}

/// The browser model: one safetensors file (`file`, of `bytes` and `sha256`), written as
/// `parts` that the loader fetches at once and joins in order.
#[derive(Serialize)]
struct WeightsInfo {
    file: String,
    bytes: usize,
    sha256: String,
    parts: Vec<PartInfo>,
}

#[derive(Serialize)]
struct PartInfo {
    file: String,
    bytes: usize,
}

/// The largest file live mode writes: static hosts limit a file's size (Cloudflare Pages to
/// 25 MiB; GitHub warns from 50 MB), and parts download in parallel.
pub const PART_BYTES: usize = 16 * 1024 * 1024;

/// The browser model's bytes as the files it is written in: `model.safetensors` when it fits
/// in [`PART_BYTES`], else `model.safetensors.001`, `.002`, … of that size (the last shorter),
/// which `cat` joins back (`cat model.safetensors.0* > model.safetensors`).
pub fn parts(bytes: &[u8]) -> Vec<(String, &[u8])> {
    if bytes.len() <= PART_BYTES {
        return vec![(WEIGHTS.to_string(), bytes)];
    }
    bytes
        .chunks(PART_BYTES)
        .enumerate()
        .map(|(i, chunk)| (format!("{WEIGHTS}.{:03}", i + 1), chunk))
        .collect()
}

const WEIGHTS: &str = "model.safetensors";

#[derive(Serialize)]
struct FileInfo {
    file: &'static str,
    bytes: usize,
    /// The cache key: a new build with other bytes is fetched again.
    sha256: String,
}

/// An encoder-decoder runs in the page with its tokenizer.json; Marian's SentencePiece files
/// (`source.spm`, `target.spm`, `vocab.json`) are read natively but not shipped to readers.
fn refuse_without_tokenizer_json(
    source: &browser_model::SourceModel,
    config: Option<&serde_json::Value>,
    id: &str,
) -> Result<(), Diagnostic> {
    if source.tokenizer_json.is_some() || !config.is_some_and(live_models::needs_tokenizer_json) {
        return Ok(());
    }
    Err(Diagnostic::file(
        crate::load::config::CONFIG_FILE,
        format!(
            "[live] runs the site's encoder-decoder `{id}` in the reader's page with its \
             tokenizer.json, and it has none (Marian's source.spm, target.spm and vocab.json are \
             read by `tracebook trace`, not yet in the browser)"
        ),
    )
    .with_hint(
        "set [live] enabled = false, or use an encoder-decoder that brings a tokenizer.json \
         (one `tracebook train --pairs` made, or BART's)",
    ))
}

/// Every file of `live/` for `site`, by output path: each model's browser model and
/// manifest (the site's in `live/`, the others in their folders), the module, the worker and
/// the page's loader.
pub fn files(site: &Site, traces: &TraceSet) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let mut out = Vec::new();
    for model in site.live_models() {
        out.extend(model_files(site, traces, &model)?);
    }
    for (name, bytes) in MODULE {
        out.push((format!("{DIR}{name}"), bytes.to_vec()));
    }
    out.push((format!("{DIR}{}", WORKER.0), WORKER.1.as_bytes().to_vec()));
    out.push((LOADER.0.to_string(), LOADER.1.as_bytes().to_vec()));
    Ok(out)
}

/// The browser model of `model` and its manifest, under `live/` and its folder.
fn model_files(
    site: &Site,
    traces: &TraceSet,
    model: &LiveModel,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let config: &SiteConfig = &site.config;
    let source = browser_model::locate(&model.id, &site.root)?;
    let model_config = serde_json::from_slice::<serde_json::Value>(&source.config_json).ok();
    refuse_without_tokenizer_json(&source, model_config.as_ref(), &model.id)?;
    let weights = cache::browser_model(&source, config.live.precision)?;
    let context = model_config.and_then(|c| {
        c.get("n_positions")
            .or_else(|| c.get("n_ctx"))
            .or_else(|| c.get("max_position_embeddings"))?
            .as_u64()
    });
    let of_model: Vec<&tracebook_trace::Trace> = site
        .prompts
        .iter()
        .filter_map(|p| traces.ready(p.name.as_str()))
        .filter(|t| tracebook_trace::same_model_id(&t.meta.model.id, &model.id))
        .collect();
    let shown = if model.is_site_model() {
        traces.site_model_shown(site)
    } else {
        of_model
            .first()
            .map(|t| t.meta.model.shown())
            .unwrap_or_else(|| tracebook_trace::model_label(&model.id))
    };
    let dir = format!("{DIR}{}", model.dir);
    let files = parts(&weights.bytes);
    let manifest = Manifest {
        model_id: &shown,
        precision: config.live.precision.name(),
        context,
        trace_options: &config.trace,
        training: of_model.iter().find_map(|t| t.meta.training.as_ref()),
        config: format!("{}config.json", model.dir),
        tokenizer: (source.tokenizer_json.as_ref()).map(|_| format!("{}tokenizer.json", model.dir)),
        weights: WeightsInfo {
            file: format!("{}{WEIGHTS}", model.dir),
            bytes: weights.bytes.len(),
            sha256: weights.sha256.clone(),
            parts: files
                .iter()
                .map(|(file, bytes)| PartInfo {
                    file: format!("{}{file}", model.dir),
                    bytes: bytes.len(),
                })
                .collect(),
        },
        module: FileInfo {
            file: MODULE[0].0,
            bytes: MODULE[0].1.len(),
            sha256: sha256_bytes(MODULE[0].1),
        },
        glue: MODULE[1].0,
        worker: FileInfo {
            file: WORKER.0,
            bytes: WORKER.1.len(),
            sha256: sha256_bytes(WORKER.1.as_bytes()),
        },
    };
    let mut out = vec![
        (
            format!("{dir}manifest.json"),
            serde_json::to_vec(&manifest).expect("serializes"),
        ),
        (format!("{dir}config.json"), source.config_json),
    ];
    for (file, bytes) in files {
        out.push((format!("{dir}{file}"), bytes.to_vec()));
    }
    if let Some(tokenizer) = source.tokenizer_json {
        out.push((format!("{dir}tokenizer.json"), tokenizer));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_over_16_mib_is_written_in_parts_that_join_back() {
        let small = vec![7u8; 1000];
        assert_eq!(
            parts(&small),
            vec![("model.safetensors".to_string(), &small[..])]
        );
        let exact = vec![1u8; PART_BYTES];
        assert_eq!(parts(&exact).len(), 1);
        let big: Vec<u8> = (0..PART_BYTES * 2 + 5).map(|i| (i % 251) as u8).collect();
        let split = parts(&big);
        let names: Vec<&str> = split.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "model.safetensors.001",
                "model.safetensors.002",
                "model.safetensors.003"
            ]
        );
        assert!(split.iter().all(|(_, b)| b.len() <= PART_BYTES));
        assert_eq!(split[2].1.len(), 5);
        let joined: Vec<u8> = split.iter().flat_map(|(_, b)| b.iter().copied()).collect();
        assert_eq!(joined, big);
    }

    fn model(model_type: &str, tokenizer: bool) -> (browser_model::SourceModel, serde_json::Value) {
        let config = serde_json::json!({ "model_type": model_type });
        let source = browser_model::SourceModel {
            origin: "models/m".into(),
            config_json: config.to_string().into_bytes(),
            weights: browser_model::Weights::Files(Vec::new()),
            tokenizer_json: tokenizer.then(|| b"{}".to_vec()),
        };
        (source, config)
    }

    #[test]
    fn an_encoder_decoder_runs_live_only_with_its_tokenizer_json() {
        for kind in ["marian", "bart"] {
            let (source, config) = model(kind, false);
            let error =
                refuse_without_tokenizer_json(&source, Some(&config), "models/m").unwrap_err();
            let text = error.to_string();
            assert!(text.contains("encoder-decoder `models/m`"), "{text}");
            assert!(text.contains("[live] enabled = false"), "{text}");
            let (source, config) = model(kind, true);
            assert!(refuse_without_tokenizer_json(&source, Some(&config), "models/m").is_ok());
        }
        // GPT-2 without a tokenizer.json reads GPT-2's own in the browser.
        let (source, config) = model("gpt2", false);
        assert!(refuse_without_tokenizer_json(&source, Some(&config), "models/m").is_ok());
    }
}
