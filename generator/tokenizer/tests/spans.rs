//! Token spans cover the input exactly and decoding gives the input back.

mod common;

use tracebook_tokenizer::Tokenizer;

#[test]
fn spans_tile_the_input_and_decode_round_trips() {
    let tokenizer = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    for text in common::corpus() {
        let tokens = tokenizer.encode(&text).expect("encode");
        let mut at = 0;
        for token in &tokens {
            assert_eq!(
                token.start, at,
                "gap or overlap before {token:?} in {text:?}"
            );
            assert!(token.end > token.start, "empty token {token:?} in {text:?}");
            let bytes = &text.as_bytes()[token.start..token.end];
            assert_eq!(token.text, String::from_utf8_lossy(bytes), "in {text:?}");
            assert_eq!(token.text, tokenizer.token_text(token.id), "in {text:?}");
            at = token.end;
        }
        assert_eq!(at, text.len(), "spans stop short of the end of {text:?}");
        let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
        assert_eq!(tokenizer.decode(&ids).expect("decode"), text);
    }
}

#[test]
fn a_token_that_splits_a_character_gets_its_own_bytes() {
    let tokenizer = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let text = "a🫠b";
    let tokens = tokenizer.encode(text).expect("encode");
    let partial: Vec<_> = tokens
        .iter()
        .filter(|t| !text.is_char_boundary(t.start) || !text.is_char_boundary(t.end))
        .collect();
    assert!(
        !partial.is_empty(),
        "expected 🫠 split over tokens, got {tokens:?}"
    );
    assert!(
        partial.iter().all(|t| t.text.contains('\u{FFFD}')),
        "{partial:?}"
    );
}

#[test]
fn single_token_recognises_whole_tokens_only() {
    let tokenizer = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let tired = tokenizer
        .single_token(" tired")
        .expect(" tired is one GPT-2 token");
    assert_eq!(tokenizer.token_text(tired), " tired");
    assert_eq!(tokenizer.single_token(" unbelievably tired"), None);
    assert_eq!(tokenizer.single_token(""), None);
    assert_eq!(tokenizer.single_token("tired "), None);
}

#[test]
fn decode_rejects_ids_outside_the_vocabulary() {
    let tokenizer = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    assert_eq!(tokenizer.decode(&[50256]).expect("decode"), "<|endoftext|>");
    let err = tokenizer
        .decode(&[464, 50257])
        .expect_err("50257 is out of range");
    assert!(err.to_string().contains("50257"), "{err}");
}
