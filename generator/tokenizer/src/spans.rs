//! Where each token sits in the input text, as byte spans.
//!
//! Tokenizers whose tokens' bytes are known (byte-level ones such as GPT-2's, Llama 3's and
//! Qwen's; SentencePiece-style ones such as Llama 2's, Mistral's and Gemma's, see `pieces`)
//! are exact: the tokens' bytes concatenate to the input, so each span follows from the byte
//! lengths, even for tokens that split a multi-byte character (a byte-level piece, or a
//! `<0xHH>` byte-fallback token, gets the one byte of the text it stands for). SentencePiece
//! may put a space before the text (Llama 2's dummy prefix): that space is no byte of the
//! input, so the token carrying it spans only its other bytes (none, when it is that space
//! alone). Other tokenizers, and texts a normalizer changes (Qwen's NFC on decomposed
//! accents), fall back to the offsets `tokenizers` reports, made to follow each other.

use tracebook_trace::Token;

/// The bytes every id stands for, indexed by id.
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

    /// Every id whose bytes are exactly `bytes`, in id order.
    pub fn ids_of<'a>(&'a self, bytes: &'a [u8]) -> impl Iterator<Item = u32> + 'a {
        (0u32..)
            .zip(&self.0)
            .filter(move |(_, b)| b.as_slice() == bytes)
            .map(|(id, _)| id)
    }

    fn text(&self, id: u32) -> String {
        String::from_utf8_lossy(self.get(id).unwrap_or_default()).into_owned()
    }
}

/// Spans from token byte lengths, when the tokens' bytes spell out `text` exactly, or spell
/// it after one leading space the tokenizer added.
pub(crate) fn exact_spans(text: &str, ids: &[u32], table: &TokenBytes) -> Option<Vec<Token>> {
    let input = text.as_bytes();
    let mut joined = Vec::with_capacity(input.len() + 1);
    for &id in ids {
        joined.extend_from_slice(table.get(id)?);
    }
    let added = match joined.strip_prefix(b" ") {
        _ if joined == input => 0,
        Some(rest) if rest == input => 1,
        _ => return None,
    };
    let mut at = 0;
    let tokens = ids
        .iter()
        .map(|&id| {
            let len = table.get(id).map_or(0, <[u8]>::len);
            let token = Token {
                id,
                text: table.text(id),
                start: at.max(added) - added,
                end: (at + len).max(added) - added,
            };
            at += len;
            token
        })
        .collect();
    Some(tokens)
}

/// Spans from the offsets `tokenizers` reports for `text`, made to follow each other inside
/// the text: a span starts no earlier than the one before ends. Tokens that report the same
/// offsets (the pieces of one character) share its bytes by their byte lengths when `table`
/// knows them and they add up; otherwise the first takes the character and the others get an
/// empty span after it. With a table, a token's text is its own; without, the text it covers.
pub(crate) fn offset_spans(
    text: &str,
    ids: &[u32],
    offsets: &[(usize, usize)],
    table: Option<&TokenBytes>,
) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::with_capacity(ids.len());
    let mut i = 0;
    while i < ids.len().min(offsets.len()) {
        let (start, end) = offsets[i];
        let run = offsets[i..]
            .iter()
            .take_while(|&&o| o == (start, end))
            .count();
        let lens: Option<Vec<usize>> = ids[i..i + run]
            .iter()
            .map(|&id| table.and_then(|t| t.get(id)).map(<[u8]>::len))
            .collect();
        let lens = lens.filter(|lens| lens.iter().sum::<usize>() == end.saturating_sub(start));
        let floor = tokens.last().map_or(0, |t| t.end);
        let mut at = start.max(floor).min(text.len());
        for (k, &id) in ids[i..i + run].iter().enumerate() {
            let len = match &lens {
                Some(lens) => lens[k],
                None if k == 0 => end.saturating_sub(at),
                None => 0,
            };
            let stop = (at + len).min(text.len());
            tokens.push(Token {
                id,
                text: match table {
                    Some(table) => table.text(id),
                    None => text.get(at..stop).unwrap_or_default().to_owned(),
                },
                start: at,
                end: stop,
            });
            at = stop;
        }
        i += run;
    }
    tokens
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
        let tokens = offset_spans("hello world", &[7, 8], &[(0, 5), (6, 11)], None);
        assert_eq!(tokens[1].text, "world");
        assert_eq!((tokens[1].start, tokens[1].end), (6, 11));
    }

    #[test]
    fn a_space_the_tokenizer_added_is_no_byte_of_the_text() {
        let table = TokenBytes::new(vec![b" ".to_vec(), b" a".to_vec(), b"1".to_vec()]);
        let spans = |text, ids: &[u32]| {
            exact_spans(text, ids, &table)
                .map(|tokens| tokens.iter().map(|t| (t.start, t.end)).collect::<Vec<_>>())
        };
        assert_eq!(spans("a1", &[1, 2]), Some(vec![(0, 1), (1, 2)]));
        assert_eq!(spans("1", &[0, 2]), Some(vec![(0, 0), (0, 1)]));
        assert_eq!(spans(" a", &[1]), Some(vec![(0, 2)]));
        assert_eq!(spans("1", &[0, 0, 2]), None);
        let first = exact_spans("a1", &[1, 2], &table).expect("spans");
        assert_eq!(first[0].text, " a", "a token's text is its own");
    }

    #[test]
    fn tokens_sharing_a_character_share_its_bytes() {
        let robot = "🤖".as_bytes();
        let table = TokenBytes::new(vec![
            robot[..1].to_vec(),
            robot[1..].to_vec(),
            b"x".to_vec(),
        ]);
        let text = "x🤖";
        let offsets = [(0, 1), (1, 5), (1, 5)];
        let tokens = offset_spans(text, &[2, 0, 1], &offsets, Some(&table));
        let spans: Vec<_> = tokens.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(spans, [(0, 1), (1, 2), (2, 5)]);
        let untold = offset_spans(text, &[2, 0, 1], &offsets, None);
        let spans: Vec<_> = untold.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(spans, [(0, 1), (1, 5), (5, 5)]);
        let overlapping = offset_spans("abc", &[2, 2], &[(0, 2), (1, 3)], None);
        let spans: Vec<_> = overlapping.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(spans, [(0, 2), (2, 3)]);
    }
}
