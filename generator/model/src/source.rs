//! Where a model's files come from: a local folder, the Hugging Face cache, or a download (the
//! last two with the `native` feature).

use crate::error::{ModelError, Result};
#[cfg(feature = "native")]
use hf_hub::{api::sync::ApiBuilder, Cache, Repo};
use std::path::{Path, PathBuf};
#[cfg(feature = "native")]
use tracebook_trace::shard_names;
use tracebook_trace::{weight_files, DigestCache, WEIGHTS_FILE, WEIGHTS_INDEX};

/// The files of one GPT-2 family checkpoint on this machine.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFiles {
    /// How the model is named in traces: the hub id, or the folder as the author wrote it.
    pub id: String,
    pub config: PathBuf,
    /// `model.safetensors`, or the shards of a sharded checkpoint in index order.
    pub weights: Vec<PathBuf>,
    /// `tokenizer.json` if the checkpoint has one; otherwise the built-in GPT-2 tokenizer is
    /// used (a folder with a SentencePiece `tokenizer.model` instead is an error, see `from_dir`).
    pub tokenizer: Option<PathBuf>,
}

const REQUIRED: [&str; 2] = ["config.json", WEIGHTS_FILE];
const TOKENIZER: &str = "tokenizer.json";
const PYTORCH_WEIGHTS: &str = "pytorch_model.bin";

impl ModelFiles {
    /// The folder the weights are in (where a `training_log.json` would be).
    pub fn dir(&self) -> Option<&Path> {
        self.weights.first().and_then(|w| w.parent())
    }

    /// The weights' identity as traces record it (see `DigestCache::weights_sha256`).
    pub fn weights_sha256(&self, cache: &DigestCache) -> Result<String> {
        cache
            .weights_sha256(&self.weights)
            .map_err(|e| ModelError::io(self.weights.first().cloned().unwrap_or_default(), e))
    }

    /// The weights' location for messages: the file, or the first shard and how many more.
    pub fn describe_weights(&self) -> String {
        match self.weights.as_slice() {
            [one] => one.display().to_string(),
            [first, rest @ ..] => format!("{} and {} more shard(s)", first.display(), rest.len()),
            [] => "(no weights)".into(),
        }
    }
}

