//! SentencePiece's normalizer (`normalizer.cc`), with the map from each normalized byte back to
//! the input byte it came from, so every piece gets a span of the original text.
//!
//! The rules live in the model's `precompiled_charsmap`: a darts-clone double-array trie over
//! input bytes whose values point into a block of `\0`-terminated replacements (nmt_nfkc:
//! NFKC, plus control characters dropped and odd spaces made plain). At each position the
//! longest rule that matches wins, as in sentencepiece; `tokenizers`' `Precompiled` instead
//! matches grapheme by grapheme and takes the shortest rule, which differs on rare inputs
//! (`ﬁ` followed by a combining accent), so the trie is walked here.

/// The character SentencePiece writes for a space.
pub(crate) const SPACE: &str = "\u{2581}";

/// A model's normalization rules and whitespace options.
#[derive(Debug, Clone)]
pub(crate) struct Normalizer {
    charsmap: Option<CharsMap>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
}

/// Normalized text and, for each of its bytes and one past the end, the input byte offset it
/// came from (sentencepiece's `norm_to_orig`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Normalized {
    pub text: String,
    pub to_input: Vec<usize>,
}

impl Normalizer {
    pub fn new(
        charsmap: &[u8],
        add_dummy_prefix: bool,
        remove_extra_whitespaces: bool,
        escape_whitespaces: bool,
    ) -> Result<Normalizer, String> {
        let charsmap = if charsmap.is_empty() {
            None
        } else {
            Some(CharsMap::parse(charsmap)?)
        };
        Ok(Normalizer {
            charsmap,
            add_dummy_prefix,
            remove_extra_whitespaces,
            escape_whitespaces,
        })
    }

    /// `input` normalized as sentencepiece's `Normalizer::Normalize` does it: rules applied
    /// longest match first, leading, trailing and repeated spaces dropped, a space put in front
    /// (the dummy prefix), spaces written as `▁`.
    pub fn normalize(&self, input: &str) -> Normalized {
        let mut out = Normalized {
            text: String::with_capacity(input.len() * 3),
            to_input: Vec::with_capacity(input.len() * 3),
        };
        let mut consumed = 0;
        if self.remove_extra_whitespaces {
            while consumed < input.len() {
                let (replacement, len) = self.normalize_prefix(&input[consumed..]);
                if replacement != " " {
                    break;
                }
                consumed += len;
            }
        }
        if consumed == input.len() {
            return Normalized {
                text: String::new(),
                to_input: Vec::new(),
            };
        }
        if self.add_dummy_prefix {
            self.push(&mut out, " ", consumed);
        }
        let mut prev_space = self.remove_extra_whitespaces;
        while consumed < input.len() {
            let (mut replacement, len) = self.normalize_prefix(&input[consumed..]);
            while prev_space && replacement.starts_with(' ') {
                replacement = &replacement[1..];
            }
            if !replacement.is_empty() {
                self.push(&mut out, replacement, consumed);
                prev_space = replacement.ends_with(' ');
            }
            consumed += len;
            if !self.remove_extra_whitespaces {
                prev_space = false;
            }
        }
        if self.remove_extra_whitespaces {
            let space = if self.escape_whitespaces { SPACE } else { " " };
            while out.text.ends_with(space) {
                let len = out.text.len() - space.len();
                consumed = out.to_input[len];
                out.text.truncate(len);
                out.to_input.truncate(len);
            }
        }
        out.to_input.push(consumed);
        out
    }

    /// Appends `text` from input offset `at`, spaces escaped.
    fn push(&self, out: &mut Normalized, text: &str, at: usize) {
        for c in text.chars() {
            let before = out.text.len();
            if c == ' ' && self.escape_whitespaces {
                out.text.push_str(SPACE);
            } else {
                out.text.push(c);
            }
            out.to_input
                .resize(out.to_input.len() + out.text.len() - before, at);
        }
    }

