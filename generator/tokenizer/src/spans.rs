//! Where each token sits in the input text, as byte spans.
//!
//! Byte-level tokenizers are exact: the tokens' bytes concatenate to the input, so each
//! span follows from the byte lengths, even for tokens that split a multi-byte character.
//! Other tokenizers (or byte-level ones that normalize or add a prefix space) fall back
//! to the offsets `tokenizers` reports.

use tracebook_trace::Token;

/// The bytes every id stands for, indexed by id; present for byte-level tokenizers.
#[derive(Debug, Clone)]
pub(crate) struct TokenBytes(Vec<Vec<u8>>);

impl TokenBytes {
    pub fn new(by_id: Vec<Vec<u8>>) -> Self {
        TokenBytes(by_id)
    }

    pub fn get(&self, id: u32) -> Option<&[u8]> {
        self.0.get(id as usize).map(Vec::as_slice)
    }

    /// Number of ids the table covers.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// Spans from token byte lengths, when the tokens' bytes spell out `text` exactly.
pub(crate) fn exact_spans(text: &str, ids: &[u32], table: &TokenBytes) -> Option<Vec<Token>> {
    let input = text.as_bytes();
    let mut start = 0;
    let mut tokens = Vec::with_capacity(ids.len());
    for &id in ids {
        let bytes = table.get(id)?;
        let end = start + bytes.len();
        if input.get(start..end) != Some(bytes) {
            return None;
        }
        tokens.push(Token {
            id,
            text: String::from_utf8_lossy(bytes).into_owned(),
            start,
            end,
        });
        start = end;
    }
    (start == input.len()).then_some(tokens)
}

/// Spans as the tokenizer's offsets give them; `text` is the input those offsets cover.
pub(crate) fn offset_spans(text: &str, ids: &[u32], offsets: &[(usize, usize)]) -> Vec<Token> {
    ids.iter()
        .zip(offsets)
        .map(|(&id, &(start, end))| Token {
            id,
            text: text.get(start..end).unwrap_or_default().to_owned(),
            start,
            end,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TokenBytes {
        let robot = "🤖".as_bytes();
        TokenBytes::new(vec![
            b"a".to_vec(),
            b" b".to_vec(),
            robot[..2].to_vec(),
            robot[2..].to_vec(),
        ])
    }

    #[test]
    fn split_characters_get_byte_spans_and_lossy_text() {
        let tokens = exact_spans("a🤖 b", &[0, 2, 3, 1], &table()).expect("bytes match");
        let spans: Vec<_> = tokens.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(spans, [(0, 1), (1, 3), (3, 5), (5, 7)]);
        assert_eq!(tokens[1].text, "\u{FFFD}");
        assert_eq!(tokens[3].text, " b");
    }

    #[test]
    fn bytes_that_do_not_spell_the_input_give_none() {
        assert!(exact_spans("a b", &[0, 1], &table()).is_some());
        assert!(exact_spans("a c", &[0, 1], &table()).is_none());
        assert!(exact_spans("a b!", &[0, 1], &table()).is_none());
        assert!(exact_spans("a", &[9], &table()).is_none());
    }

    #[test]
    fn offsets_slice_the_input() {
        let tokens = offset_spans("hello world", &[7, 8], &[(0, 5), (6, 11)]);
        assert_eq!(tokens[1].text, "world");
        assert_eq!((tokens[1].start, tokens[1].end), (6, 11));
    }
}
