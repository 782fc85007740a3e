//! The built-in tokenizer gives exactly the ids tiktoken's r50k_base `encode_ordinary` gives.

mod common;

use tracebook_tokenizer::Tokenizer;

#[test]
fn builtin_matches_tiktoken_encode_ordinary_token_for_token() {
    let ours = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let reference = tiktoken_rs::r50k_base().expect("tiktoken r50k_base");
    let corpus = common::corpus();
    assert!(
        corpus.len() >= 1000,
        "corpus has only {} strings",
        corpus.len()
    );

    let mut mismatches = Vec::new();
    for text in &corpus {
        let expected = reference.encode_ordinary(text);
        let got: Vec<u32> = ours
            .encode(text)
            .unwrap_or_else(|e| panic!("encoding {text:?}: {e}"))
            .iter()
            .map(|t| t.id)
            .collect();
        if got != expected {
            mismatches.push(format!(
                "{text:?}\n  ours:     {got:?}\n  tiktoken: {expected:?}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} strings differ from tiktoken:\n{}",
        mismatches.len(),
        corpus.len(),
        mismatches.join("\n")
    );
}

#[test]
fn the_whole_corpus_as_one_text_matches_too() {
    let ours = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let reference = tiktoken_rs::r50k_base().expect("tiktoken r50k_base");
    let text = common::corpus().join("\n");
    let got: Vec<u32> = ours
        .encode(&text)
        .expect("encode")
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(got, reference.encode_ordinary(&text));
}

#[test]
fn endoftext_in_prompt_text_is_ordinary_text() {
    let ours = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let reference = tiktoken_rs::r50k_base().expect("tiktoken r50k_base");
    let text = "Hello<|endoftext|>World";
    let ids: Vec<u32> = ours
        .encode(text)
        .expect("encode")
        .iter()
        .map(|t| t.id)
        .collect();
    assert!(!ids.contains(&50256), "special token recognised in {ids:?}");
    assert_eq!(ids, reference.encode_ordinary(text));
    assert_eq!(ours.single_token("<|endoftext|>"), None);
}

#[test]
fn every_token_reads_as_tiktoken_decodes_it() {
    let ours = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let reference = tiktoken_rs::r50k_base().expect("tiktoken r50k_base");
    assert_eq!(ours.vocab_size(), 50257);
    for id in 0..50257u32 {
        let bytes = reference
            .decode_bytes(&[id])
            .expect("tiktoken knows the id");
        assert_eq!(
            ours.token_text(id),
            String::from_utf8_lossy(&bytes),
            "id {id}"
        );
    }
    assert_eq!(ours.token_text(50256), "<|endoftext|>");
    assert_eq!(ours.token_text(50257), "");
}
