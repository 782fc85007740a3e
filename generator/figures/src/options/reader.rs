//! [`Options`]: reads one figure block's keys with their types and ranges. Unknown keys
//! are rejected up front with a did-you-mean hint; every error carries the key it is about.

use super::problems::{missing, quoted_list, unknown_prompt, wrong_type};
use super::values::{Head, Layer, TokenIndex};
use crate::error::FigureError;
use crate::prompt::Prompt;
use crate::Traces;
use std::ops::RangeInclusive;
use toml::{Table, Value};
use tracebook_trace::suggest::did_you_mean;

/// Keys every kind accepts.
const COMMON_KEYS: [&str; 2] = ["prompt", "caption"];

/// The options of one figure block, checked against the keys its kind accepts.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    pub(super) kind: &'static str,
    pub(super) table: &'a Table,
}

impl<'a> Options<'a> {
    /// Wraps `table` for `kind`, which accepts `prompt`, `caption` and `keys`.
    /// Fails on the first key that is none of them.
    pub fn new(
        kind: &'static str,
        table: &'a Table,
        keys: &[&'static str],
    ) -> Result<Self, FigureError> {
        let accepted: Vec<&str> = COMMON_KEYS.iter().chain(keys).copied().collect();
        if let Some(unknown) = table.keys().find(|key| !accepted.contains(&key.as_str())) {
            let list = accepted.join(", ");
            let hint = match did_you_mean(unknown, accepted.iter().copied()) {
                Some(near) => format!("{near} `{kind}` accepts: {list}"),
                None => format!("`{kind}` accepts: {list}"),
            };
            return Err(FigureError::at(
                unknown,
                format!("unknown option `{unknown}` for figure `{kind}`"),
            )
            .with_hint(hint));
        }
        Ok(Options { kind, table })
    }

    /// The required `prompt` key, resolved against the prompts that have traces.
    pub fn prompt<'t>(&self, traces: &'t dyn Traces) -> Result<Prompt<'t>, FigureError> {
        let name = self.string("prompt")?.ok_or_else(|| {
            missing(
                "prompt",
                self.kind,
                "prompt = \"name\", naming one of the site's prompts",
            )
        })?;
        match traces.get(name) {
            Some(trace) => Ok(Prompt {
                name: name.to_string(),
                trace,
            }),
            None => Err(unknown_prompt(name, &traces.names())),
        }
    }

    /// The optional `caption` key.
    pub fn caption(&self) -> Result<Option<String>, FigureError> {
        Ok(self.string("caption")?.map(str::to_string))
    }

    /// An optional string.
    pub fn string(&self, key: &str) -> Result<Option<&'a str>, FigureError> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(wrong_type(
                key,
                "a string",
                other,
                &format!("{key} = \"...\""),
            )),
        }
    }

    /// An optional boolean, `default` when absent.
    pub fn bool(&self, key: &str, default: bool) -> Result<bool, FigureError> {
        match self.table.get(key) {
            None => Ok(default),
            Some(Value::Boolean(b)) => Ok(*b),
            Some(other) => Err(wrong_type(
                key,
                "true or false",
                other,
                &format!("{key} = true"),
            )),
        }
    }

    /// An optional integer within `range`, `default` when absent.
    pub fn integer(
        &self,
        key: &str,
        default: i64,
        range: RangeInclusive<i64>,
    ) -> Result<i64, FigureError> {
        let value = match self.table.get(key) {
            None => return Ok(default),
            Some(Value::Integer(i)) => *i,
            Some(other) => {
                return Err(wrong_type(
                    key,
                    "an integer",
                    other,
                    &format!("{key} = {default}"),
                ))
            }
        };
        if range.contains(&value) {
            Ok(value)
        } else {
            Err(
                FigureError::at(key, format!("{key} = {value} is out of range")).with_hint(
                    format!(
                        "{key} must be between {} and {}",
                        range.start(),
                        range.end()
                    ),
                ),
            )
        }
    }

    /// An optional string that must be one of `choices`, `default` when absent.
    pub fn choice(
        &self,
        key: &str,
        default: &'static str,
        choices: &[&'static str],
    ) -> Result<&'static str, FigureError> {
        let Some(value) = self.string(key)? else {
            return Ok(default);
        };
        if let Some(choice) = choices.iter().find(|c| **c == value) {
            return Ok(choice);
        }
        let list = quoted_list(choices);
        let hint = match did_you_mean(value, choices.iter().copied()) {
            Some(near) => format!("{near} {key} is one of {list}"),
            None => format!("{key} is one of {list}"),
        };
        Err(
            FigureError::at(key, format!("{key} = \"{value}\" is not a valid choice"))
                .with_hint(hint),
        )
    }

    /// A required layer index, `0..n_layer`.
    pub fn layer(&self, key: &str, n_layer: usize) -> Result<Layer, FigureError> {
        self.index(key, n_layer, "layers").map(Layer)
    }

    /// A required head index, `0..n_head`.
    pub fn head(&self, key: &str, n_head: usize) -> Result<Head, FigureError> {
        self.index(key, n_head, "heads").map(Head)
    }

    /// A token position: `0..n_tokens`, or `-n_tokens..=-1` counting from the end;
    /// `default` (which may be negative) when absent.
    pub fn token(
        &self,
        key: &str,
        default: i64,
        n_tokens: usize,
    ) -> Result<TokenIndex, FigureError> {
        let n = n_tokens as i64;
        let value = self.integer(key, default, i64::MIN..=i64::MAX)?;
        let resolved = if value < 0 { value + n } else { value };
        if (0..n).contains(&resolved) {
            return Ok(TokenIndex(resolved as usize));
        }
        Err(FigureError::at(
            key,
            format!("{key} = {value} is out of range: the prompt has {n_tokens} tokens"),
        )
        .with_hint(format!(
            "use 0 to {} from the start, or -1 to -{n_tokens} from the end",
            n - 1
        )))
    }

    pub(super) fn index(&self, key: &str, count: usize, what: &str) -> Result<usize, FigureError> {
        let value = match self.table.get(key) {
            None => {
                return Err(missing(
                    key,
                    self.kind,
                    &format!("{key} = 0 (0 to {})", count.saturating_sub(1)),
                ))
            }
            Some(Value::Integer(i)) => *i,
            Some(other) => return Err(wrong_type(key, "an integer", other, &format!("{key} = 0"))),
        };
        match usize::try_from(value) {
            Ok(index) if index < count => Ok(index),
            _ => Err(FigureError::at(
                key,
                format!("{key} = {value} is out of range: the model has {count} {what}"),
            )
            .with_hint(format!(
                "{what} are numbered 0 to {}",
                count.saturating_sub(1)
            ))),
        }
    }
}
