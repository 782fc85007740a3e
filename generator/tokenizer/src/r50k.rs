//! GPT-2's token byte strings in rank (= id) order, embedded at build time from tiktoken-rs'
//! r50k_base by `build.rs`: no file, no network, and well under a millisecond to read.

use std::ops::Range;

use crate::error::TokenizerError;

/// Tokens GPT-2 knows, `<|endoftext|>` (the last id) included.
pub(crate) const GPT2_VOCAB_SIZE: u32 = 50257;

/// One length byte, then that many bytes, for every rank in order (see `build.rs`).
static BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/r50k_token_bytes.bin"));

/// The embedded table, and where in it the bytes of each rank sit (`<|endoftext|>`, 50256,
/// last): rank `r` is `table[ranges[r].clone()]`.
pub(crate) fn token_ranges() -> Result<(&'static [u8], Vec<Range<usize>>), TokenizerError> {
    let mut ranges = Vec::with_capacity(GPT2_VOCAB_SIZE as usize);
    let mut at = 0;
    while let Some(&len) = BLOB.get(at) {
        let range = at + 1..at + 1 + usize::from(len);
        if range.end > BLOB.len() {
            return Err(corrupt(ranges.len()));
        }
        at = range.end;
        ranges.push(range);
    }
    if ranges.len() != GPT2_VOCAB_SIZE as usize {
        return Err(corrupt(ranges.len()));
    }
    Ok((BLOB, ranges))
}

/// The bytes of every rank, in order.
pub(crate) fn token_bytes() -> Result<Vec<&'static [u8]>, TokenizerError> {
    let (table, ranges) = token_ranges()?;
    Ok(ranges.into_iter().map(|range| &table[range]).collect())
}

fn corrupt(read: usize) -> TokenizerError {
    TokenizerError::Builtin {
        reason: format!(
            "the embedded r50k_base table ends after {read} of {GPT2_VOCAB_SIZE} tokens"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_every_gpt2_token_in_rank_order() {
        let tokens = token_bytes().expect("embedded table");
        assert_eq!(tokens.len(), 50257);
        assert_eq!(tokens[0], b"!");
        assert_eq!(tokens[220], b" ");
        assert_eq!(tokens[262], b" the");
        assert_eq!(tokens[50256], b"<|endoftext|>");
        assert_eq!(tokens.iter().filter(|t| t.len() == 1).count(), 256);
    }
}
