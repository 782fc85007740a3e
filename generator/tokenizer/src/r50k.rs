//! GPT-2's token byte strings in rank (= id) order, embedded at build time from tiktoken-rs'
//! r50k_base by `build.rs`: no file, no network, and about a millisecond to read.

use crate::builtin::GPT2_VOCAB_SIZE;
use crate::error::TokenizerError;

/// One length byte, then that many bytes, for every rank in order (see `build.rs`).
static BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/r50k_token_bytes.bin"));

/// The bytes of every r50k_base rank, `<|endoftext|>` (50256) last.
pub(crate) fn token_bytes() -> Result<Vec<&'static [u8]>, TokenizerError> {
    let mut tokens = Vec::with_capacity(GPT2_VOCAB_SIZE as usize);
    let mut rest = BLOB;
    while let Some((&len, tail)) = rest.split_first() {
        let Some((bytes, after)) = tail.split_at_checked(usize::from(len)) else {
            return Err(corrupt(tokens.len()));
        };
        tokens.push(bytes);
        rest = after;
    }
    if tokens.len() != GPT2_VOCAB_SIZE as usize {
        return Err(corrupt(tokens.len()));
    }
    Ok(tokens)
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