/// Resolve `spec` (a folder, relative to `base` when not absolute, or a hub id like
/// `openai-community/gpt2`) to files on this machine, downloading from the hub if needed and allowed.
#[cfg(feature = "native")]
pub fn resolve(spec: &str, base: &Path, allow_download: bool) -> Result<ModelFiles> {
    let dir = base.join(spec);
    if dir.is_dir() {
        return from_dir(spec, &dir);
    }
    if looks_like_path(spec) {
        return Err(ModelError::Source(format!(
            "model folder {} does not exist\n  hint: copy a model folder there (it holds {}, \
             and optionally {TOKENIZER}), name one that exists, or use the model built into \
             tracebook: [model] id = \"{}\"",
            dir.display(),
            REQUIRED.join(" and "),
            tracebook_trace::BUILTIN_MODEL_ID
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

/// A Hugging Face style folder: config.json, model.safetensors (or a sharded checkpoint's
/// index and shards), tokenizer.json (optional: GPT-2's built-in tokenizer serves without it,
/// but a folder whose tokenizer is a SentencePiece `tokenizer.model` must convert it first;
/// the error gives the command).
pub fn from_dir(id: &str, dir: &Path) -> Result<ModelFiles> {
    let weights = weight_files(dir).map_err(|e| ModelError::io(dir.join(WEIGHTS_INDEX), e))?;
    let config = dir.join("config.json");
    let weights = match weights {
        Some(files) if config.is_file() => files,
        _ if dir.join(PYTORCH_WEIGHTS).is_file() && weights.is_none() => {
            return Err(pytorch_only(dir))
        }
        _ => {
            let mut missing = Vec::new();
            if !config.is_file() {
                missing.push("config.json");
            }
            if weights.is_none() {
                missing.push(WEIGHTS_FILE);
            }
            return Err(ModelError::Source(format!(
                "model folder {} has no {}\n  hint: a model folder holds {} (or a sharded \
                 checkpoint's {WEIGHTS_INDEX} and its shards), and optionally {TOKENIZER} (as \
                 written by `save_pretrained` or downloaded from the Hugging Face hub)",
                dir.display(),
                missing.join(" and no "),
                REQUIRED.join(" and ")
            )));
        }
    };
    if let Some(absent) = weights.iter().find(|w| !w.is_file()) {
        return Err(ModelError::Source(format!(
            "{} names the shard {}, which is not in the folder\n  hint: copy every shard the \
             index names beside it (an interrupted download leaves some out)",
            dir.join(WEIGHTS_INDEX).display(),
            absent.file_name().unwrap_or_default().to_string_lossy()
        )));
    }
    let tokenizer = tracebook_tokenizer::tokenizer_json_in(dir)?;
    Ok(ModelFiles {
        id: id.to_string(),
        config,
        weights,
        tokenizer,
    })
}

/// A folder with PyTorch pickles only: tracebook reads safetensors, and says how to convert
/// with the class its config.json names.
fn pytorch_only(dir: &Path) -> ModelError {
    let text = std::fs::read_to_string(dir.join("config.json")).unwrap_or_default();
    let model_type = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|json| Some(json.get("model_type")?.as_str()?.to_string()));
    let class = match model_type.as_deref() {
        Some("marian") => "MarianMTModel",
        Some("bart") => "BartForConditionalGeneration",
        None | Some("gpt2") => "GPT2LMHeadModel",
        Some(_) => "AutoModelForCausalLM",
    };
    ModelError::Source(format!(
        "model folder {} has {PYTORCH_WEIGHTS} but no {WEIGHTS_FILE}: tracebook reads safetensors \
         only (a pickle can run code when it is loaded)\n  hint: convert it once with \
         transformers: python -c \"from transformers import {class} as M; \
         M.from_pretrained('{dir}').save_pretrained('{dir}', safe_serialization=True)\"",
        dir.display(),
        dir = dir.display()
    ))
}

/// What a Marian checkpoint's tokenizer is read from, fetched beside its weights.
#[cfg(feature = "native")]
const MARIAN_FILES: [&str; 3] = ["source.spm", "target.spm", "vocab.json"];

/// Whether the config.json at `path` is a Marian model's (its tokenizer is `MARIAN_FILES`).
#[cfg(feature = "native")]
fn is_marian(config: &Path) -> bool {
    let text = std::fs::read_to_string(config).unwrap_or_default();
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|json| Some(json.get("model_type")?.as_str()? == "marian"))
        .unwrap_or(false)
}

/// The files of hub model `id` if all required ones are in the Hugging Face cache.
#[cfg(feature = "native")]
pub fn from_cache(id: &str, cache: &Cache) -> Option<ModelFiles> {
    let repo = cache.repo(Repo::model(id.to_string()));
    let weights = match repo.get(WEIGHTS_FILE) {
        Some(file) => vec![file],
        None => {
            let index = std::fs::read_to_string(repo.get(WEIGHTS_INDEX)?).ok()?;
            shard_names(&index)
                .ok()?
                .iter()
                .map(|name| repo.get(name))
                .collect::<Option<Vec<_>>>()?
        }
    };
    let config = repo.get("config.json")?;
    if is_marian(&config) && MARIAN_FILES.iter().any(|f| repo.get(f).is_none()) {
        return None;
    }
    Some(ModelFiles {
        id: id.to_string(),
        config,
        weights,
        tokenizer: repo.get(TOKENIZER),
    })
}

/// Download attempts per file after a dropped connection; each resumes where the last stopped.
#[cfg(feature = "native")]
const RETRIES: usize = 3;

#[cfg(feature = "native")]
fn download(id: &str) -> Result<ModelFiles> {
    let api = ApiBuilder::from_env()
        .with_retries(RETRIES)
        .build()
        .map_err(|e| not_available(id, &e.to_string()))?;
    let cache = Cache::from_env().repo(Repo::model(id.to_string()));
    let repo = api.model(id.to_string());
    let get = |file: &str| match cache.get(file) {
        Some(path) => Ok(path),
        None => repo
            .download_with_progress(file, progress::Download::new())
            .map_err(|e| download_error(id, file, e)),
    };
    let config = get("config.json")?;
    let weights = match get(WEIGHTS_FILE) {
        Ok(file) => vec![file],
        Err(single) => match get(WEIGHTS_INDEX) {
            Ok(index) => {
                let text =
                    std::fs::read_to_string(&index).map_err(|e| ModelError::io(&index, e))?;
                let names = shard_names(&text)
                    .map_err(|m| ModelError::Source(format!("{}: {m}", index.display())))?;
                names.iter().map(|n| get(n)).collect::<Result<Vec<_>>>()?
            }
            Err(_) => return Err(single),
        },
    };
    if is_marian(&config) {
        for file in MARIAN_FILES {
            get(file)?;
        }
        // Its special tokens' spellings, when the repository has it.
        let _ = get("tokenizer_config.json");
    }
    Ok(ModelFiles {
        id: id.to_string(),
        config,
        weights,
        tokenizer: get(TOKENIZER).ok(),
    })
}

/// What went wrong fetching `file` of `id`, in the author's terms.
#[cfg(feature = "native")]
fn download_error(id: &str, file: &str, error: hf_hub::api::sync::ApiError) -> ModelError {
    use hf_hub::api::sync::ApiError;
    let status = match &error {
        ApiError::RequestError(e) => match e.as_ref() {
            ureq::Error::StatusCode(code) => Some(*code),
            _ => None,
        },
        _ => None,
    };
    match status {
        Some(401 | 403) => ModelError::Source(format!(
            "the Hugging Face hub refused {file} of model {id:?} (HTTP {}): the repository is \
             gated or private\n  hint: accept its terms on the hub with your account, then set \
             HF_TOKEN to an access token (or run `huggingface-cli login`) and trace again",
            status.unwrap_or_default()
        )),
        Some(404) if file == "config.json" => ModelError::Source(format!(
            "the Hugging Face hub has no model {id:?} (HTTP 404 for its config.json)\n  hint: \
             check the id's spelling (owner/name, as in the model page's address), or, if it \
             is a folder on this machine, write its path (e.g. ./{id})"
        )),
        _ => not_available(id, &format!("{file}: {error}")),
    }
}

#[cfg(feature = "native")]
mod progress {
    //! Download progress: a bar on a terminal, one line per file elsewhere (CI logs, tests).

    use std::io::IsTerminal;

    pub struct Download {
        bar: Option<indicatif::ProgressBar>,
        name: String,
        size: usize,
    }

    impl Download {
        pub fn new() -> Download {
            Download {
                bar: None,
                name: String::new(),
                size: 0,
            }
        }
    }

    impl hf_hub::api::Progress for Download {
        fn init(&mut self, size: usize, filename: &str) {
            if self.bar.is_some() || !self.name.is_empty() {
                // A resumed attempt: the same file again.
                return;
            }
            self.name = filename.to_string();
            self.size = size;
            if std::io::stderr().is_terminal() {
                let bar = indicatif::ProgressBar::new(size as u64);
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
                    )
                    .expect("a valid template")
                    .progress_chars("=> "),
                );
                bar.set_message(format!("downloading {filename}"));
                self.bar = Some(bar);
            } else {
                eprintln!(
                    "downloading {filename} ({})",
                    indicatif::HumanBytes(size as u64)
                );
            }
        }

        fn update(&mut self, size: usize) {
            if let Some(bar) = &self.bar {
                bar.inc(size as u64);
            }
        }

        fn finish(&mut self) {
            match &self.bar {
                Some(bar) => bar.finish_and_clear(),
                None => eprintln!(
                    "downloaded {} ({})",
                    self.name,
                    indicatif::HumanBytes(self.size as u64)
                ),
            }
        }
    }
}

#[cfg(feature = "native")]
fn looks_like_path(spec: &str) -> bool {
    spec.starts_with('.') || spec.starts_with('/') || spec.matches('/').count() > 1
}

#[cfg(feature = "native")]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_with(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for name in files {
            std::fs::write(dir.path().join(name), b"{}").expect("write");
        }
        dir
    }

    #[test]
    fn a_folder_without_tokenizer_files_uses_the_builtin_one() {
        let dir = folder_with(&["config.json", WEIGHTS_FILE]);
        let files = from_dir("m", dir.path()).expect("a GPT-2 folder");
        assert_eq!(files.tokenizer, None);
        std::fs::write(dir.path().join(TOKENIZER), b"{}").expect("write");
        let files = from_dir("m", dir.path()).expect("with tokenizer.json");
        assert_eq!(files.tokenizer, Some(dir.path().join(TOKENIZER)));
    }

    #[test]
    fn a_folder_with_only_tokenizer_model_says_how_to_convert_it() {
        let dir = folder_with(&["config.json", WEIGHTS_FILE, "tokenizer.model"]);
        let err = from_dir("m", dir.path()).expect_err("tokenizer.model only");
        let message = err.to_string();
        let folder = dir.path().display().to_string();
        assert!(message.contains(&folder), "{message}");
        assert!(
            message.contains(&format!(
                "AutoTokenizer.from_pretrained('{folder}').save_pretrained('{folder}')"
            )),
            "{message}"
        );
        std::fs::write(dir.path().join(TOKENIZER), b"{}").expect("write");
        assert!(
            from_dir("m", dir.path()).is_ok(),
            "tokenizer.json beside it wins"
        );
    }
}
