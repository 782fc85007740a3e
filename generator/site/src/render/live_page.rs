//! What a page hands its live session: the figures a reader may redraw for their own prompt
//! (each drawn from one prompt of a model the browser may run), and those prompts' text,
//! settings and model.

use crate::load::live_models::LiveModel;
use crate::load::words::Words;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use tracebook_figures::{LiveCache, PageFigure, Traces};
use tracebook_trace::{PromptOptions, Trace};

/// The figure pass's view of a page's live side: which model the browser runs, and the
/// figures and prompts gathered so far.
pub struct LivePage<'a> {
    /// The models the browser may run, the site's first: a figure of any other model's trace
    /// is not redrawn live.
    pub models: &'a [LiveModel],
    /// `[live] offer = "figure"`: a button under each figure that can be redrawn.
    pub per_figure: bool,
    pub figures: Vec<PageFigure>,
    pub prompts: BTreeMap<String, LivePrompt>,
    /// Figures drawn from one prompt that a reader's run of it leaves the author's, each with
    /// why, so the page can say so under it.
    pub kept: Vec<Kept>,
}

/// A figure of a prompt that is not redrawn for a reader's text: its id, its prompt, and why
/// (`patching`: its corrupted text is written for the author's prompt). The page says
/// `live_kept_WHY` under it.
#[derive(Debug, Clone, Serialize)]
pub struct Kept {
    pub id: String,
    pub prompt: String,
    pub why: &'static str,
}

/// A prompt as the reader's session re-traces it: the author's text (the form starts from
/// it), generation settings (the reader's text is continued the same way) and, for a model
/// other than the site's, the manifest of that model's session (relative to `live/`).
#[derive(Debug, Clone, Serialize)]
pub struct LivePrompt {
    pub text: String,
    pub options: PromptOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest: Option<String>,
}

/// The page's live data (`PAGE.live.json` beside it) that `tracebook-live.js` fetches.
#[derive(Serialize)]
struct PageData<'a> {
    prompts: &'a BTreeMap<String, LivePrompt>,
    figures: &'a [PageFigure],
    kept: &'a [Kept],
    /// The theme's `live_*` words, without the prefix.
    words: BTreeMap<&'static str, &'a str>,
}

/// The words the loader shows.
const WORDS: [&str; 25] = [
    "try",
    "prompt",
    "run",
    "back",
    "loading",
    "starting",
    "caption",
    "prose",
    "served",
    "claim_holds",
    "claim_fails",
    "claim_author",
    "claims",
    "pick",
    "adapted",
    "failed",
    "kept_patching",
    "why_place",
    "why_word",
    "why_experiment",
    "why_missing",
    "why_short",
    "why_repeat",
    "why_other",
    "why_prompt",
];

impl<'a> LivePage<'a> {
    pub fn new(models: &'a [LiveModel], per_figure: bool) -> LivePage<'a> {
        LivePage {
            models,
            per_figure,
            figures: Vec::new(),
            prompts: BTreeMap::new(),
            kept: Vec::new(),
        }
    }

    /// Keeps the figure drawn as `figure` for the live session if it read exactly one prompt,
    /// traced with a model the browser may run; returns whether it did.
    pub fn offer(&mut self, figure: PageFigure, asked: &Asked<'_>) -> bool {
        let prompts = asked.asked.borrow();
        let [prompt] = prompts.iter().collect::<Vec<_>>()[..] else {
            return false;
        };
        let Some(trace) = asked.inner.get(prompt) else {
            return false;
        };
        let Some(model) = self
            .models
            .iter()
            .find(|m| tracebook_trace::same_model_id(&trace.meta.model.id, &m.id))
        else {
            return false;
        };
        self.prompts
            .entry(prompt.clone())
            .or_insert_with(|| LivePrompt {
                text: trace.meta.prompt.text.clone(),
                // A reader's text is patched into nothing (see `follows_the_prompt`); the
                // ablation runs on it as on the author's.
                options: PromptOptions {
                    patch: None,
                    ..trace.meta.prompt.options.clone()
                },
                manifest: (!model.is_site_model()).then(|| model.manifest()),
            });
        let options = from_the_end(&figure.options, positions(&figure.options, trace));
        let mut picks = picks(&options);
        picks.extend(target_rules(&figure.kind, trace));
        self.figures.push(PageFigure {
            prompt: prompt.clone(),
            options,
            picks,
            ..figure
        });
        true
    }

    /// The page's JSON, or None when no figure of it can be redrawn.
    pub fn json(&self, words: &'a Words) -> Option<String> {
        if self.figures.is_empty() {
            return None;
        }
        let data = PageData {
            prompts: &self.prompts,
            figures: &self.figures,
            kept: &self.kept,
            words: WORDS
                .iter()
                .map(|w| (*w, words.get(&format!("live_{w}"))))
                .collect(),
        };
        Some(serde_json::to_string(&data).expect("strings and numbers serialize"))
    }
}

/// The page's traces, remembering which prompts a figure asked for.
pub struct Asked<'a> {
    pub inner: &'a dyn Traces,
    asked: RefCell<BTreeSet<String>>,
}

impl<'a> Asked<'a> {
    pub fn new(inner: &'a dyn Traces) -> Asked<'a> {
        Asked {
            inner,
            asked: RefCell::new(BTreeSet::new()),
        }
    }
}

impl Traces for Asked<'_> {
    fn get(&self, prompt: &str) -> Option<&Trace> {
        self.asked.borrow_mut().insert(prompt.to_string());
        self.inner.get(prompt)
    }

    fn names(&self) -> Vec<String> {
        self.inner.names()
    }

    fn live_cache(&self) -> Option<&LiveCache> {
        self.inner.live_cache()
    }
}

