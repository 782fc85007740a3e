//! [`read`]: one figure block's options — the shared `prompt` and `caption`, then the
//! kind's own struct — and [`Block`], which resolves the keys whose range depends on the
//! trace (layer, head, token position).

use super::problems::{missing, unknown_prompt, wrong_type};
use super::serde_errors::from_serde;
use super::types::{HeadKey, Keyed, LayerKey};
use super::values::{Head, Layer, TokenIndex};
use crate::error::FigureError;
use crate::prompt::Prompt;
use crate::Traces;
use serde::de::DeserializeOwned;
use toml::{Table, Value};
use tracebook_trace::suggest::did_you_mean;

/// A figure block read for its kind: the prompt it draws, its caption, and the kind's
/// own options `T`.
#[derive(Debug, Clone)]
pub struct Block<'t, T> {
    pub prompt: Prompt<'t>,
    pub caption: Option<String>,
    pub options: T,
}

impl<'t, T: DeserializeOwned> Block<'t, T> {
    /// Reads `table` as a block of `kind` whose own options are `T`. Checks, in this order:
    /// every key is one `T` (or the preamble) declares, with a did-you-mean; `prompt` names a
    /// traced prompt; `caption` is a string; each of `T`'s fields has its type and range.
    pub fn read(
        kind: &'static str,
        table: &Table,
        traces: &'t dyn Traces,
    ) -> Result<Block<'t, T>, FigureError> {
        let accepted = super::keys::<T>();
        if let Some(unknown) = table.keys().find(|key| !accepted.contains(&key.as_str())) {
            return Err(unknown_key(kind, unknown, &accepted));
        }
        let prompt = prompt(kind, table, traces)?;
        let caption = string(table, "caption")?.map(str::to_string);
        let mut own = table.clone();
        own.remove("prompt");
        own.remove("caption");
        let options = serde_path_to_error::deserialize(Value::Table(own))
            .map_err(|error| from_serde(kind, error, table))?;
        Ok(Block {
            prompt,
            caption,
            options,
        })
    }
}

fn unknown_key(kind: &str, unknown: &str, accepted: &[&str]) -> FigureError {
    let list = accepted.join(", ");
    let hint = match did_you_mean(unknown, accepted.iter().copied()) {
        Some(near) => format!("{near} `{kind}` accepts: {list}"),
        None => format!("`{kind}` accepts: {list}"),
    };
    FigureError::at(
        unknown,
        format!("unknown option `{unknown}` for figure `{kind}`"),
    )
    .with_hint(hint)
}

fn prompt<'t>(
    kind: &str,
    table: &Table,
    traces: &'t dyn Traces,
) -> Result<Prompt<'t>, FigureError> {
    let name = string(table, "prompt")?.ok_or_else(|| {
        missing(
            "prompt",
            kind,
            "prompt = \"name\", naming one of the site's prompts",
        )
    })?;
    let prompt = resolve_prompt(name, traces)?;
    if prompt.trace.meta.translation.is_some() && !ENCODER_DECODER_KINDS.contains(&kind) {
        let model = prompt.trace.meta.model.config.model_type().to_string();
        return Err(FigureError::at(
            "prompt",
            format!(
                "prompt \"{name}\" was traced with an encoder-decoder ({model}), whose tensors \
                 `{kind}` does not draw: it draws a decoder-only model's"
            ),
        )
        .with_hint(format!(
            "kinds that draw an encoder-decoder's trace: {}",
            ENCODER_DECODER_KINDS.join(", ")
        )));
    }
    Ok(prompt)
}

/// The kinds that draw an encoder-decoder's trace (Marian, BART); the others read tensors
/// only a decoder-only model's trace has, and refuse one by name.
pub const ENCODER_DECODER_KINDS: &[&str] = &[
    "architecture",
    "attention",
    "attention-grid",
    "attention-steps",
    "cross-attention",
    "tokens",
    "generation",
    "beam",
];

