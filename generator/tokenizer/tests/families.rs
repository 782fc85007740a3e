//! The Llama family's tokenizer schemes, read from tokenizer.json as Hugging Face reads them:
//! ids equal to `tokenizers`/`transformers` on hard strings (whitespace runs, digits, emoji,
//! CJK, accents, special-token spellings read as text), and spans and token texts that make
//! sense for byte-fallback tokens. Files and expected ids come from
//! tests/reference/make_tokenizer_fixtures.py (tests/fixtures/tokenizers/README.md says which
//! files are real and which are made to a family's recipe).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use tracebook_tokenizer::{Token, Tokenizer, TokenizerError, Vocab};

#[derive(Deserialize)]
struct Fixture {
    tokenizers: std::collections::BTreeMap<String, Vec<Case>>,
}

#[derive(Deserialize)]
struct Case {
    text: String,
    ids: Vec<u32>,
    decoded: String,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tokenizers")
}

fn fixture() -> Fixture {
    let path = fixtures().join("expected.json");
    let text = std::fs::read_to_string(&path).expect("read expected.json");
    serde_json::from_str(&text).expect("parse expected.json")
}

fn load(name: &str) -> Tokenizer {
    Tokenizer::from_file(&fixtures().join(name).join("tokenizer.json"))
        .unwrap_or_else(|e| panic!("load {name}: {e}"))
}

const SENTENCEPIECE: [&str; 3] = ["mistral-7b-v0.1", "llama2-recipe", "gemma-recipe"];
const BYTE_LEVEL: [&str; 2] = ["llama3-recipe", "qwen2-recipe"];

#[test]
fn ids_and_decoded_text_equal_hugging_face_on_hard_strings() {
    let fixture = fixture();
    assert_eq!(fixture.tokenizers.len(), 5, "one entry per tokenizer file");
    for (name, cases) in &fixture.tokenizers {
        let tokenizer = load(name);
        assert!(cases.len() > 40, "{name}: only {} cases", cases.len());
        for case in cases {
            let tokens = tokenizer.encode(&case.text).expect("encode");
            let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
            assert_eq!(ids, case.ids, "{name}: ids of {:?}", case.text);
            let decoded = tokenizer.decode(&ids).expect("decode");
            assert_eq!(decoded, case.decoded, "{name}: decode of {:?}", case.text);
        }
    }
}

/// Spans lie inside the text, in order, without overlap, and each token's text is its own
/// (`token_text`). Where the tokens' bytes spell the text (all but the few texts a normalizer
/// changes, or that spell `▁` itself), the spans tile it and each token covers exactly its
/// bytes, the one space SentencePiece adds in front excepted.
#[test]
fn spans_and_token_texts_are_sane_for_every_scheme() {
    for (name, cases) in fixture().tokenizers {
        let tokenizer = load(&name);
        let mut inexact = Vec::new();
        for case in &cases {
            let text = &case.text;
            let tokens = tokenizer.encode(text).expect("encode");
            let mut at = 0;
            for token in &tokens {
                assert!(
                    token.start >= at && token.end >= token.start && token.end <= text.len(),
                    "{name}: span of {token:?} out of order or outside {text:?}"
                );
                assert_eq!(
                    token.text,
                    tokenizer.token_text(token.id),
                    "{name}: {text:?}"
                );
                at = token.end;
            }
            if !tiles(text, &tokens) {
                inexact.push(text.as_str());
            }
        }
        let expected: &[&str] = match name.as_str() {
            // NFC composes the accents, so the tokens' bytes are not the text's.
            "qwen2-recipe" => &["cafe\u{301}", "A\u{30a}ngstro\u{308}m"],
            "llama3-recipe" => &[],
            // A `▁` in the text reads back as a space.
            _ => &["\u{2581}the"],
        };
        assert_eq!(inexact, expected, "{name}: spans that do not tile the text");
    }
}

/// Whether `tokens` cover `text` end to end, each exactly its own bytes (U+FFFD standing for
/// the one byte of a partial character), the first after one space the tokenizer added when
/// the tokens hold one byte more than the text.
fn tiles(text: &str, tokens: &[Token]) -> bool {
    let own_len = |t: &Token| {
        if t.text == "\u{FFFD}" {
            1
        } else {
            t.text.len()
        }
    };
    let added = tokens.iter().map(own_len).sum::<usize>() == text.len() + 1;
    let mut at = 0;
    for (i, token) in tokens.iter().enumerate() {
        let own = match token.text.strip_prefix(' ') {
            Some(rest) if i == 0 && added => rest,
            _ => token.text.as_str(),
        };
        let covered = &text.as_bytes()[token.start..token.end];
        let partial = own == "\u{FFFD}" && token.end - token.start == 1;
        if token.start != at || !(partial || covered == own.as_bytes()) {
            return false;
        }
        at = token.end;
    }
    at == text.len()
}

#[test]
fn an_emoji_in_byte_tokens_gets_one_byte_each() {
    for name in SENTENCEPIECE.iter().chain(&BYTE_LEVEL) {
        let tokenizer = load(name);
        let text = "a🫠b";
        let tokens = tokenizer.encode(text).expect("encode");
        let melting: Vec<&Token> = tokens
            .iter()
            .filter(|t| t.start >= 1 && t.end <= 5 && t.end > t.start)
            .collect();
        let spans: Vec<(usize, usize)> = melting.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(
            spans,
            [(1, 2), (2, 3), (3, 4), (4, 5)],
            "{name}: {tokens:?}"
        );
        assert!(melting.iter().all(|t| t.text == "\u{FFFD}"), "{name}");
    }
}

