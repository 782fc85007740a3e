//! What an author's kind declares beside its template (`figures/NAME.toml`): a description for
//! `tracebook figures`, the accessible title, whether it draws one prompt or several, and its
//! options with their type, default and range. A block's options are checked against it as a
//! built-in kind's are against its options struct: unknown keys with a did-you-mean, a value
//! of the wrong type or out of range at its key, a missing option without a default.

use crate::error::FigureError;
use serde::Deserialize;
use std::collections::BTreeMap;
use tracebook_trace::suggest::did_you_mean;

/// The options every kind takes, besides those a declaration lists.
pub const COMMON: [&str; 3] = ["prompt", "prompts", "caption"];

/// `figures/NAME.toml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    /// One sentence on what the kind draws, for `tracebook figures`.
    #[serde(default)]
    pub description: String,
    /// The figure's accessible name (its SVG `<title>`), by default the kind's name.
    pub title: Option<String>,
    /// `"one"` (the block names `prompt`) or `"several"` (`prompts = [...]`, as `compare`).
    #[serde(default)]
    pub prompts: Prompts,
    #[serde(default)]
    pub options: BTreeMap<String, Declared>,
}

/// How many prompts a kind draws.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Prompts {
    #[default]
    One,
    Several,
}

/// One declared option.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    #[serde(rename = "type")]
    pub kind: Type,
    /// Its value when a block leaves it out; without one, a block must give it.
    pub default: Option<toml::Value>,
    /// The smallest and largest number allowed (integers and numbers).
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The strings allowed (strings).
    pub choices: Option<Vec<String>>,
    /// What it does, for `tracebook figures`.
    #[serde(default)]
    pub help: String,
}

/// An option's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Type {
    Integer,
    Number,
    String,
    Boolean,
}

impl Type {
    fn name(self) -> &'static str {
        match self {
            Type::Integer => "an integer",
            Type::Number => "a number",
            Type::String => "a string",
            Type::Boolean => "true or false",
        }
    }
}

impl Declaration {
    /// Reads `figures/NAME.toml`; the error is TOML's or serde's message, with its byte range.
    pub fn parse(text: &str) -> Result<Declaration, (Option<std::ops::Range<usize>>, String)> {
        let declaration: Declaration =
            toml::from_str(text).map_err(|e| (e.span(), e.message().to_string()))?;
        for (name, option) in &declaration.options {
            if COMMON.contains(&name.as_str()) {
                return Err((None, format!("option `{name}` is one every kind has")));
            }
            if let Some(default) = &option.default {
                option
                    .check(name, default)
                    .map_err(|e| (None, format!("the default of `{name}`: {}", e.message)))?;
            }
        }
        Ok(declaration)
    }

    /// The block's options, checked against the declaration, with the defaults filled in
    /// (`prompt`, `prompts` and `caption` are left out).
    pub fn options(&self, block: &toml::Table) -> Result<toml::Table, FigureError> {
        let allowed: Vec<&str> = (COMMON.iter().copied())
            .chain(self.options.keys().map(String::as_str))
            .collect();
        if let Some(key) = block.keys().find(|k| !allowed.contains(&k.as_str())) {
            let hint = did_you_mean(key, allowed.iter().copied())
                .unwrap_or_else(|| format!("this kind's options are {}", allowed.join(", ")));
            return Err(FigureError::at(key, format!("unknown option `{key}`")).with_hint(hint));
        }
        let mut out = toml::Table::new();
        for (name, declared) in &self.options {
            let value = match (block.get(name), &declared.default) {
                (Some(value), _) => {
                    declared.check(name, value)?;
                    value.clone()
                }
                (None, Some(default)) => default.clone(),
                (None, None) => {
                    return Err(FigureError::new(format!("option `{name}` is missing"))
                        .with_hint(format!("add `{name} = ...` ({})", declared.kind.name())))
                }
            };
            out.insert(name.clone(), value);
        }
        Ok(out)
    }
}