/// The traced prompt `name`, or an error with the known names.
pub(crate) fn resolve_prompt<'t>(
    name: &str,
    traces: &'t dyn Traces,
) -> Result<Prompt<'t>, FigureError> {
    match traces.get(name) {
        Some(trace) => Ok(Prompt {
            name: name.to_string(),
            trace,
        }),
        None => Err(unknown_prompt(name, &traces.names())),
    }
}

fn string<'a>(table: &'a Table, key: &str) -> Result<Option<&'a str>, FigureError> {
    match table.get(key) {
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

impl<T> Block<'_, T> {
    /// The block's `layer`, which this kind requires.
    pub fn layer(&self, kind: &str, layer: Option<LayerKey>) -> Result<Layer, FigureError> {
        let n_layer = self.prompt.config().n_layer;
        match layer {
            Some(key) => self.layer_or_all(Some(key)).map(|l| l.unwrap_or(Layer(0))),
            None => Err(missing(
                LayerKey::KEY,
                kind,
                &format!("{} = 0 (0 to {})", LayerKey::KEY, n_layer.saturating_sub(1)),
            )),
        }
    }

    /// The block's `layer`, or `None` (every layer) when it is absent.
    pub fn layer_or_all(&self, layer: Option<LayerKey>) -> Result<Option<Layer>, FigureError> {
        let n_layer = self.prompt.config().n_layer;
        layer
            .map(|key| index(LayerKey::KEY, key.value(), n_layer, "layers").map(Layer))
            .transpose()
    }

    /// The block's `head`, which this kind requires.
    pub fn head(&self, kind: &str, head: Option<HeadKey>) -> Result<Head, FigureError> {
        let n_head = self.prompt.config().n_head;
        match head {
            Some(key) => index(HeadKey::KEY, key.value(), n_head, "heads").map(Head),
            None => Err(missing(
                HeadKey::KEY,
                kind,
                &format!("{} = 0 (0 to {})", HeadKey::KEY, n_head.saturating_sub(1)),
            )),
        }
    }

    /// `key` (`layer` or `head`), which this kind requires, among the `count` `what`
    /// ("layers") of `part` ("the encoder"): for a kind that draws one stack of an
    /// encoder-decoder, whose two stacks need not be the same size.
    pub fn index_in(
        &self,
        kind: &str,
        (key, value): (&str, Option<i64>),
        (count, what): (usize, &str),
        part: &str,
    ) -> Result<usize, FigureError> {
        let Some(value) = value else {
            let example = format!("{key} = 0 (0 to {})", count.saturating_sub(1));
            return Err(missing(key, kind, &example));
        };
        index_of(key, value, (count, what), part)
    }

    /// A token position written under `key` (`token`, or `position` for next-token):
    /// `0..T`, or `-T..=-1` counting from the end.
    pub fn token<K: Keyed>(&self, key: K) -> Result<TokenIndex, FigureError> {
        let n_tokens = self.prompt.tokens()?.len();
        let n = n_tokens as i64;
        let value = key.value();
        let resolved = if value < 0 { value + n } else { value };
        if (0..n).contains(&resolved) {
            return Ok(TokenIndex(resolved as usize));
        }
        let name = K::KEY;
        Err(FigureError::at(
            name,
            format!("{name} = {value} is out of range: the prompt has {n_tokens} tokens"),
        )
        .with_hint(format!(
            "use 0 to {} from the start, or -1 to -{n_tokens} from the end",
            n - 1
        )))
    }
}

fn index(key: &str, value: i64, count: usize, what: &str) -> Result<usize, FigureError> {
    index_of(key, value, (count, what), "the model")
}

/// `value` of `key` if it is in `0..count`, else an error that `part` ("the encoder") has
/// `count` `what` ("layers").
fn index_of(
    key: &str,
    value: i64,
    (count, what): (usize, &str),
    part: &str,
) -> Result<usize, FigureError> {
    match usize::try_from(value) {
        Ok(index) if index < count => Ok(index),
        _ => Err(FigureError::at(
            key,
            format!("{key} = {value} is out of range: {part} has {count} {what}"),
        )
        .with_hint(format!(
            "{what} are numbered 0 to {}",
            count.saturating_sub(1)
        ))),
    }
}
