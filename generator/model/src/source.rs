//! Where a model's files come from: a local folder, the Hugging Face cache, or a download.

use crate::error::{ModelError, Result};
use hf_hub::{api::sync::ApiBuilder, Cache, Repo};
use std::path::{Path, PathBuf};

/// The files of one GPT-2 family checkpoint on this machine.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFiles {
    /// How the model is named in traces: the hub id, or the folder as the author wrote it.
    pub id: String,
    pub config: PathBuf,
    pub weights: PathBuf,
    /// `tokenizer.json` if the checkpoint has one; otherwise the built-in GPT-2 tokenizer is used.
    pub tokenizer: Option<PathBuf>,
}

const REQUIRED: [&str; 2] = ["config.json", "model.safetensors"];
const TOKENIZER: &str = "tokenizer.json";

/// Resolve `spec` (a folder, relative to `base` when not absolute, or a hub id like
/// `openai-community/gpt2`) to files on this machine, downloading from the hub if needed and allowed.
pub fn resolve(spec: &str, base: &Path, allow_download: bool) -> Result<ModelFiles> {
    let dir = base.join(spec);
    if dir.is_dir() {
        return from_dir(spec, &dir);
    }
    if looks_like_path(spec) {
        return Err(ModelError::Source(format!(
            "model folder {} does not exist\n  hint: a model folder holds {}, and optionally {TOKENIZER}",
            dir.display(),
            REQUIRED.join(" and ")
        )));
    }
    if let Some(files) = from_cache(spec, &Cache::from_env()) {
        return Ok(files);
    }
    if !allow_download {
        return Err(not_available(spec, "downloads are turned off"));
    }
    download(spec)
}

/// A Hugging Face style folder: config.json, model.safetensors, tokenizer.json (optional).
pub fn from_dir(id: &str, dir: &Path) -> Result<ModelFiles> {
    let missing: Vec<&str> = REQUIRED
        .into_iter()
        .filter(|f| !dir.join(f).is_file())
        .collect();
    if !missing.is_empty() {
        return Err(ModelError::Source(format!(
            "model folder {} has no {}\n  hint: a model folder holds {}, and optionally {TOKENIZER} \
             (as written by `save_pretrained` or downloaded from the Hugging Face hub)",
            dir.display(),
            missing.join(" and no "),
            REQUIRED.join(" and ")
        )));
    }
    let tokenizer = Some(dir.join(TOKENIZER)).filter(|p| p.is_file());
    Ok(ModelFiles {
        id: id.to_string(),
        config: dir.join("config.json"),
        weights: dir.join("model.safetensors"),
        tokenizer,
    })
}

/// The files of hub model `id` if all required ones are in the Hugging Face cache.
pub fn from_cache(id: &str, cache: &Cache) -> Option<ModelFiles> {
    let repo = cache.repo(Repo::model(id.to_string()));
    Some(ModelFiles {
        id: id.to_string(),
        config: repo.get("config.json")?,
        weights: repo.get("model.safetensors")?,
        tokenizer: repo.get(TOKENIZER),
    })
}

fn download(id: &str) -> Result<ModelFiles> {
    let api = ApiBuilder::from_env()
        .with_progress(true)
        .build()
        .map_err(|e| not_available(id, &e.to_string()))?;
    let repo = api.model(id.to_string());
    let get = |file: &str| {
        repo.get(file)
            .map_err(|e| not_available(id, &e.to_string()))
    };
    Ok(ModelFiles {
        id: id.to_string(),
        config: get("config.json")?,
        weights: get("model.safetensors")?,
        tokenizer: repo.get(TOKENIZER).ok(),
    })
}

fn looks_like_path(spec: &str) -> bool {
    spec.starts_with('.') || spec.starts_with('/') || spec.matches('/').count() > 1
}

fn not_available(id: &str, why: &str) -> ModelError {
    let cache = Cache::from_env();
    ModelError::Source(format!(
        "model {id:?} is not in the Hugging Face cache ({}) and could not be downloaded: {why}\n  \
         hint: needed files are {} (and optionally {TOKENIZER}); either run once where the hub is \
         reachable, or put them in a folder and pass `--model DIR` (or set [model] id = \"DIR\" in \
         tracebook.toml)",
        cache.path().display(),
        REQUIRED.join(", ")
    ))
}
