//! The models live mode runs in the reader's page: the site's `[model]`, whose browser model
//! is `live/`'s own, and each other model a prompt names (`model = ...`) that is on this
//! machine, under `live/models/NAME/` with a manifest of its own. A figure drawn from one
//! prompt is redrawn with its prompt's model; the page loads only the models its reader asks
//! for. A prompt's model that is not here (a site built from committed traces), or that the
//! browser cannot read (an encoder-decoder with only Marian's SentencePiece files, no
//! tokenizer.json), leaves that prompt's figures the author's; the site's model is needed as
//! ever, and the build says why when it cannot run.

use super::site::Site;
use std::path::Path;
use tracebook_trace::{same_model_id, BUILTIN_MODEL_ID};

/// One model the reader's page may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveModel {
    /// The model as `[model] id` or a prompt's `model` names it (a folder or hub id).
    pub id: String,
    /// Its folder under `live/`: empty for the site's model, `models/NAME/` for the others.
    pub dir: String,
}

impl LiveModel {
    /// Its manifest, relative to `live/`.
    pub fn manifest(&self) -> String {
        format!("{}manifest.json", self.dir)
    }

    /// Whether this is the site's `[model]`.
    pub fn is_site_model(&self) -> bool {
        self.dir.is_empty()
    }
}

impl Site {
    /// The site's model first, then each other model its prompts name, in the order they are
    /// declared, each in a folder named after it (`models/tracebook-tiny-en-fr/`; a second
    /// model of the same name gets `-2`).
    pub fn live_models(&self) -> Vec<LiveModel> {
        let mut models = vec![LiveModel {
            id: self.config.model.id.clone(),
            dir: String::new(),
        }];
        for prompt in &self.prompts {
            let Some(id) = &prompt.spec.model else {
                continue;
            };
            if models.iter().any(|m| same_model_id(&m.id, id)) || !runs_in_browser(&self.root, id) {
                continue;
            }
            let base = folder_name(id);
            let mut name = base.clone();
            let mut n = 1;
            while models.iter().any(|m| m.dir == format!("models/{name}/")) {
                n += 1;
                name = format!("{base}-{n}");
            }
            models.push(LiveModel {
                id: id.clone(),
                dir: format!("models/{name}/"),
            });
        }
        models
    }
}

/// Whether model `id`'s files are here to convert (a folder of the site, the built-in
/// model, or a hub id in the Hugging Face cache) and the browser can read them: an
/// encoder-decoder needs its tokenizer.json there.
fn runs_in_browser(root: &Path, id: &str) -> bool {
    if id == BUILTIN_MODEL_ID {
        return true;
    }
    let folder = root.join(id);
    let file = |name: &str| {
        let local = folder.join(name);
        if local.is_file() {
            return Some(local);
        }
        hf_hub::Cache::from_env().model(id.to_string()).get(name)
    };
    let Some(config) = file("config.json") else {
        return false;
    };
    let config = std::fs::read(&config)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
    !config.as_ref().is_some_and(needs_tokenizer_json) || file("tokenizer.json").is_some()
}

/// Whether the model of this config.json runs in the browser only with its tokenizer.json:
/// an encoder-decoder (Marian, BART) has ids of its own vocabulary, where a model without one
/// reads GPT-2's built-in tokenizer.
pub fn needs_tokenizer_json(config: &serde_json::Value) -> bool {
    matches!(
        config.get("model_type").and_then(|t| t.as_str()),
        Some("marian" | "bart")
    )
}

/// A folder name for model `id`: its last part, in lowercase letters, digits, `.`, `-` and
/// `_` (`Helsinki-NLP/opus-mt-en-fr` → `opus-mt-en-fr`).
fn folder_name(id: &str) -> String {
    let name: String = tracebook_trace::folder_name(id)
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '.' | '-' | '_') => c,
            _ => '-',
        })
        .collect();
    if name.trim_matches(['.', '-']).is_empty() {
        "model".to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::{folder_name, runs_in_browser};

    #[test]
    fn a_prompt_s_model_runs_in_the_browser_when_its_files_are_here_and_readable() {
        let root = tempfile::tempdir().unwrap();
        let model = |name: &str, model_type: &str, tokenizer: bool| {
            let dir = root.path().join("models").join(name);
            std::fs::create_dir_all(&dir).unwrap();
            let config = format!("{{\"model_type\": \"{model_type}\"}}");
            std::fs::write(dir.join("config.json"), config).unwrap();
            if tokenizer {
                std::fs::write(dir.join("tokenizer.json"), "{}").unwrap();
            }
        };
        model("opus", "marian", false);
        model("mine", "marian", true);
        model("gpt", "gpt2", false);
        let runs = |id: &str| runs_in_browser(root.path(), id);
        assert!(
            !runs("models/opus"),
            "Marian's spm files are not read in the browser"
        );
        assert!(runs("models/mine"));
        assert!(runs("models/gpt"), "GPT-2's own tokenizer is built in");
        assert!(!runs("models/absent"));
        assert!(runs(tracebook_trace::BUILTIN_MODEL_ID));
    }

    #[test]
    fn folder_names_are_the_model_s_last_part_made_safe() {
        assert_eq!(folder_name("Helsinki-NLP/opus-mt-en-fr"), "opus-mt-en-fr");
        assert_eq!(
            folder_name("models/tracebook-tiny-en-fr/"),
            "tracebook-tiny-en-fr"
        );
        assert_eq!(folder_name("C:\\Models\\My Model"), "my-model");
        assert_eq!(folder_name(".."), "model");
    }
}
