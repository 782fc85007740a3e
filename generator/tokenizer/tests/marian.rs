//! Marian's tokenizer read from source.spm, target.spm and vocab.json: ids, byte spans and
//! decoded text equal to transformers' MarianTokenizer (and sentencepiece's own offsets) on
//! hard strings, source and target side. The folder is made to OPUS-MT's recipe and the
//! expected values recorded by tests/reference/make_marian_tokenizer_fixtures.py (see
//! tests/fixtures/tokenizers/README.md); no Python runs here.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use tracebook_tokenizer::{MarianSide, MarianTokenizer, TokenizerError};

#[derive(Deserialize)]
struct Fixture {
    special: Special,
    vocab_size: usize,
    source: Vec<Case>,
    target: Vec<Case>,
}

#[derive(Deserialize)]
struct Special {
    eos: u32,
    unk: u32,
    pad: u32,
}

#[derive(Deserialize)]
struct Case {
    text: String,
    ids: Vec<u32>,
    pieces: Vec<String>,
    spans: Vec<(usize, usize)>,
    decoded: String,
    decoded_skip: String,
    decoded_target_spm: Option<String>,
    decoded_skip_target_spm: Option<String>,
}

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tokenizers/marian-recipe")
}

fn fixture() -> Fixture {
    let text = std::fs::read_to_string(folder().join("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("parse expected.json")
}

fn tokenizer() -> MarianTokenizer {
    MarianTokenizer::from_dir(&folder()).expect("load marian-recipe")
}

fn sides(fixture: &Fixture) -> [(MarianSide, &[Case]); 2] {
    [
        (MarianSide::Source, &fixture.source),
        (MarianSide::Target, &fixture.target),
    ]
}

#[test]
fn ids_and_spans_equal_marian_tokenizer_on_hard_strings() {
    let fixture = fixture();
    let tokenizer = tokenizer();
    for (side, cases) in sides(&fixture) {
        assert!(cases.len() >= 50, "{side:?}: only {} strings", cases.len());
        for case in cases {
            let tokens = tokenizer.encode(&case.text, side);
            let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
            assert_eq!(ids, case.ids, "{side:?}: ids of {:?}", case.text);
            let spans: Vec<(usize, usize)> = tokens.iter().map(|t| (t.start, t.end)).collect();
            assert_eq!(spans, case.spans, "{side:?}: spans of {:?}", case.text);
            assert_eq!(
                tokens.len(),
                case.pieces.len() + 1,
                "one token per piece, then </s>"
            );
        }
    }
}

#[test]
fn decoded_text_equals_marian_tokenizer() {
    let fixture = fixture();
    let tokenizer = tokenizer();
    for (side, cases) in sides(&fixture) {
        for case in cases {
            let text = &case.text;
            let decode = |skip, model| tokenizer.decode_with(&case.ids, skip, model).expect("ids");
            assert_eq!(
                tokenizer.decode(&case.ids, false).expect("ids"),
                case.decoded
            );
            assert_eq!(
                decode(false, MarianSide::Source),
                case.decoded,
                "{side:?}: {text:?}"
            );
            assert_eq!(
                decode(true, MarianSide::Source),
                case.decoded_skip,
                "{side:?}: {text:?}"
            );
            let with_target = case.decoded_target_spm.as_ref().unwrap_or(&case.decoded);
            assert_eq!(
                &decode(false, MarianSide::Target),
                with_target,
                "{side:?}: {text:?}"
            );
            let skip_target = case
                .decoded_skip_target_spm
                .as_ref()
                .unwrap_or(&case.decoded_skip);
            assert_eq!(
                &decode(true, MarianSide::Target),
                skip_target,
                "{side:?}: {text:?}"
            );
        }
    }
}

/// Spans follow each other inside the text on character boundaries; each token's text is what
/// its id reads as; `</s>` closes every text with an empty span at its end.
#[test]
fn spans_are_in_order_inside_the_text_and_tokens_read_as_their_ids() {
    let fixture = fixture();
    let tokenizer = tokenizer();
    for (side, cases) in sides(&fixture) {
        for case in cases {
            let text = case.text.as_str();
            let tokens = tokenizer.encode(text, side);
            let mut at = 0;
            for token in &tokens {
                assert!(
                    at <= token.start && token.start <= token.end && token.end <= text.len(),
                    "{side:?}: {token:?} out of order or outside {text:?}"
                );
                assert!(text.is_char_boundary(token.start) && text.is_char_boundary(token.end));
                assert_eq!(token.text, tokenizer.token_text(token.id));
                at = token.end;
            }
            let last = tokens.last().expect("</s>");
            assert_eq!(
                (last.id, last.start, last.end),
                (fixture.special.eos, text.len(), text.len())
            );
            assert_eq!(last.text, "</s>");
        }
    }
}

#[test]
fn special_tokens_vocabulary_and_language_codes() {
    let fixture = fixture();
    let tokenizer = tokenizer();
    assert_eq!(tokenizer.eos_id(), fixture.special.eos);
    assert_eq!(tokenizer.unk_id(), fixture.special.unk);
    assert_eq!(tokenizer.pad_id(), Some(fixture.special.pad));
    assert_eq!(tokenizer.vocab_size(), fixture.vocab_size);
    assert_eq!(tokenizer.language_codes(), [">>fra<<"]);
    let code = tokenizer.encode_source(">>fra<< Hello");
    assert_eq!(
        (code[0].text.as_str(), code[0].start, code[0].end),
        (">>fra<<", 0, 7)
    );
    assert_eq!(code[1].text, " H", "the piece ▁H reads with its space");
    assert_eq!(
        code[1].start, 8,
        "the space after the code is no byte of a piece"
    );
    let unknown = tokenizer.encode_source("a 🤖🤖 b");
    let robots: Vec<_> = unknown
        .iter()
        .filter(|t| t.id == tokenizer.unk_id())
        .collect();
    assert_eq!(
        robots.len(),
        1,
        "a run of unknown characters is one <unk>: {unknown:?}"
    );
    assert_eq!(
        (robots[0].text.as_str(), robots[0].start, robots[0].end),
        ("<unk>", 2, 10)
    );
    assert!(matches!(
        tokenizer.decode(&[tokenizer.vocab_size() as u32 + 10_000], false),
        Err(TokenizerError::UnknownId { .. })
    ));
    assert!(MarianTokenizer::is_marian_dir(&folder()));
    assert!(!MarianTokenizer::is_marian_dir(
        folder().parent().expect("parent")
    ));
}

/// A SentencePiece model file (`ModelProto`) with `<unk>`, one piece, and the given extra
/// TrainerSpec fields, written in protobuf's wire format.
fn spm_file(trainer_fields: &[(u8, u8)]) -> Vec<u8> {
    fn field(number: u8, body: &[u8], out: &mut Vec<u8>) {
        out.push(number << 3 | 2);
        out.push(body.len() as u8);
        out.extend_from_slice(body);
    }
    let mut model = Vec::new();
    field(1, b"\x0a\x05<unk>\x18\x02", &mut model);
    field(1, b"\x0a\x01a\x15\x00\x00\x80\xbf", &mut model);
    let trainer: Vec<u8> = trainer_fields
        .iter()
        .flat_map(|&(number, value)| {
            let key = u16::from(number) << 3;
            let mut bytes = if key < 0x80 {
                vec![key as u8]
            } else {
                vec![(key as u8) | 0x80, (key >> 7) as u8]
            };
            bytes.push(value);
            bytes
        })
        .collect();
    field(2, &trainer, &mut model);
    model
}

#[test]
fn unsupported_and_broken_models_are_refused_by_name() {
    let fixtures = folder();
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("bpe", spm_file(&[(3, 2)]), "Bpe model"),
        ("byte fallback", spm_file(&[(35, 1)]), "byte_fallback"),
        ("suffix", spm_file(&[(24, 1)]), "treat_whitespace_as_suffix"),
        (
            "cut off",
            spm_file(&[])[..9].to_vec(),
            "not a valid SentencePiece model",
        ),
    ];
    for (what, bytes, expected) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        for file in ["vocab.json", "tokenizer_config.json", "target.spm"] {
            std::fs::copy(fixtures.join(file), dir.path().join(file)).expect("copy");
        }
        let source = dir.path().join("source.spm");
        std::fs::write(&source, bytes).expect("write");
        let message = MarianTokenizer::from_dir(dir.path())
            .expect_err(what)
            .to_string();
        assert!(message.contains(expected), "{what}: {message}");
        assert!(
            message.contains(&source.display().to_string()),
            "{what}: names the file"
        );
    }
    let plain = tempfile::tempdir().expect("temp dir");
    for file in ["vocab.json", "source.spm", "target.spm"] {
        std::fs::copy(fixtures.join(file), plain.path().join(file)).expect("copy");
    }
    MarianTokenizer::from_dir(plain.path()).expect("tokenizer_config.json is optional");
    let separate = plain.path().join("tokenizer_config.json");
    std::fs::write(&separate, r#"{"separate_vocabs": true}"#).expect("write");
    let message = MarianTokenizer::from_dir(plain.path())
        .expect_err("separate")
        .to_string();
    assert!(message.contains("separate_vocabs"), "{message}");
    std::fs::remove_file(plain.path().join("target.spm")).expect("remove");
    std::fs::remove_file(&separate).expect("remove");
    let message = MarianTokenizer::from_dir(plain.path())
        .expect_err("missing")
        .to_string();
    assert!(message.contains("target.spm"), "{message}");
}
