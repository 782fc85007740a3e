//! GPT-2's reversible map between raw bytes and printable characters (`bytes_to_unicode`).
//!
//! Byte-level vocabularies store each token as a string with one character per byte:
//! printable Latin-1 bytes stand for themselves, the other 68 bytes (controls, space,
//! DEL, NBSP, soft hyphen) are shifted to U+0100..U+0143 in byte order, so `' '` is `Ġ`
//! and `'\n'` is `Ċ`.

/// Number of bytes that GPT-2 shifts above U+00FF (0x00..=0x20, 0x7F..=0xA0, 0xAD).
const SHIFTED_BYTES: u32 = 68;

/// The character that stands for `byte` in a byte-level vocabulary.
pub(crate) fn byte_to_char(byte: u8) -> char {
    let code = match byte {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => u32::from(byte),
        0x00..=0x20 => 0x100 + u32::from(byte),
        0x7F..=0xA0 => 0x100 + 0x21 + u32::from(byte - 0x7F),
        0xAD => 0x100 + SHIFTED_BYTES - 1,
    };
    // Every code above is below U+0144, far from the surrogate range.
    char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The byte that `c` stands for, when `c` is one of the 256 byte characters.
pub(crate) fn char_to_byte(c: char) -> Option<u8> {
    let code = u32::from(c);
    match code {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => u8::try_from(code).ok(),
        0x100..=0x120 => u8::try_from(code - 0x100).ok(),
        0x121..=0x142 => u8::try_from(code - 0x121 + 0x7F).ok(),
        0x143 => Some(0xAD),
        _ => None,
    }
}

/// A byte string written as a byte-level vocabulary entry.
pub(crate) fn bytes_to_vocab_string(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| byte_to_char(b)).collect()
}

/// The bytes a byte-level vocabulary entry stands for. Entries with a character outside
/// the byte map (added tokens such as `<|im_start|>` are stored as plain text) read as
/// their own UTF-8, which is what the `tokenizers` ByteLevel decoder does too.
pub(crate) fn vocab_string_to_bytes(entry: &str) -> Vec<u8> {
    entry
        .chars()
        .map(char_to_byte)
        .collect::<Option<Vec<u8>>>()
        .unwrap_or_else(|| entry.as_bytes().to_vec())
}

/// Appends the bytes `entry` stands for when every character of it is one of the 256 byte
/// characters, and says so; otherwise leaves `out` as it was and returns false.
pub(crate) fn extend_with_entry_bytes(out: &mut Vec<u8>, entry: &str) -> bool {
    let start = out.len();
    for c in entry.chars() {
        match char_to_byte(c) {
            Some(byte) => out.push(byte),
            None => {
                out.truncate(start);
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips_through_a_distinct_char() {
        let mut seen = std::collections::HashSet::new();
        for byte in 0..=255u8 {
            let c = byte_to_char(byte);
            assert!(
                seen.insert(c),
                "byte {byte:#04x} shares {c:?} with another byte"
            );
            assert_eq!(char_to_byte(c), Some(byte), "byte {byte:#04x} via {c:?}");
        }
    }

    #[test]
    fn matches_the_characters_gpt2_vocabularies_use() {
        assert_eq!(byte_to_char(b' '), 'Ġ');
        assert_eq!(byte_to_char(b'\n'), 'Ċ');
        assert_eq!(byte_to_char(b'\t'), 'ĉ');
        assert_eq!(byte_to_char(0x00), 'Ā');
        assert_eq!(byte_to_char(0x7F), 'ġ');
        assert_eq!(byte_to_char(0xAD), 'Ń');
        assert_eq!(byte_to_char(b'a'), 'a');
        assert_eq!(bytes_to_vocab_string(b" tired"), "Ġtired");
    }

    #[test]
    fn plain_text_entries_read_as_their_utf8() {
        assert_eq!(vocab_string_to_bytes("Ġtired"), b" tired");
        assert_eq!(vocab_string_to_bytes("<|im_start|>"), b"<|im_start|>");
        assert_eq!(vocab_string_to_bytes("日本"), "日本".as_bytes());
        assert_eq!(char_to_byte('Ŀ'), Some(0x9D));
        assert_eq!(char_to_byte('ń'), None);
    }

    #[test]
    fn extending_with_an_entry_appends_its_bytes_or_nothing() {
        let mut out = b"x".to_vec();
        assert!(extend_with_entry_bytes(&mut out, "Ġtired"));
        assert_eq!(out, b"x tired");
        assert!(!extend_with_entry_bytes(&mut out, "Ġń"));
        assert_eq!(out, b"x tired");
    }
}
