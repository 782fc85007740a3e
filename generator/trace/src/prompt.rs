//! A prompt as authors write it: a plain string, or a table with `text` and generation options.

use crate::attribution::AttributionSpec;
use crate::intervention::{AblationSpec, PatchSpec};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Options of one prompt, as authors write them (AUTHORING.md): how many tokens to generate
/// after the prompt, and how to sample them (greedy unless a temperature above zero is given).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct PromptOptions {
    /// Tokens to continue the prompt with.
    #[serde(default)]
    pub generate: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Sampling seed, so sampled continuations are reproducible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Read special tokens' spellings (`<|endoftext|>`) as the special tokens; by default a
    /// prompt is ordinary text and they are spelled out like any other characters.
    #[serde(default, skip_serializing_if = "is_false")]
    pub special_tokens: bool,
    /// Record a beam-search tree of this width over `generate` steps: every node's
    /// `beams` likeliest children, so beam search of any width up to it replays exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beams: Option<usize>,
    /// Ablate every head and MLP in turn and keep the targets' log-probabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ablate: Option<AblationSpec>,
    /// Patch this (clean) prompt's activations into a corrupted one, one site at a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<PatchSpec>,
    /// Split the targets' logits at the last position among the model's parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<AttributionSpec>,
}

fn is_false(b: &bool) -> bool {
    !b
}

/// The widest beam-search tree a prompt may ask for.
pub const MAX_BEAMS: usize = 5;
/// The most nodes a beam-search tree may have (each inner node costs a forward pass).
pub const MAX_BEAM_NODES: usize = 400;

impl PromptOptions {
    /// Options a sampler can use: a finite temperature ≥ 0, top_k ≥ 1, top_p in (0, 1].
    pub fn validate(&self) -> Result<(), String> {
        if let Some(t) = self.temperature.filter(|t| !(t.is_finite() && *t >= 0.0)) {
            return Err(format!(
                "temperature must be a number ≥ 0 (0 means greedy), not {t}"
            ));
        }
        if self.top_k == Some(0) {
            return Err("top_k must be at least 1".to_string());
        }
        if let Some(p) = self.top_p.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
            return Err(format!("top_p must be in (0, 1], not {p}"));
        }
        if let Some(b) = self.beams {
            if !(2..=MAX_BEAMS).contains(&b) {
                return Err(format!("beams must be 2 to {MAX_BEAMS}, not {b}"));
            }
            let nodes = (1..=self.generate as u32)
                .map(|d| b.saturating_pow(d))
                .sum::<usize>();
            if self.generate == 0 || nodes > MAX_BEAM_NODES {
                return Err(format!(
                    "beams = {b} needs generate = 1 or more, and a tree of at most \
                     {MAX_BEAM_NODES} nodes (beams^1 + ... + beams^generate is {nodes})"
                ));
            }
        }
        if let Some(a) = &self.ablate {
            a.validate()?;
        }
        if let Some(p) = &self.patch {
            p.validate()?;
        }
        if let Some(a) = &self.attribute {
            a.validate()?;
        }
        Ok(())
    }

    /// `generate 4, temperature 0.8`: the options that are set, for messages.
    pub fn describe(&self) -> String {
        let mut parts = vec![format!("generate {}", self.generate)];
        let mut push = |key: &str, value: Option<String>| {
            if let Some(v) = value {
                parts.push(format!("{key} {v}"));
            }
        };
        push("temperature", self.temperature.map(|v| v.to_string()));
        push("top_k", self.top_k.map(|v| v.to_string()));
        push("top_p", self.top_p.map(|v| v.to_string()));
        push("seed", self.seed.map(|v| v.to_string()));
        push(
            "special_tokens",
            self.special_tokens.then(|| "true".to_string()),
        );
        push("beams", self.beams.map(|v| v.to_string()));
        push(
            "ablate",
            self.ablate
                .as_ref()
                .map(|a| format!("{:?} ({})", a.targets, a.mode)),
        );
        push(
            "patch",
            self.patch
                .as_ref()
                .map(|p| format!("from {:?}", p.corrupted)),
        );
        push(
            "attribute",
            self.attribute.as_ref().map(|a| format!("{:?}", a.targets)),
        );
        parts.join(", ")
    }
}

/// A prompt: its text and options. Deserializes from a plain string (`"The robots will bring"`)
/// or a table (`{ text = "...", generate = 4 }`, unknown keys rejected); serializes as a table.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PromptSpec {
    pub text: String,
    pub options: PromptOptions,
    /// The model this prompt is traced with, when it is not the site's `[model] id` (a hub
    /// id or a folder, as `[model] id` is written).
    pub model: Option<String>,
    /// What readers are shown for that model (the prompt's `name`, beside its `model`).
    pub model_name: Option<String>,
}

impl PromptSpec {
    /// A prompt with default options (nothing generated).
    pub fn new(text: impl Into<String>) -> Self {
        PromptSpec {
            text: text.into(),
            options: PromptOptions::default(),
            model: None,
            model_name: None,
        }
    }
}

/// The table form, shared by both directions so the keys are listed once.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PromptTable {
    text: String,
    #[serde(default)]
    generate: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    top_k: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(default, skip_serializing_if = "is_false")]
    special_tokens: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    beams: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ablate: Option<AblationSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    patch: Option<PatchSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    attribute: Option<AttributionSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    /// The name readers are shown for `model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

