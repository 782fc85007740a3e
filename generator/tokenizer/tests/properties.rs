//! Property tests of the built-in GPT-2 tokenizer on arbitrary UTF-8: decoding the ids
//! gives the text back, the spans tile the text, and the ids agree with tiktoken's r50k.

use proptest::prelude::*;
use std::sync::OnceLock;
use tracebook_tokenizer::Tokenizer;

fn tokenizer() -> &'static Tokenizer {
    static TOKENIZER: OnceLock<Tokenizer> = OnceLock::new();
    TOKENIZER.get_or_init(|| Tokenizer::builtin_gpt2().expect("built-in tokenizer"))
}

fn r50k() -> &'static tiktoken_rs::CoreBPE {
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::r50k_base().expect("r50k ranks"))
}

/// Any UTF-8, and text weighted towards what trips byte-level BPE: spaces, newlines,
/// contractions, digits, emoji and combining marks.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ \\n\\ta-zA-Z0-9'.,!?éß日本🫠\u{301}\u{200d}-]{0,60}",
        prop::collection::vec(
            prop::sample::select(vec![
                " ",
                "  ",
                "\n",
                "\n\n",
                "'s",
                "'ll",
                "don't",
                "123",
                "4.5",
                "🫠",
                "👩‍💻",
                "e\u{301}",
                "fn main() {",
                "\t",
                "\u{0}",
                "\u{feff}",
                "Hello",
                " world",
                "ünï",
                "—",
            ]),
            0..20,
        )
        .prop_map(|parts| parts.concat()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn decode_of_encode_is_the_text(text in text()) {
        let tokens = tokenizer().encode(&text).unwrap();
        let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
        prop_assert_eq!(tokenizer().decode(&ids).unwrap(), text.clone());
        let mut at = 0;
        for token in &tokens {
            prop_assert_eq!(token.start, at);
            prop_assert!(token.end > token.start);
            at = token.end;
        }
        prop_assert_eq!(at, text.len());
    }

    #[test]
    fn ids_agree_with_tiktoken(text in text()) {
        let ours: Vec<u32> = tokenizer().encode(&text).unwrap().iter().map(|t| t.id).collect();
        let theirs: Vec<u32> = r50k().encode_ordinary(&text);
        prop_assert_eq!(ours, theirs);
    }
}
