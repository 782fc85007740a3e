//! The bytes behind each token of a SentencePiece-style vocabulary (Llama 2, Mistral, Gemma).
//!
//! Such vocabularies write a space as `▁` (U+2581) and, with byte fallback, keep one token
//! per byte, spelled `<0xHH>`, for text no other piece covers (an emoji becomes four of
//! them). A token's bytes are its piece with `▁` read as a space, or the one byte a `<0xHH>`
//! token stands for; added tokens (`<s>`) stand for their own spelling. So `▁the` is `" the"`
//! and `<0x0A>` is `"\n"`, as the model reads them.

use tokenizers::{DecoderWrapper, ModelWrapper};

use crate::spans::TokenBytes;

/// The character SentencePiece writes for a space.
const METASPACE: char = '\u{2581}';

/// The bytes behind every id when `inner` decodes SentencePiece-style pieces (its decoder
/// turns `▁` back into a space); `None` for other tokenizers.
pub(crate) fn metaspace_table(inner: &tokenizers::Tokenizer) -> Option<TokenBytes> {
    if !decodes_metaspace(inner.get_decoder()?) {
        return None;
    }
    let byte_fallback = match inner.get_model() {
        ModelWrapper::BPE(bpe) => bpe.byte_fallback,
        ModelWrapper::Unigram(unigram) => unigram.byte_fallback(),
        _ => false,
    };
    let vocab = inner.get_vocab(true);
    let len = vocab.values().max().map_or(0, |&max| max as usize + 1);
    let mut by_id = vec![Vec::new(); len];
    for (piece, &id) in &vocab {
        by_id[id as usize] = piece_bytes(piece, byte_fallback);
    }
    for (id, added) in inner.get_added_tokens_decoder() {
        by_id[id as usize] = added.content.into_bytes();
    }
    Some(TokenBytes::new(by_id))
}

/// The bytes one piece stands for.
pub(crate) fn piece_bytes(piece: &str, byte_fallback: bool) -> Vec<u8> {
    match byte_fallback.then(|| fallback_byte(piece)).flatten() {
        Some(byte) => vec![byte],
        None => piece.replace(METASPACE, " ").into_bytes(),
    }
}

/// The byte a `<0xHH>` token stands for.
pub(crate) fn fallback_byte(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    (hex.len() == 2)
        .then(|| u8::from_str_radix(hex, 16).ok())
        .flatten()
}

/// Whether `decoder` turns `▁` into a space: a Metaspace decoder, or a Replace of `▁` (alone
/// or in a Sequence), as transformers writes for Llama 2, Mistral and Gemma.
fn decodes_metaspace(decoder: &DecoderWrapper) -> bool {
    match decoder {
        DecoderWrapper::Metaspace(_) => true,
        DecoderWrapper::Sequence(sequence) => sequence.get_decoders().iter().any(decodes_metaspace),
        DecoderWrapper::Replace(replace) => serde_json::to_value(replace).is_ok_and(|json| {
            json["pattern"]["String"].as_str() == Some("\u{2581}") && json["content"] == " "
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_read_as_the_text_the_model_sees() {
        assert_eq!(piece_bytes("▁the", true), b" the");
        assert_eq!(piece_bytes("▁▁▁", false), b"   ");
        assert_eq!(piece_bytes("<0x0A>", true), b"\n");
        assert_eq!(piece_bytes("<0xF0>", true), [0xF0]);
        assert_eq!(piece_bytes("<0xF0>", false), b"<0xF0>");
        assert_eq!(piece_bytes("<0x0A0>", true), b"<0x0A0>");
        assert_eq!(piece_bytes("<0xZZ>", true), b"<0xZZ>");
        assert_eq!(piece_bytes("日本", true), "日本".as_bytes());
    }
}
