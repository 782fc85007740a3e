//! GPT-2's tokenizer rebuilt from the r50k_base ranks (embedded from tiktoken-rs at build
//! time, see `r50k`): no file, no network.
//!
//! r50k_base is GPT-2's vocabulary with each token stored as raw bytes and ranked by its
//! GPT-2 id. From it we rebuild what a Hugging Face `tokenizer.json` for GPT-2 holds: the
//! byte-level vocabulary, the merge list (see `merges`), the ByteLevel pre-tokenizer
//! (GPT-2's split regex, no prefix space), the ByteLevel decoder, and `<|endoftext|>`.

use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::AddedToken;

use crate::byte_map::bytes_to_vocab_string;
use crate::error::TokenizerError;
use crate::merges::merge_splits;
use crate::r50k::{self, GPT2_VOCAB_SIZE};

/// GPT-2's one special token: it separates documents in training data.
pub(crate) const END_OF_TEXT: &str = "<|endoftext|>";

/// The built-in tokenizer and the bytes each of its ids stands for.
pub(crate) struct Builtin {
    pub tokenizer: tokenizers::Tokenizer,
    pub token_bytes: Vec<Vec<u8>>,
}

pub(crate) fn gpt2() -> Result<Builtin, TokenizerError> {
    let token_bytes: Vec<Vec<u8>> = r50k::token_bytes()?
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    let end_of_text = GPT2_VOCAB_SIZE - 1;
    let ordinary = &token_bytes[..end_of_text as usize];
    let model = bpe_model(ordinary, end_of_text)?;

    let byte_level = ByteLevel::new(false, false, true);
    let mut tokenizer = tokenizers::Tokenizer::new(model);
    tokenizer
        .with_pre_tokenizer(Some(byte_level))
        .with_post_processor(Some(byte_level))
        .with_decoder(Some(byte_level));
    tokenizer
        .add_special_tokens([AddedToken::from(END_OF_TEXT, true)])
        .map_err(|e| builtin_error(format!("adding {END_OF_TEXT}: {e}")))?;
    Ok(Builtin {
        tokenizer,
        token_bytes,
    })
}

fn bpe_model(ordinary: &[Vec<u8>], end_of_text: u32) -> Result<BPE, TokenizerError> {
    let mut vocab: Vocab = ordinary
        .iter()
        .zip(0u32..)
        .map(|(bytes, id)| (bytes_to_vocab_string(bytes), id))
        .collect();
    vocab.insert(END_OF_TEXT.to_owned(), end_of_text);
    let base_bytes = ordinary.iter().filter(|b| b.len() == 1).count();
    if base_bytes != 256 || vocab.len() != ordinary.len() + 1 {
        return Err(builtin_error(format!(
            "r50k_base has {base_bytes} single-byte tokens and {} distinct tokens, \
             expected 256 and {}",
            vocab.len(),
            ordinary.len() + 1
        )));
    }
    let merges = merge_splits(ordinary)
        .map_err(|u| {
            builtin_error(format!(
                "token {} is not a merge of two lower-ranked tokens (BPE stops at {} parts)",
                u.rank, u.parts
            ))
        })?
        .into_iter()
        .map(|(rank, split)| {
            let (left, right) = ordinary[rank as usize].split_at(split);
            (bytes_to_vocab_string(left), bytes_to_vocab_string(right))
        })
        .collect();
    BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| builtin_error(format!("building the BPE model: {e}")))
}

fn builtin_error(reason: String) -> TokenizerError {
    TokenizerError::Builtin { reason }
}
