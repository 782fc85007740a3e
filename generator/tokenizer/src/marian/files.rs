//! The files of a Marian folder besides the SentencePiece models: `vocab.json` (piece → id)
//! and `tokenizer_config.json` (the special tokens; optional, with MarianTokenizer's defaults).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::error::TokenizerError;

/// The special tokens tokenizer_config.json names.
pub(super) struct Config {
    pub eos: String,
    pub unk: String,
    pub pad: String,
}

/// `tokenizer_config.json`, or MarianTokenizer's defaults when there is none.
pub(super) fn read_config(path: &Path) -> Result<Config, TokenizerError> {
    let mut config = Config {
        eos: "</s>".to_owned(),
        unk: "<unk>".to_owned(),
        pad: "<pad>".to_owned(),
    };
    if !path.is_file() {
        return Ok(config);
    }
    let json: Value = read_json(path)?;
    let invalid = |message: String| TokenizerError::MarianFile {
        path: path.to_owned(),
        message,
    };
    if json["separate_vocabs"] == Value::Bool(true) {
        return Err(invalid(
            "separate_vocabs is true (a target_vocab.json for target text), which tracebook \
             does not read; only checkpoints with one vocabulary for both sides are supported"
                .to_owned(),
        ));
    }
    for (key, slot) in [
        ("eos_token", &mut config.eos),
        ("unk_token", &mut config.unk),
        ("pad_token", &mut config.pad),
    ] {
        match &json[key] {
            Value::Null => {}
            Value::String(token) => *slot = token.clone(),
            Value::Object(token) => match token.get("content") {
                Some(Value::String(content)) => *slot = content.clone(),
                _ => return Err(invalid(format!("{key} has no \"content\""))),
            },
            other => return Err(invalid(format!("{key} is {other}, not a token"))),
        }
    }
    Ok(config)
}

/// `vocab.json`: piece → id.
pub(super) fn read_vocab(path: &Path) -> Result<HashMap<String, u32>, TokenizerError> {
    read_json(path)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, TokenizerError> {
    let text = std::fs::read_to_string(path).map_err(|source| TokenizerError::MarianRead {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| TokenizerError::MarianFile {
        path: path.to_owned(),
        message: e.to_string(),
    })
}
