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

/// A byte-level BPE of `vocab_size` tokens (`special` ones first, ids 0, 1, ...) trained on
/// `texts`.
pub fn train_byte_level_bpe(
    texts: &[String],
    vocab_size: usize,
    special: &[&str],
) -> Result<Tokenizer, TokenizerError> {
    let failed = |e: tokenizers::Error| TokenizerError::Parse {
        path: "trained tokenizer".into(),
        message: e.to_string(),
    };
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
    let json = inner.to_string(false).map_err(failed)?;
    Tokenizer::from_json(&json, Path::new("tokenizer.json"))
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
}