impl From<PromptTable> for PromptSpec {
    fn from(t: PromptTable) -> Self {
        PromptSpec {
            text: t.text,
            options: PromptOptions {
                generate: t.generate,
                temperature: t.temperature,
                top_k: t.top_k,
                top_p: t.top_p,
                seed: t.seed,
                special_tokens: t.special_tokens,
                beams: t.beams,
                ablate: t.ablate,
                patch: t.patch,
                attribute: t.attribute,
            },
            model: t.model,
            model_name: t.name,
        }
    }
}

impl Serialize for PromptSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let o = &self.options;
        PromptTable {
            text: self.text.clone(),
            generate: o.generate,
            temperature: o.temperature,
            top_k: o.top_k,
            top_p: o.top_p,
            seed: o.seed,
            special_tokens: o.special_tokens,
            beams: o.beams,
            ablate: o.ablate.clone(),
            patch: o.patch.clone(),
            attribute: o.attribute.clone(),
            model: self.model.clone(),
            name: self.model_name.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for PromptSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PromptVisitor)
    }
}

struct PromptVisitor;

impl<'de> Visitor<'de> for PromptVisitor {
    type Value = PromptSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "a prompt: a string, or a table with `text` and optionally \
             generate, temperature, top_k, top_p, seed, special_tokens, beams, ablate, \
             patch, attribute, model, name",
        )
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<PromptSpec, E> {
        Ok(PromptSpec::new(text))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PromptSpec, A::Error> {
        let table = PromptTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
        let spec = PromptSpec::from(table);
        spec.options.validate().map_err(de::Error::custom)?;
        if spec.model_name.is_some() && spec.model.is_none() {
            return Err(de::Error::custom(
                "`name` names the prompt's own `model`, and this prompt has none: add \
                 `model = \"...\"` beside it, or name the site's model with `name` under \
                 [model] in tracebook.toml",
            ));
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_a_prompt_with_default_options() {
        let spec: PromptSpec = serde_json::from_str("\"The robots will bring\"").unwrap();
        assert_eq!(spec, PromptSpec::new("The robots will bring"));
    }

    #[test]
    fn a_prompts_model_has_a_name_only_beside_its_model() {
        let json = r#"{"text":"Hi","generate":0,"model":"models/x","name":"X"}"#;
        let spec: PromptSpec = serde_json::from_str(json).unwrap();
        assert_eq!(spec.model_name.as_deref(), Some("X"));
        assert_eq!(serde_json::to_string(&spec).unwrap(), json);
        let alone = serde_json::from_str::<PromptSpec>(r#"{"text":"Hi","name":"X"}"#);
        let message = alone.unwrap_err().to_string();
        assert!(message.contains("add `model"), "{message}");
    }

    #[test]
    fn a_table_carries_its_options_and_serializes_back_to_a_table() {
        let json = r#"{"text":"Hi","generate":4,"temperature":0.8,"seed":7}"#;
        let spec: PromptSpec = serde_json::from_str(json).unwrap();
        assert_eq!(spec.options.generate, 4);
        assert_eq!(spec.options.temperature, Some(0.8));
        assert_eq!(spec.options.seed, Some(7));
        assert_eq!(serde_json::to_string(&spec).unwrap(), json);
        let plain = serde_json::to_string(&PromptSpec::new("Hi")).unwrap();
        assert_eq!(plain, r#"{"text":"Hi","generate":0}"#);
    }

    #[test]
    fn beams_need_a_width_of_two_to_five_generated_steps_and_a_small_tree() {
        let options = |beams: usize, generate: usize| PromptOptions {
            beams: Some(beams),
            generate,
            ..PromptOptions::default()
        };
        assert!(options(3, 4).validate().is_ok());
        assert_eq!(
            options(1, 4).validate().unwrap_err(),
            "beams must be 2 to 5, not 1"
        );
        assert!(options(3, 0)
            .validate()
            .unwrap_err()
            .contains("generate = 1"));
        // 4 + 16 + 64 + 256 + 1024 nodes: too many forward passes.
        assert!(options(4, 5).validate().unwrap_err().contains("is 1364"));
        let spec: PromptSpec =
            serde_json::from_str(r#"{"text":"Hi","generate":2,"beams":3}"#).unwrap();
        assert_eq!(spec.options.beams, Some(3));
        assert_eq!(spec.options.describe(), "generate 2, beams 3");
    }

    #[test]
    fn unknown_keys_and_unusable_options_are_rejected() {
        let err = serde_json::from_str::<PromptSpec>(r#"{"text":"Hi","tempurature":1}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `tempurature`"), "{err}");
        let err = serde_json::from_str::<PromptSpec>(r#"{"text":"Hi","top_p":1.5}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("top_p must be in (0, 1]"), "{err}");
        let err = serde_json::from_str::<PromptSpec>(r#"{"generate":2}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing field `text`"), "{err}");
        assert!(serde_json::from_str::<PromptSpec>("3").is_err());
    }

    #[test]
    fn describe_lists_the_options_that_are_set() {
        let options = PromptOptions {
            generate: 4,
            top_k: Some(5),
            ..PromptOptions::default()
        };
        assert_eq!(options.describe(), "generate 4, top_k 5");
    }
}
