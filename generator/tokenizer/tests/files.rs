//! Saving and loading `tokenizer.json` files, and the errors a bad file gives.

mod common;

use std::path::Path;

use tokenizers::models::wordlevel::WordLevel;
use tokenizers::pre_tokenizers::whitespace::Whitespace;
use tracebook_tokenizer::{Tokenizer, TokenizerSource};

fn builtin() -> Tokenizer {
    Tokenizer::builtin_gpt2().expect("built-in tokenizer")
}

#[test]
fn a_saved_tokenizer_loads_back_with_identical_encodings() {
    let original = builtin();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tokenizer.json");
    std::fs::write(&path, original.to_json().expect("to_json")).expect("write");

    let loaded = Tokenizer::from_file(&path).expect("load saved tokenizer");
    assert_eq!(loaded.source(), &TokenizerSource::File(path.clone()));
    assert_eq!(loaded.vocab_size(), original.vocab_size());
    for text in common::corpus() {
        assert_eq!(
            loaded.encode(&text).expect("encode loaded"),
            original.encode(&text).expect("encode original"),
            "for {text:?}"
        );
    }
    assert_eq!(
        loaded.to_json().expect("to_json"),
        original.to_json().expect("to_json")
    );
}

#[test]
fn a_model_dir_uses_its_tokenizer_json_or_the_builtin() {
    let dir = tempfile::tempdir().expect("temp dir");
    let in_empty = Tokenizer::for_model_dir(dir.path()).expect("built-in fallback");
    assert_eq!(in_empty.source(), &TokenizerSource::BuiltinGpt2);

    let path = dir.path().join("tokenizer.json");
    std::fs::write(&path, builtin().to_json().expect("to_json")).expect("write");
    let from_dir = Tokenizer::for_model_dir(dir.path()).expect("load from dir");
    assert_eq!(from_dir.source(), &TokenizerSource::File(path));
}

#[test]
fn a_missing_file_is_an_error_naming_the_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("nowhere").join("tokenizer.json");
    let err = Tokenizer::from_file(&path).expect_err("missing file");
    assert_mentions_path(&err.to_string(), &path);
}

#[test]
fn a_corrupt_file_is_an_error_naming_the_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, content) in [
        ("truncated.json", "{\"version\": \"1.0\", \"model\": {"),
        ("not-a-tokenizer.json", "{\"hello\": \"world\"}"),
        ("binary.json", "\u{0}\u{1}\u{2}"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, content).expect("write");
        let err = Tokenizer::from_file(&path).expect_err("corrupt file");
        let message = err.to_string();
        assert_mentions_path(&message, &path);
        assert!(message.contains("not a valid tokenizer.json"), "{message}");
    }
}

fn assert_mentions_path(message: &str, path: &Path) {
    assert!(
        message.contains(&path.display().to_string()),
        "error does not name {}: {message}",
        path.display()
    );
}

#[test]
fn a_word_level_tokenizer_gets_spans_from_offsets() {
    let vocab = [("hello", 0), ("world", 1), ("[UNK]", 2)]
        .into_iter()
        .map(|(w, id)| (w.to_owned(), id))
        .collect();
    let model = WordLevel::builder()
        .vocab(vocab)
        .unk_token("[UNK]".to_owned())
        .build()
        .expect("word-level model");
    let mut words = tokenizers::Tokenizer::new(model);
    words.with_pre_tokenizer(Some(Whitespace));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tokenizer.json");
    words.save(&path, false).expect("save");

    let loaded = Tokenizer::from_file(&path).expect("load word-level tokenizer");
    let tokens = loaded.encode("hello  world").expect("encode");
    let summary: Vec<_> = tokens
        .iter()
        .map(|t| (t.id, t.text.as_str(), t.start, t.end))
        .collect();
    assert_eq!(summary, [(0, "hello", 0, 5), (1, "world", 7, 12)]);
    assert_eq!(loaded.single_token("world"), Some(1));
}
