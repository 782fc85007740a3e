//! `Vocab` finds the same id for a token's text as the full tokenizer, for every token of
//! GPT-2, built in or read back from a saved tokenizer.json.

mod common;

use std::path::Path;

use tracebook_tokenizer::{Tokenizer, TokenizerError, TokenizerSource, Vocab};

const GPT2_VOCAB_SIZE: u32 = 50257;

/// Each r50k_base id with its bytes, straight from tiktoken (independent of our embedding).
fn reference_tokens() -> Vec<(u32, Vec<u8>)> {
    let bpe = tiktoken_rs::r50k_base().expect("tiktoken r50k_base");
    (0..GPT2_VOCAB_SIZE)
        .map(|id| (id, bpe.decode_bytes(&[id]).expect("every rank decodes")))
        .collect()
}

#[test]
fn every_whole_utf8_gpt2_token_is_found_by_its_text() {
    let vocab = Vocab::builtin_gpt2().expect("built-in vocab");
    assert_eq!(vocab.source(), &TokenizerSource::BuiltinGpt2);
    let mut nameable = 0;
    for (id, bytes) in reference_tokens() {
        if let Ok(text) = String::from_utf8(bytes) {
            assert_eq!(vocab.id(&text), Some(id), "token {id} {text:?}");
            nameable += 1;
        }
    }
    assert!(nameable > 49_000, "only {nameable} tokens are whole UTF-8");
    assert_eq!(
        vocab.texts().count(),
        nameable,
        "texts beyond the vocabulary"
    );
    assert_eq!(vocab.id("<|endoftext|>"), Some(50256));
    assert_eq!(vocab.id(" tired"), Some(10032));
    assert_eq!(vocab.id(" peace and quiet"), None);
    assert_eq!(vocab.id(""), None);
}

#[test]
fn agrees_with_single_token_wherever_that_finds_one() {
    let tokenizer = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    let vocab = Vocab::builtin_gpt2().expect("built-in vocab");
    let mut found = 0;
    for text in common::corpus()
        .iter()
        .flat_map(|t| t.split_inclusive(' '))
        .chain([" dogs", "dogs", "\n\n", "   ", "日本"])
    {
        if let Some(id) = tokenizer.single_token(text) {
            assert_eq!(vocab.id(text), Some(id), "{text:?}");
            found += 1;
        }
    }
    assert!(found > 100, "only {found} single tokens in the corpus");
}

#[test]
fn a_saved_tokenizer_json_gives_the_ids_of_the_tokenizer_it_loads_as() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tokenizer.json");
    let builtin = Tokenizer::builtin_gpt2().expect("built-in tokenizer");
    std::fs::write(&path, builtin.to_json().expect("to_json")).expect("write");

    let tokenizer = Tokenizer::from_file(&path).expect("load tokenizer");
    let vocab = Vocab::from_file(&path).expect("load vocab");
    assert_eq!(vocab.source(), &TokenizerSource::File(path.clone()));
    let mut nameable = 0;
    for id in 0..tokenizer.vocab_size() as u32 {
        let text = tokenizer.token_text(id);
        if !text.contains('\u{FFFD}') {
            assert_eq!(vocab.id(&text), Some(id), "token {id} {text:?}");
            nameable += 1;
        }
    }
    // token_text shows partial characters as U+FFFD, so the few tokens that really spell
    // U+FFFD were skipped above; the built-in vocabulary (checked on every id) counts them.
    assert!(nameable > 49_000, "only {nameable} tokens are whole UTF-8");
    let builtin_texts = Vocab::builtin_gpt2()
        .expect("built-in vocab")
        .texts()
        .count();
    assert_eq!(vocab.texts().count(), builtin_texts);
}

#[test]
fn a_model_dir_uses_its_tokenizer_json_or_the_builtin() {
    let dir = tempfile::tempdir().expect("temp dir");
    let builtin = Vocab::for_model_dir(dir.path()).expect("built-in fallback");
    assert_eq!(builtin.source(), &TokenizerSource::BuiltinGpt2);
    let path = write(
        dir.path(),
        "tokenizer.json",
        &byte_level_json(r#"{"a": 0}"#, "[]"),
    );
    let from_dir = Vocab::for_model_dir(dir.path()).expect("load from dir");
    assert_eq!(from_dir.source(), &TokenizerSource::File(path));
    assert_eq!(from_dir.id("a"), Some(0));
}

/// "ÅĦ" is the byte-level spelling of the bytes C5 84, which are "ń"; the entry "ń" has a
/// character outside the byte map, so it reads as plain text and spells "ń" too. Encoding
/// "ń" gives the byte-level entry, so that is the one `id` returns.
#[test]
fn byte_level_entries_win_over_plain_text_and_added_tokens() {
    let dir = tempfile::tempdir().expect("temp dir");
    let vocab = r#"{"ń": 0, "ÅĦ": 1, "a": 2, "Ã": 3, "Ġb": 4}"#;
    let added = r#"[{"id": 5, "content": "<|x|>"}, {"id": 6, "content": "a"}]"#;
    let path = write(dir.path(), "tokenizer.json", &byte_level_json(vocab, added));
    let vocab = Vocab::from_file(&path).expect("load vocab");
    assert_eq!(vocab.id("ń"), Some(1));
    assert_eq!(vocab.id("a"), Some(2));
    assert_eq!(vocab.id(" b"), Some(4));
    assert_eq!(vocab.id("<|x|>"), Some(5));
    assert_eq!(vocab.id("Ã"), None, "a lone byte C3 is not text");
    let mut texts: Vec<&str> = vocab.texts().collect();
    texts.sort_unstable();
    assert_eq!(texts, [" b", "<|x|>", "a", "ń"]);
}

#[test]
fn a_tokenizer_that_is_not_byte_level_is_refused_by_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = r#"{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"},
                   "decoder": null, "added_tokens": []}"#;
    let path = write(dir.path(), "tokenizer.json", json);
    let err = Vocab::from_file(&path).expect_err("word-level file");
    assert!(
        matches!(&err, TokenizerError::NotByteLevel { decoder, .. } if decoder == "none"),
        "{err}"
    );
    assert_mentions_path(&err.to_string(), &path);
}

#[test]
fn missing_and_corrupt_files_are_errors_naming_the_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("nowhere").join("tokenizer.json");
    let err = Vocab::from_file(&missing).expect_err("missing file");
    assert!(matches!(err, TokenizerError::Read { .. }), "{err}");
    assert_mentions_path(&err.to_string(), &missing);
    for (name, content) in [
        ("truncated.json", "{\"version\": \"1.0\", \"model\": {"),
        ("not-a-tokenizer.json", "{\"hello\": \"world\"}"),
        (
            "unigram.json",
            r#"{"model": {"type": "Unigram", "vocab": [["a", -1.0]]}}"#,
        ),
    ] {
        let path = write(dir.path(), name, content);
        let err = Vocab::from_file(&path).expect_err("corrupt file");
        assert!(matches!(err, TokenizerError::Parse { .. }), "{name}: {err}");
        assert_mentions_path(&err.to_string(), &path);
    }
}

fn byte_level_json(vocab: &str, added: &str) -> String {
    format!(
        r#"{{"added_tokens": {added}, "decoder": {{"type": "ByteLevel"}},
            "model": {{"type": "BPE", "vocab": {vocab}, "merges": []}}}}"#
    )
}

fn write(dir: &Path, name: &str, content: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write");
    path
}

fn assert_mentions_path(message: &str, path: &Path) {
    assert!(
        message.contains(&path.display().to_string()),
        "error does not name {}: {message}",
        path.display()
    );
}
