//! Byte-pair encoding replayed merge by merge ends at the tokens the tokenizer gives.

mod common;

use std::path::Path;
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::WordMerges;

/// The parts of `word` after each of its merges, as text.
fn steps(tokenizer: &Tokenizer, word: &WordMerges) -> Vec<Vec<String>> {
    let mut parts = word.bytes.clone();
    let text = |parts: &[u32]| parts.iter().map(|&id| tokenizer.token_text(id)).collect();
    let mut out = vec![text(&parts)];
    for merge in &word.merges {
        parts.splice(merge.at..merge.at + 2, [merge.id]);
        out.push(text(&parts));
    }
    out
}

#[test]
fn every_word_of_the_corpus_replays_to_its_tokens() {
    let tokenizer = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    for text in common::corpus() {
        let tokens = tokenizer.encode(&text).expect("encode");
        let words = tokenizer.merges(&text, &tokens);
        let covered: usize = words.iter().map(|w| w.end - w.start).sum();
        assert_eq!(covered, text.len(), "a word of {text:?} did not replay");
        for word in &words {
            let mut parts = word.bytes.clone();
            assert_eq!(parts.len(), word.end - word.start);
            for merge in &word.merges {
                parts.splice(merge.at..merge.at + 2, [merge.id]);
            }
            let expected: Vec<u32> = tokens
                .iter()
                .filter(|t| t.start >= word.start && t.end <= word.end)
                .map(|t| t.id)
                .collect();
            assert_eq!(parts, expected, "in {text:?}");
        }
    }
}

#[test]
fn photosynthesis_is_built_from_photos_and_ynthesis() {
    let tokenizer = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let text = "like photosynthesis";
    let tokens = tokenizer.encode(text).unwrap();
    let words = tokenizer.merges(text, &tokens);
    assert_eq!(words.len(), 2);
    let word = &words[1];
    assert_eq!((word.start, word.end), (4, 19));
    let steps = steps(&tokenizer, word);
    assert_eq!(steps.first().unwrap().len(), 15);
    assert_eq!(steps.last().unwrap(), &[" photos", "ynthesis"]);
    // The first merge is the rule of lowest rank among the word's merges.
    let first = word.merges.iter().map(|m| m.rank).min().unwrap();
    assert_eq!(word.merges[0].rank, first);
    // GPT-2's ids are 256 + rank for every merged token.
    assert!(word.merges.iter().all(|m| m.id == m.rank + 256));
}

#[test]
fn a_tokenizer_json_replays_as_the_builtin_does() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/tracebook-tiny-en/tokenizer.json");
    let file = Tokenizer::from_file(&path).expect("the example model's tokenizer");
    let builtin = Tokenizer::builtin_gpt2().unwrap();
    let text = "Tokenization splits unfamiliar words like photosynthesis";
    let tokens = file.encode(text).unwrap();
    assert_eq!(
        file.merges(text, &tokens),
        builtin.merges(text, &builtin.encode(text).unwrap())
    );
}
