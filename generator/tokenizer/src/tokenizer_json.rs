//! The few parts of a `tokenizer.json` that a vocabulary lookup reads, parsed without copying.
//!
//! serde skips everything else (the merge list is most of the file). Vocabulary entries
//! borrow from the file's bytes unless JSON escapes force a copy: with ~50k entries, owning
//! each one took about twice as long as the rest of the parse.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;

/// `model.vocab`, `decoder.type` and `added_tokens` of a tokenizer.json.
#[derive(Deserialize)]
pub(crate) struct TokenizerJson<'a> {
    #[serde(borrow)]
    pub model: ModelJson<'a>,
    pub decoder: Option<DecoderJson>,
    #[serde(default)]
    pub added_tokens: Vec<AddedTokenJson>,
}

#[derive(Deserialize)]
pub(crate) struct ModelJson<'a> {
    /// Entries as written (byte-level spelling for GPT-2 style files), with their ids.
    #[serde(borrow, deserialize_with = "vocab_entries")]
    pub vocab: Vec<(Cow<'a, str>, u32)>,
    /// Whether `<0xHH>` entries stand for single bytes (SentencePiece's byte fallback).
    #[serde(default)]
    pub byte_fallback: bool,
}

#[derive(Deserialize)]
pub(crate) struct DecoderJson {
    #[serde(rename = "type")]
    pub kind: String,
    /// The steps of a `Sequence` decoder.
    #[serde(default)]
    decoders: Vec<DecoderJson>,
    /// What a `Replace` decoder replaces, and with what.
    pattern: Option<PatternJson>,
    content: Option<String>,
}

#[derive(Deserialize)]
struct PatternJson {
    #[serde(rename = "String")]
    string: Option<String>,
}

impl DecoderJson {
    /// Whether this decoder turns SentencePiece's `▁` into a space, as Llama 2's, Mistral's
    /// and Gemma's do (see `pieces`).
    pub fn reads_metaspace(&self) -> bool {
        match self.kind.as_str() {
            "Metaspace" => true,
            "Sequence" => self.decoders.iter().any(DecoderJson::reads_metaspace),
            "Replace" => {
                let pattern = self.pattern.as_ref().and_then(|p| p.string.as_deref());
                pattern == Some("\u{2581}") && self.content.as_deref() == Some(" ")
            }
            _ => false,
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct AddedTokenJson {
    pub id: u32,
    pub content: String,
}

fn vocab_entries<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Cow<'de, str>, u32)>, D::Error> {
    d.deserialize_map(EntriesVisitor)
}

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Vec<(Cow<'de, str>, u32)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map from token strings to ids")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(Entry(text)) = map.next_key()? {
            entries.push((text, map.next_value()?));
        }
        Ok(entries)
    }
}

/// A string that borrows from the input when it can (serde's own `Cow` never does).
struct Entry<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Entry<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a token string")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Entry(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Entry(Cow::Owned(text.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_entries_in_file_order_borrowing_unescaped_ones() {
        let json = r#"{"model": {"vocab": {"Ġa": 1, "\"q\"": 0}, "merges": [["Ġ", "a"]]},
                       "decoder": {"type": "ByteLevel", "trim_offsets": false}}"#;
        let file: TokenizerJson = serde_json::from_str(json).expect("parses");
        let vocab = &file.model.vocab;
        assert_eq!(vocab.len(), 2);
        assert!(matches!(&vocab[0], (Cow::Borrowed("Ġa"), 1)));
        assert!(matches!(&vocab[1], (Cow::Owned(q), 0) if q == "\"q\""));
        assert_eq!(file.decoder.map(|d| d.kind).as_deref(), Some("ByteLevel"));
        assert!(file.added_tokens.is_empty());
        assert!(!file.model.byte_fallback);
    }

    #[test]
    fn a_sentencepiece_decoder_reads_metaspace() {
        let decoder = |json: &str| serde_json::from_str::<DecoderJson>(json).expect("parses");
        let llama = r#"{"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}"#;
        assert!(decoder(llama).reads_metaspace());
        assert!(decoder(r#"{"type": "Metaspace", "replacement": "\u2581"}"#).reads_metaspace());
        assert!(!decoder(r#"{"type": "ByteLevel"}"#).reads_metaspace());
        let other = r#"{"type": "Replace", "pattern": {"String": "_"}, "content": " "}"#;
        assert!(!decoder(other).reads_metaspace());
    }
}
