//! Test harness over the fixture sites in the repository's tests/sites: copy a site into a
//! temporary folder, give it traces (as its harness.toml asks), build or check it.

#![allow(dead_code)]

pub mod traces;

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::PromptSpec;

/// `tests/sites` at the repository root (found from whichever package runs the tests).
pub fn sites_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("tests/sites"))
        .find(|dir| dir.is_dir())
        .expect("tests/sites exists at the repository root")
}

/// The fixture sites under `tests/sites/<group>`, sorted by name.
pub fn fixtures(group: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(sites_dir().join(group))
        .unwrap_or_else(|e| panic!("tests/sites/{group}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    found
}

/// How the harness makes a fixture's traces (`harness.toml` beside `tracebook.toml`; the
/// harness file itself is not part of the site).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HarnessConfig {
    /// Prompts left without a trace.
    pub skip_traces: Vec<String>,
    /// Prompts traced with another text than the site asks (a stale trace).
    pub stale_text: BTreeMap<String, String>,
    /// The model id every trace claims (default: each prompt's own, else the site's).
    pub model_id: Option<String>,
    /// Prompts whose trace file holds garbage.
    pub corrupt: Vec<String>,
    /// Files to write as raw bytes (path relative to the site: list of byte values).
    pub raw_files: BTreeMap<String, Vec<u8>>,
}

/// A fixture copied into a temporary folder.
pub struct TempSite {
    pub dir: tempfile::TempDir,
    pub name: String,
}

impl TempSite {
    /// Copies the fixture at `fixture` and writes its traces.
    pub fn new(fixture: &Path) -> TempSite {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(fixture, dir.path());
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let site = TempSite { dir, name };
        let config = site.harness_config();
        for (path, bytes) in &config.raw_files {
            std::fs::write(site.root().join(path), bytes).unwrap();
        }
        site.make_traces(&config);
        site
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Write `text` to `path` under the site, making its folders.
    pub fn write(&self, path: &str, text: &str) {
        let path = self.root().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The built file `public/NAME`.
    pub fn page(&self, name: &str) -> String {
        std::fs::read_to_string(self.root().join("public").join(name)).unwrap()
    }

    fn harness_config(&self) -> HarnessConfig {
        let path = self.root().join("harness.toml");
        let config = match std::fs::read_to_string(&path) {
            Ok(text) => {
                toml::from_str(&text).unwrap_or_else(|e| panic!("{}: harness.toml: {e}", self.name))
            }
            Err(_) => HarnessConfig::default(),
        };
        let _ = std::fs::remove_file(path);
        config
    }

    /// Traces for every prompt the site names (when its prompts can be read at all).
    fn make_traces(&self, config: &HarnessConfig) {
        let Ok(site) = tracebook_site::collect_prompts(self.root()) else {
            return;
        };
        let tokenizer = Tokenizer::builtin_gpt2().unwrap();
        std::fs::create_dir_all(self.root().join("traces")).unwrap();
        for prompt in &site.prompts {
            let name = prompt.name.as_str();
            let path = self.root().join(prompt.trace_file());
            if config.skip_traces.iter().any(|s| s == name) {
                continue;
            }
            if config.corrupt.iter().any(|s| s == name) {
                std::fs::write(&path, "{ \"format\": \"tracebook-trace\", \"version\": 1, ")
                    .unwrap();
                continue;
            }
            let mut spec: PromptSpec = prompt.spec.clone();
            if let Some(text) = config.stale_text.get(name) {
                spec.text = text.clone();
            }
            // As `tracebook trace` does: the prompt's own model, else the site's (the harness
            // may force another, to make a stale trace).
            let model_id = config
                .model_id
                .clone()
                .or(prompt.spec.model.clone())
                .unwrap_or(site.config.model.id.clone());
            let trace =
                traces::plausible_trace(&tokenizer, name, &spec, &model_id, &site.config.trace);
            trace.write(&path).unwrap();
        }
    }
}

/// Every file under `root`, relative path to bytes.
pub fn read_tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let relative = entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            files.insert(relative, std::fs::read(entry.path()).unwrap());
        }
    }
    files
}

/// Copies the folder `from` into `to`, creating folders as needed.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The text of `html` without its tags (entities left as written).
pub fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}
