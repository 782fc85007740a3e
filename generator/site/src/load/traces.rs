//! The traces of the site's prompts: read in parallel, checked against what the site asks
//! (prompt text, options, model, and the weights' sha256 where the weights are on disk).

use crate::base::diagnostic::Diagnostic;
use crate::load::prompts::NamedPrompt;
use crate::load::site::Site;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use tracebook_figures::LiveCache;
use tracebook_trace::{DigestCache, Expected, Trace};

/// What became of one prompt's trace.
#[derive(Debug)]
pub enum TraceStatus {
    Ready(Box<Trace>),
    Missing,
    Stale(String),
    /// Unreadable or damaged: the reader's message.
    Broken {
        message: String,
    },
}

/// Every declared prompt's trace status, by prompt name; and, for the one build that uses
/// them, what the figures computed from them to share ([`LiveCache`]).
#[derive(Debug, Default)]
pub struct TraceSet {
    entries: BTreeMap<String, TraceStatus>,
    live: LiveCache,
    /// The site's own figure kinds, which figures drawn from these traces may be.
    pub own_kinds: Vec<tracebook_figures::own::OwnKind>,
}

impl TraceSet {
    /// Reads `traces/<name>.json` of every prompt of the site.
    pub fn load(site: &Site) -> TraceSet {
        let mut models: BTreeMap<&str, Option<String>> = BTreeMap::new();
        for prompt in &site.prompts {
            let model = model_of(site, prompt);
            if !models.contains_key(model) {
                models.insert(model, local_weights_sha256(&site.root, model));
            }
        }
        let entries = site
            .prompts
            .par_iter()
            .map(|prompt| {
                let model = model_of(site, prompt);
                let sha = models.get(model).cloned().flatten();
                let status = read_one(site, prompt, model, sha.as_deref());
                (prompt.name.to_string(), status)
            })
            .collect();
        let mut set = TraceSet {
            entries,
            live: LiveCache::default(),
            own_kinds: site.own_kinds.clone(),
        };
        set.name_unnamed();
        set
    }

    /// A trace written before traces recorded the model's name shows the name that another
    /// trace of the same weights recorded, so that one model is called one thing on every
    /// figure of a site (not `models/tracebook-tiny-en` on some and `tracebook-tiny-en` on
    /// others).
    fn name_unnamed(&mut self) {
        let mut names: BTreeMap<String, String> = BTreeMap::new();
        for status in self.entries.values() {
            if let TraceStatus::Ready(trace) = status {
                let model = &trace.meta.model;
                if let Some(name) = model.name.as_ref().filter(|n| !n.trim().is_empty()) {
                    names
                        .entry(model.weights_sha256.clone())
                        .or_insert_with(|| name.clone());
                }
            }
        }
        for status in self.entries.values_mut() {
            if let TraceStatus::Ready(trace) = status {
                let model = &mut trace.meta.model;
                if model.name.is_none() {
                    model.name = names.get(&model.weights_sha256).cloned();
                }
            }
        }
    }

    /// Traces already in memory, each taken as up to date.
    pub fn from_ready(traces: impl IntoIterator<Item = (String, Trace)>) -> TraceSet {
        let entries = traces
            .into_iter()
            .map(|(name, trace)| (name, TraceStatus::Ready(Box::new(trace))))
            .collect();
        let mut set = TraceSet {
            entries,
            live: LiveCache::default(),
            own_kinds: Vec::new(),
        };
        set.name_unnamed();
        set
    }

    /// The figures' shared results for this build.
    pub fn live_cache(&self) -> &LiveCache {
        &self.live
    }

    /// The site's model as readers are shown it: `[model] name`, else the name a trace of it
    /// recorded (its folder's name, taken where the folder was), else its id as
    /// [`tracebook_trace::model_label`] shows it.
    pub fn site_model_shown(&self, site: &Site) -> String {
        if let Some(name) = site.config.model.given_name() {
            return name.to_string();
        }
        site.prompts
            .iter()
            .filter(|p| p.spec.model.is_none())
            .find_map(|p| self.ready(p.name.as_str())?.meta.model.name.clone())
            .unwrap_or_else(|| tracebook_trace::model_label(&site.config.model.id))
    }

    /// The trace of `name` when it exists and is up to date.
    pub fn ready(&self, name: &str) -> Option<&Trace> {
        match self.entries.get(name) {
            Some(TraceStatus::Ready(trace)) => Some(trace),
            _ => None,
        }
    }