impl Declared {
    /// The numbers it allows, in words (`from 0 to 11`, `at least 0`), if it is bounded.
    pub fn range(&self) -> Option<String> {
        match (self.min, self.max) {
            (Some(a), Some(b)) => Some(format!("from {a} to {b}")),
            (Some(a), None) => Some(format!("at least {a}")),
            (None, Some(b)) => Some(format!("at most {b}")),
            (None, None) => None,
        }
    }

    /// `value` as this option takes it: its type, range and choices.
    fn check(&self, name: &str, value: &toml::Value) -> Result<(), FigureError> {
        let number = match (self.kind, value) {
            (Type::Integer, toml::Value::Integer(n)) => Some(*n as f64),
            (Type::Number, toml::Value::Integer(n)) => Some(*n as f64),
            (Type::Number, toml::Value::Float(x)) => Some(*x),
            (Type::String, toml::Value::String(_)) | (Type::Boolean, toml::Value::Boolean(_)) => {
                None
            }
            _ => {
                return Err(FigureError::at(
                    name,
                    format!("`{name}` is {}, not {}", self.kind.name(), value.type_str()),
                ))
            }
        };
        if let Some(x) = number {
            let low = self.min.is_some_and(|min| x < min);
            let high = self.max.is_some_and(|max| x > max);
            if let Some(range) = self.range().filter(|_| low || high) {
                return Err(FigureError::at(
                    name,
                    format!("`{name}` is {x}, but must be {range}"),
                ));
            }
        }
        if let (Some(choices), toml::Value::String(s)) = (&self.choices, value) {
            if !choices.contains(s) {
                let hint = did_you_mean(s, choices.iter().map(String::as_str))
                    .unwrap_or_else(|| format!("choose one of {}", choices.join(", ")));
                return Err(
                    FigureError::at(name, format!("`{name}` cannot be {s:?}")).with_hint(hint)
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Declaration, Prompts};

    const NEURON: &str = r#"
description = "One neuron over the prompt"
[options.layer]
type = "integer"
default = 0
min = 0
[options.neuron]
type = "integer"
min = 0
max = 3071
[options.style]
type = "string"
default = "bars"
choices = ["bars", "cells"]
"#;

    fn block(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_block_s_options_are_checked_and_completed() {
        let d = Declaration::parse(NEURON).unwrap();
        assert_eq!(d.prompts, Prompts::One);
        let options = d
            .options(&block("prompt = \"p\"\nneuron = 5\ncaption = \"c\""))
            .unwrap();
        assert_eq!(options["layer"].as_integer(), Some(0));
        assert_eq!(options["neuron"].as_integer(), Some(5));
        assert_eq!(options["style"].as_str(), Some("bars"));
        assert!(!options.contains_key("prompt"));
    }

    #[test]
    fn wrong_values_say_which_option_and_why() {
        let d = Declaration::parse(NEURON).unwrap();
        let e = d.options(&block("neuron = 5\nlayr = 1")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("layr"));
        assert!(e.hint.unwrap().contains("layer"));
        let e = d.options(&block("neuron = 5000")).unwrap_err();
        assert_eq!(e.message, "`neuron` is 5000, but must be from 0 to 3071");
        let e = d.options(&block("neuron = \"five\"")).unwrap_err();
        assert_eq!(e.message, "`neuron` is an integer, not string");
        let e = d
            .options(&block("neuron = 1\nstyle = \"bar\""))
            .unwrap_err();
        assert!(e.hint.unwrap().contains("bars"));
        let e = d.options(&block("layer = 1")).unwrap_err();
        assert_eq!(e.message, "option `neuron` is missing");
    }

    #[test]
    fn a_declaration_is_checked_itself() {
        let (span, message) = Declaration::parse("[options.x]\ntype = \"colour\"\n").unwrap_err();
        assert!(
            span.is_some() && message.contains("unknown variant"),
            "{message}"
        );
        let (_, message) = Declaration::parse("[options.prompt]\ntype = \"string\"\n").unwrap_err();
        assert!(message.contains("every kind has"), "{message}");
        let (_, message) =
            Declaration::parse("[options.n]\ntype = \"integer\"\ndefault = 1.5\n").unwrap_err();
        assert!(message.contains("the default of `n`"), "{message}");
    }
}