    /// What the start of `input` normalizes to, and how many of its bytes that consumes: the
    /// longest rule that matches, else the first character unchanged.
    fn normalize_prefix<'a>(&'a self, input: &'a str) -> (&'a str, usize) {
        if let Some(found) = self.charsmap.as_ref().and_then(|map| map.longest(input)) {
            return found;
        }
        let len = input.chars().next().map_or(0, char::len_utf8);
        (&input[..len], len)
    }
}

/// The parsed `precompiled_charsmap`: `[u32 trie size in bytes][trie units][replacements]`.
#[derive(Debug, Clone)]
struct CharsMap {
    units: Vec<u32>,
    replacements: String,
}

impl CharsMap {
    fn parse(blob: &[u8]) -> Result<CharsMap, String> {
        let broken = || "its precompiled_charsmap is broken".to_owned();
        let size = blob.get(..4).ok_or_else(broken)?;
        let size = u32::from_le_bytes(size.try_into().map_err(|_| broken())?) as usize;
        let trie = blob
            .get(4..4 + size)
            .filter(|_| size.is_multiple_of(4))
            .ok_or_else(broken)?;
        let units = trie
            .chunks_exact(4)
            .map(|unit| u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]))
            .collect();
        let replacements = String::from_utf8(blob[4 + size..].to_vec())
            .map_err(|_| "its precompiled_charsmap has replacements that are not UTF-8")?;
        Ok(CharsMap {
            units,
            replacements,
        })
    }

    /// The replacement of the longest rule matching the start of `input`, and the rule's
    /// length in bytes (darts-clone's `commonPrefixSearch`, longest result kept).
    fn longest<'a>(&'a self, input: &str) -> Option<(&'a str, usize)> {
        let unit = |pos: usize| self.units.get(pos).copied();
        let mut found = None;
        let mut pos = offset(unit(0)?);
        for (i, &byte) in input.as_bytes().iter().enumerate() {
            pos ^= usize::from(byte);
            let Some(here) = unit(pos).filter(|&here| label(here) == u32::from(byte)) else {
                break;
            };
            pos ^= offset(here);
            if has_leaf(here) {
                found = unit(pos).map(|leaf| (value(leaf), i + 1)).or(found);
            }
        }
        let (start, len) = found?;
        let rest = self.replacements.get(start..)?;
        let end = rest.find('\0').unwrap_or(rest.len());
        Some((&rest[..end], len))
    }
}

fn has_leaf(unit: u32) -> bool {
    (unit >> 8) & 1 == 1
}

fn value(unit: u32) -> usize {
    (unit & ((1 << 31) - 1)) as usize
}

fn label(unit: u32) -> u32 {
    unit & ((1 << 31) | 0xFF)
}

fn offset(unit: u32) -> usize {
    ((unit >> 10) << ((unit & (1 << 9)) >> 6)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain() -> Normalizer {
        Normalizer::new(&[], true, true, true).expect("no charsmap")
    }

    #[test]
    fn whitespace_is_trimmed_collapsed_and_escaped() {
        let n = plain().normalize("  a  b ");
        assert_eq!(n.text, "\u{2581}a\u{2581}b");
        // The dummy prefix maps to the first kept byte; the space before `b` to the first of
        // the two spaces; the end to where the trailing space began.
        assert_eq!(n.to_input, [2, 2, 2, 2, 3, 3, 3, 5, 6]);
        assert_eq!(plain().normalize(" \u{3000} ").text, "\u{2581}\u{3000}");
        assert_eq!(plain().normalize("   ").text, "");
        assert_eq!(plain().normalize("").to_input, Vec::<usize>::new());
    }

    #[test]
    fn options_turn_the_whitespace_rules_off() {
        let raw = Normalizer::new(&[], false, false, false).expect("no charsmap");
        let n = raw.normalize(" a  b ");
        assert_eq!(n.text, " a  b ");
        assert_eq!(n.to_input, [0, 1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_broken_charsmap_is_an_error() {
        assert!(Normalizer::new(&[8, 0, 0, 0, 1], true, true, true).is_err());
        assert!(Normalizer::new(&[1, 0], true, true, true).is_err());
    }
}