/// A figure block's options with a position counted from the start (`token = 8`) rewritten
/// as the same position counted from the end (`token = -1` in a prompt of 9 tokens): the
/// figure picks the same token in the author's prompt, and in a reader's prompt of another
/// length the token as far from its end (the query " it" of "... because it" becomes the last
/// token of the reader's prompt, not whatever sits at position 8, or nothing).
/// How many positions a figure's `token` counts: the decoder's when it draws an
/// encoder-decoder's decoder (`stack = "decoder"`), else the prompt's (the source's).
fn positions(options: &str, trace: &Trace) -> usize {
    let table = options.parse::<toml::Table>().ok();
    let stack = table.as_ref().and_then(|t| t.get("stack")?.as_str());
    match (stack, &trace.meta.translation) {
        (Some("decoder"), Some(translation)) => translation.tokens.len(),
        _ => trace.meta.tokens.len(),
    }
}

/// The rules by which a figure's options pick positions in a reader's text, as its live
/// caption states them: a role as the author wrote it (`token: pos(" it")`), or a position
/// counted from the end (`token: -4`).
fn picks(options: &str) -> Vec<String> {
    let Ok(table) = options.parse::<toml::Table>() else {
        return Vec::new();
    };
    (tracebook_claims::roles::POSITION_OPTIONS.iter())
        .filter_map(|key| match table.get(*key)? {
            toml::Value::String(role) => Some(format!("{key}: {role}")),
            toml::Value::Integer(at) => Some(format!("{key}: {at}")),
            _ => None,
        })
        .collect()
}

/// The targets a figure of `kind` draws from `trace`, as its live caption states them when
/// the author named any by rule (`targets: guess(1), " her"`): a reader's text is ablated or
/// attributed for its own guesses.
fn target_rules(kind: &str, trace: &Trace) -> Option<String> {
    let targets = match tracebook_figures::targets_option(kind)? {
        "ablate" => &trace.meta.ablation.as_ref()?.targets,
        _ => &trace.meta.attribution.as_ref()?.targets,
    };
    if targets.iter().all(|t| t.rule.is_none()) {
        return None;
    }
    let named: Vec<String> = (targets.iter())
        .map(|t| t.rule.clone().unwrap_or_else(|| format!("{:?}", t.text)))
        .collect();
    Some(format!("targets: {}", named.join(", ")))
}

fn from_the_end(options: &str, tokens: usize) -> String {
    let Ok(mut table) = options.parse::<toml::Table>() else {
        return options.to_string();
    };
    match table.get("token") {
        Some(toml::Value::Integer(at)) if *at >= 0 && (*at as usize) < tokens => {
            let from_end = *at - tokens as i64;
            table.insert("token".into(), toml::Value::Integer(from_end));
            table.to_string()
        }
        _ => options.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{from_the_end, picks, positions, target_rules};

    #[test]
    fn a_figure_of_targets_by_rule_states_them() {
        let mut trace = Trace::from_json(HE_LOVED).unwrap();
        assert_eq!(target_rules("ablation", &trace), None);
        let ablation = trace.meta.ablation.as_mut().unwrap();
        ablation.targets[0].rule = Some("guess(1)".into());
        assert_eq!(
            target_rules("ablation", &trace).as_deref(),
            Some("targets: guess(1), \" her\"")
        );
        assert_eq!(target_rules("attention", &trace), None);
        assert_eq!(target_rules("saliency", &trace), None);
    }

    /// The example site's trace with an ablation and an attribution (" his", " her").
    const HE_LOVED: &str = include_str!("../../../../traces/he_loved.json");

    #[test]
    fn a_figure_states_the_rules_it_picks_by() {
        assert_eq!(
            picks("prompt = \"a\"\ntoken = 'pos(\" it\")'\nlayer = 1\n"),
            ["token: pos(\" it\")"]
        );
        assert_eq!(picks("prompt = \"a\"\ntoken = -4\n"), ["token: -4"]);
        assert!(picks("prompt = \"a\"\nlayer = 1\n").is_empty());
    }
    use tracebook_trace::Trace;

    /// The example site's encoder-decoder trace: 7 source tokens, 10 decoder positions.
    const FICHIER: &str = include_str!("../../../../traces/fichier.json");

    #[test]
    fn a_decoder_figure_counts_the_decoder_s_positions() {
        let trace = Trace::from_json(FICHIER).unwrap();
        let (source, decoder) = (
            trace.meta.tokens.len(),
            trace.meta.translation.as_ref().unwrap().tokens.len(),
        );
        assert_ne!(source, decoder);
        let steps = "prompt = \"fichier\"\nstack = \"decoder\"\nlayer = 1\nhead = 0\ntoken = 3\n";
        assert_eq!(positions(steps, &trace), decoder);
        let moved: toml::Table = from_the_end(steps, positions(steps, &trace))
            .parse()
            .unwrap();
        assert_eq!(moved["token"].as_integer(), Some(3 - decoder as i64));
        let encoder = steps.replace("decoder", "encoder");
        assert_eq!(positions(&encoder, &trace), source);
    }

    #[test]
    fn a_position_from_the_start_becomes_the_same_position_from_the_end() {
        let options = "prompt = \"animal\"\nlayer = 1\ntoken = 8\n";
        let moved: toml::Table = from_the_end(options, 9).parse().unwrap();
        assert_eq!(moved["token"].as_integer(), Some(-1));
        assert_eq!(moved["layer"].as_integer(), Some(1));
        let moved: toml::Table = from_the_end(options, 12).parse().unwrap();
        assert_eq!(moved["token"].as_integer(), Some(-4));
        // Already from the end, or none: unchanged.
        assert_eq!(from_the_end("token = -2\n", 9), "token = -2\n");
        assert_eq!(from_the_end("layer = 0\n", 9), "layer = 0\n");
    }
}