    /// Why `prompt` cannot be drawn from, as an error at its declaration; None when it can.
    pub fn problem(&self, prompt: &NamedPrompt) -> Option<Diagnostic> {
        let name = &prompt.name;
        let file = prompt.trace_file();
        let file = file.display();
        let fix = format!("run `tracebook trace --only {name}` to write it");
        let diagnostic = match self.entries.get(name.as_str())? {
            TraceStatus::Ready(_) => return None,
            TraceStatus::Missing => prompt
                .declared
                .error(format!(
                    "prompt `{name}` has no trace: {file} does not exist"
                ))
                .with_hint(fix),
            TraceStatus::Stale(reason) => prompt
                .declared
                .error(format!(
                    "the trace of prompt `{name}` ({file}) is stale: {reason}"
                ))
                .with_hint(format!("run `tracebook trace --only {name}` to remake it")),
            TraceStatus::Broken { message } => prompt
                .declared
                .error(format!(
                    "the trace of prompt `{name}` cannot be used: {message}"
                ))
                .with_hint(format!(
                    "run `tracebook trace --only {name}` to write it again"
                )),
        };
        Some(diagnostic)
    }
}

/// The model `prompt` is traced with: its own `model`, else the site's.
fn model_of<'s>(site: &'s Site, prompt: &'s NamedPrompt) -> &'s str {
    prompt
        .spec
        .model
        .as_deref()
        .unwrap_or(&site.config.model.id)
}

fn read_one(
    site: &Site,
    prompt: &NamedPrompt,
    model_id: &str,
    weights_sha256: Option<&str>,
) -> TraceStatus {
    let path = site.root.join(prompt.trace_file());
    if !path.is_file() {
        return TraceStatus::Missing;
    }
    let trace = match Trace::read(&path) {
        Ok(trace) => trace,
        Err(err) => return broken(&err.to_string(), &site.root),
    };
    let expected = Expected {
        model_id,
        prompt: &prompt.spec,
        options: &site.config.trace,
        weights_sha256,
    };
    match trace.stale_reason(&expected) {
        Some(reason) => TraceStatus::Stale(reason),
        None => {
            let mut trace = trace;
            // The site's name wins over the one the trace recorded, so renaming a model
            // needs no new traces.
            if let Some(name) = site.config.model_name_for(&prompt.spec) {
                trace.meta.model.name = Some(name.to_string());
            }
            TraceStatus::Ready(Box::new(trace))
        }
    }
}

/// The reader's errors read "path: message\n  hint: ..."; keep the message, path relative.
fn broken(text: &str, root: &Path) -> TraceStatus {
    let message = text.split("\n  hint: ").next().unwrap_or(text);
    let root = format!("{}/", root.display());
    TraceStatus::Broken {
        message: message.replace(&root, ""),
    }
}

/// The sha256 of the model's weights when `model_id` is a folder of the site holding them
/// (cached by path, size and mtime) or the model built into tracebook; elsewhere (hub ids) the
/// sha256 a trace records is trusted.
fn local_weights_sha256(root: &Path, model_id: &str) -> Option<String> {
    let dir = root.join(model_id);
    if !dir.is_dir() && model_id == tracebook_trace::BUILTIN_MODEL_ID {
        return Some(tracebook_trace::BUILTIN_MODEL_SHA256.to_string());
    }
    let weights = tracebook_trace::weight_files(&dir).ok()??;
    DigestCache::user().weights_sha256(&weights).ok()
}

#[cfg(test)]
mod tests {
    use super::TraceSet;
    use tracebook_trace::Trace;

    #[test]
    fn a_trace_without_its_models_name_takes_the_one_its_weights_recorded_elsewhere() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces");
        let named = Trace::read(&dir.join("he_loved.json")).unwrap();
        let other = Trace::read(&dir.join("fichier.json")).unwrap();
        // As a trace written before traces named their model reads: the same weights, no name.
        let mut old = Trace::read(&dir.join("animal.json")).unwrap();
        old.meta.model.name = None;
        assert_eq!(old.meta.model.shown(), "models/tracebook-mini-en");
        assert_eq!(
            old.meta.model.weights_sha256,
            named.meta.model.weights_sha256
        );
        let set = TraceSet::from_ready([
            ("animal".to_string(), old),
            ("he_loved".to_string(), named),
            ("fichier".to_string(), other),
        ]);
        let shown = |n: &str| set.ready(n).unwrap().meta.model.shown();
        assert_eq!(shown("animal"), "tracebook-mini-en");
        assert_eq!(shown("he_loved"), "tracebook-mini-en");
        assert_eq!(
            shown("fichier"),
            "tracebook-tiny-en-fr",
            "other weights keep their own"
        );
    }
}
