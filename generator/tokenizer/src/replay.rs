//! Byte-pair encoding replayed one merge at a time, for a figure that shows how a word's
//! tokens were built: each word of a text starts as its bytes, and the merge of lowest rank
//! among neighbouring parts is applied until none is left, as `tokenizers`' BPE does.
//!
//! The replay is checked against the tokenizer's own output: a word is reported only when
//! its replayed parts are exactly the tokens the tokenizer gave it.

use fnv::FnvHashMap;
use tokenizers::{ModelWrapper, OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer};

use crate::byte_map::vocab_string_to_bytes;
use crate::spans::TokenBytes;
use tracebook_trace::{Merge, Token, WordMerges};

/// The merge rules of a byte-level BPE vocabulary, by the pair of ids they join.
#[derive(Debug, Clone)]
pub(crate) struct MergeTable {
    /// (left id, right id) → (rank, id of the joined token).
    rules: FnvHashMap<(u32, u32), (u32, u32)>,
    /// The id of each single byte.
    byte_ids: [Option<u32>; 256],
}

impl MergeTable {
    /// The rules of `model`, when it is a BPE model whose tokens `table` spells as bytes.
    pub fn of(model: &ModelWrapper, table: &TokenBytes) -> Option<MergeTable> {
        let ModelWrapper::BPE(bpe) = model else {
            return None;
        };
        let json = serde_json::to_value(bpe).ok()?;
        let mut ids: FnvHashMap<&[u8], u32> = FnvHashMap::default();
        for id in 0..table.len() {
            let id = u32::try_from(id).ok()?;
            if let Some(bytes) = table.get(id).filter(|b| !b.is_empty()) {
                ids.entry(bytes).or_insert(id);
            }
        }
        let mut byte_ids = [None; 256];
        for (byte, slot) in (0..=255u8).zip(byte_ids.iter_mut()) {
            *slot = ids.get([byte].as_slice()).copied();
        }
        let mut rules = FnvHashMap::default();
        for (rank, pair) in json.get("merges")?.as_array()?.iter().enumerate() {
            let (left, right) = pair_of(pair)?;
            let (left, right) = (vocab_string_to_bytes(&left), vocab_string_to_bytes(&right));
            let joined = [left.as_slice(), right.as_slice()].concat();
            let (Some(&l), Some(&r), Some(&j)) = (
                ids.get(left.as_slice()),
                ids.get(right.as_slice()),
                ids.get(joined.as_slice()),
            ) else {
                continue;
            };
            rules
                .entry((l, r))
                .or_insert((u32::try_from(rank).ok()?, j));
        }
        Some(MergeTable { rules, byte_ids })
    }

    /// Every word of `text` (as `pre_tokenizer` cuts it) whose replayed merges give exactly
    /// the `tokens` the tokenizer produced for it, in text order.
    pub fn words(
        &self,
        pre_tokenizer: &impl PreTokenizer,
        text: &str,
        tokens: &[Token],
    ) -> Vec<WordMerges> {
        let mut split = PreTokenizedString::from(text);
        if pre_tokenizer.pre_tokenize(&mut split).is_err() {
            return Vec::new();
        }
        split
            .get_splits(OffsetReferential::Original, OffsetType::Byte)
            .into_iter()
            .filter_map(|(_, (start, end), _)| {
                let word = self.replay(text.as_bytes().get(start..end)?)?;
                let expected: Vec<u32> = tokens
                    .iter()
                    .filter(|t| t.start >= start && t.end <= end)
                    .map(|t| t.id)
                    .collect();
                let covered: usize = tokens
                    .iter()
                    .filter(|t| t.start >= start && t.end <= end)
                    .map(|t| t.end - t.start)
                    .sum();
                let (bytes, merges, parts) = word;
                (parts == expected && covered == end - start).then_some(WordMerges {
                    start,
                    end,
                    bytes,
                    merges,
                })
            })
            .collect()
    }

    /// BPE on one word: its byte ids, the merges in order, and the ids it ends with.
    fn replay(&self, word: &[u8]) -> Option<(Vec<u32>, Vec<Merge>, Vec<u32>)> {
        let bytes: Vec<u32> = word
            .iter()
            .map(|&b| self.byte_ids[usize::from(b)])
            .collect::<Option<_>>()?;
        let mut parts = bytes.clone();
        let mut merges = Vec::new();
        // The lowest rank wins; between equal ranks, the leftmost pair (as `tokenizers`).
        while let Some((rank, at, id)) = parts
            .windows(2)
            .enumerate()
            .filter_map(|(at, pair)| {
                let &(rank, id) = self.rules.get(&(pair[0], pair[1]))?;
                Some((rank, at, id))
            })
            .min()
        {
            parts.splice(at..at + 2, [id]);
            merges.push(Merge { at, id, rank });
        }
        Some((bytes, merges, parts))
    }
}

/// A merge rule as `tokenizer.json` writes it: `["a", "b"]`, or `"a b"` in older files.
fn pair_of(value: &serde_json::Value) -> Option<(String, String)> {
    match value {
        serde_json::Value::Array(pair) => match pair.as_slice() {
            [l, r] => Some((l.as_str()?.to_owned(), r.as_str()?.to_owned())),
            _ => None,
        },
        serde_json::Value::String(s) => {
            let (l, r) = s.split_once(' ')?;
            Some((l.to_owned(), r.to_owned()))
        }
        _ => None,
    }
}
