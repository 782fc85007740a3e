//! A byte-level BPE tokenizer trained on texts, for a model tracebook trains with a vocabulary
//! of its own (the translation model's, one vocabulary for source and target text as Marian
//! shares one). GPT-2's recipe: the ByteLevel pre-tokenizer and its regex, every byte in the
//! alphabet so no text is unknown, special tokens first. The `tokenizers` crate's trainer does
//! the training; the result is an ordinary `tokenizer.json`.

use crate::error::TokenizerError;
use crate::tokenizer::Tokenizer;
use std::path::Path;
use tokenizers::models::bpe::{BpeTrainer, BPE};
use tokenizers::models::TrainerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::AddedToken;

/// The end-of-text token of a language model's own vocabulary: GPT-2's name, and like GPT-2's
/// the last id, so a config's `bos_token_id`/`eos_token_id` is `vocab_size - 1` either way.
pub const END_OF_TEXT: &str = "<|endoftext|>";

/// A byte-level BPE of `vocab_size` tokens (`special` ones first, ids 0, 1, ...) trained on
/// `texts`.
pub fn train_byte_level_bpe(
    texts: &[String],
    vocab_size: usize,
    special: &[&str],
) -> Result<Tokenizer, TokenizerError> {
    let inner = trained(texts, vocab_size, special)?;
    let json = inner.to_string(false).map_err(failed)?;
    Tokenizer::from_json(&json, Path::new("tokenizer.json"))
}

/// A language model's byte-level BPE of `vocab_size` tokens laid out as GPT-2's is: the
/// merges first, [`END_OF_TEXT`] last (id `vocab_size - 1`).
pub fn train_language_model_bpe(
    texts: &[String],
    vocab_size: usize,
) -> Result<Tokenizer, TokenizerError> {
    let mut inner = trained(texts, vocab_size - 1, &[])?;
    inner
        .add_special_tokens([AddedToken::from(END_OF_TEXT.to_string(), true)])
        .map_err(failed)?;
    let json = inner.to_string(false).map_err(failed)?;
    Tokenizer::from_json(&json, Path::new("tokenizer.json"))
}

fn failed(e: tokenizers::Error) -> TokenizerError {
    TokenizerError::Parse {
        path: "trained tokenizer".into(),
        message: e.to_string(),
    }
}

fn trained(
    texts: &[String],
    vocab_size: usize,
    special: &[&str],
) -> Result<tokenizers::Tokenizer, TokenizerError> {
    let mut inner = tokenizers::Tokenizer::new(BPE::default());
    inner.with_pre_tokenizer(Some(ByteLevel::new(false, true, true)));
    inner.with_decoder(Some(ByteLevel::default()));
    let trainer = BpeTrainer::builder()
        .vocab_size(vocab_size)
        .min_frequency(2)
        .show_progress(false)
        .special_tokens(
            special
                .iter()
                .map(|s| AddedToken::from(s.to_string(), true))
                .collect(),
        )
        .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
        .build();
    let mut trainer = TrainerWrapper::BpeTrainer(trainer);
    inner.train(&mut trainer, texts.iter()).map_err(failed)?;
    Ok(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trained_tokenizer_round_trips_and_puts_special_tokens_first() {
        let texts: Vec<String> = (0..200)
            .map(|i| format!("Cannot open file number {i}. Impossible d'ouvrir le fichier {i}."))
            .collect();
        let tokenizer = train_byte_level_bpe(&texts, 400, &["</s>", "<unk>", "<pad>"]).unwrap();
        assert_eq!(tokenizer.special_token("</s>"), Some(0));
        assert_eq!(tokenizer.special_token("<pad>"), Some(2));
        assert_eq!(tokenizer.special_token("Cannot"), None);
        let text = "Impossible d'ouvrir le fichier « été » 😀";
        let tokens = tokenizer.encode(text).unwrap();
        let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
        assert_eq!(tokenizer.decode(&ids).unwrap(), text);
        let seen = tokenizer.encode("Cannot open file number 7.").unwrap();
        assert!(seen.len() <= 8, "merges were learned: {seen:?}");
        assert!(tokenizer.vocab_size() <= 400);
    }

    #[test]
    fn a_language_model_tokenizer_ends_with_end_of_text() {
        let texts: Vec<String> = (0..300)
            .map(|i| format!("The cat sat on mat number {i}, and the dog sat beside it."))
            .collect();
        let tokenizer = train_language_model_bpe(&texts, 300).unwrap();
        assert_eq!(tokenizer.vocab_size(), 300);
        assert_eq!(tokenizer.special_token(END_OF_TEXT), Some(299));
        let text = "The dog sat on the mat. ☕";
        let ids: Vec<u32> = tokenizer
            .encode(text)
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert!(
            ids.iter().all(|&id| id < 299),
            "text never encodes to the special token"
        );
        assert_eq!(tokenizer.decode(&ids).unwrap(), text);
    }
}