#[test]
fn sentencepiece_tokens_read_with_their_space_and_bytes() {
    for name in SENTENCEPIECE {
        let tokenizer = load(name);
        let tokens = tokenizer.encode("I saw the cat").expect("encode");
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        assert!(
            texts.contains(&" the") || texts.contains(&" t"),
            "{name}: {texts:?}"
        );
        assert!(texts.iter().all(|t| !t.contains('\u{2581}')), "{name}");
        let newline = tokenizer.single_token("\n").expect("a newline token");
        assert_eq!(tokenizer.token_text(newline), "\n", "{name}");
        let space = tokenizer.single_token(" ").expect("a space token");
        assert_eq!(tokenizer.token_text(space), " ", "{name}");
    }
    let mistral = load("mistral-7b-v0.1");
    let the = mistral
        .single_token(" the")
        .expect("▁the is one Mistral token");
    assert_eq!(mistral.token_text(the), " the");
    let tired = mistral
        .single_token(" tired")
        .expect("▁tired is one Mistral token");
    assert_eq!(mistral.token_text(tired), " tired");
    assert_ne!(mistral.single_token("the"), Some(the));
    assert_eq!(mistral.single_token(" the cat"), None);
    assert_eq!(mistral.single_token(""), None);
    // Mistral's pieces cover the first token's added space: "Hello" is read as "▁Hello".
    let hello = mistral.encode("Hello").expect("encode");
    assert_eq!(
        (hello[0].text.as_str(), hello[0].start, hello[0].end),
        (" Hello", 0, 5)
    );
}

#[test]
fn single_token_finds_the_token_encoding_gives() {
    for name in SENTENCEPIECE.iter().chain(&BYTE_LEVEL) {
        let tokenizer = load(name);
        for text in ["The robots will bring us tea.", "Hello world, 2026"] {
            for token in tokenizer.encode(text).expect("encode") {
                if token.text.contains('\u{FFFD}') {
                    continue;
                }
                assert_eq!(
                    tokenizer.single_token(&token.text),
                    Some(token.id),
                    "{name}: {token:?}"
                );
            }
        }
        assert_eq!(tokenizer.single_token("robots will bring"), None, "{name}");
    }
}

#[test]
fn the_vocabulary_finds_what_single_token_finds() {
    for name in SENTENCEPIECE.iter().chain(&BYTE_LEVEL) {
        let tokenizer = load(name);
        let vocab = Vocab::from_file(&fixtures().join(name).join("tokenizer.json"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut found = 0;
        for case in fixture().tokenizers[*name].iter() {
            for token in tokenizer.encode(&case.text).expect("encode") {
                if let Some(id) = tokenizer.single_token(&token.text) {
                    assert_eq!(vocab.id(&token.text), Some(id), "{name}: {token:?}");
                    found += 1;
                }
            }
        }
        assert!(found > 100, "{name}: only {found} tokens found by text");
    }
    let mistral = Vocab::from_file(&fixtures().join("mistral-7b-v0.1/tokenizer.json"))
        .expect("Mistral's vocabulary");
    assert_eq!(
        mistral.id(" tired"),
        load("mistral-7b-v0.1").single_token(" tired")
    );
    assert_eq!(mistral.id("\n"), Some(13), "<0x0A>");
    assert_eq!(mistral.text(13), Some("\n"));
}

#[test]
fn byte_level_families_replay_their_merges_and_sentencepiece_ones_do_not() {
    let qwen = load("qwen2-recipe");
    let text = "The robots will bring us tea.";
    let merges = qwen.merges(text, &qwen.encode(text).expect("encode"));
    assert!(!merges.is_empty(), "qwen2-recipe merges");
    let mistral = load("mistral-7b-v0.1");
    assert!(mistral
        .merges(text, &mistral.encode(text).expect("encode"))
        .is_empty());
}

#[test]
fn a_folder_with_only_tokenizer_model_names_the_conversion_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("tokenizer.model"), b"not read").expect("write");
    let err = Tokenizer::for_model_dir(dir.path()).expect_err("tokenizer.model only");
    assert!(
        matches!(err, TokenizerError::SentencePieceOnly { .. }),
        "{err}"
    );
    let message = err.to_string();
    let folder = dir.path().display().to_string();
    assert!(message.contains(&folder), "{message}");
    assert!(
        message.contains(&format!(
            "AutoTokenizer.from_pretrained('{folder}').save_pretrained('{folder}')"
        )),
        "{message}"
    );
    let vocab_err = Vocab::for_model_dir(dir.path()).expect_err("tokenizer.model only");
    assert_eq!(vocab_err.to_string(), message);

    let json = fixtures().join("gemma-recipe/tokenizer.json");
    std::fs::copy(json, dir.path().join("tokenizer.json")).expect("copy");
    let loaded = Tokenizer::for_model_dir(dir.path()).expect("tokenizer.json wins");
    assert_eq!(loaded.vocab_size(), load("gemma-recipe").vocab_size());
}
