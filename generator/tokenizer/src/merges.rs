//! Recovers BPE merge rules from a ranked vocabulary (tiktoken's format lists tokens only).
//!
//! tiktoken merges whichever adjacent pair forms the lowest-ranked token; `tokenizers`
//! applies an explicit list of pair merges. The pair that creates token `r` is found by
//! running tiktoken's BPE on `r`'s bytes with only the ranks below `r`: it must stop at
//! exactly two parts, and those are the pair. Listing the pairs in rank order makes both
//! algorithms take the same steps.

use fnv::FnvHashMap;

/// Ranks of byte strings, as tiktoken's encoder holds them. FNV-1a: recovering GPT-2's
/// merges looks up keys of a few bytes about a million times; with std's DoS-resistant
/// SipHash the whole built-in build took ~15% longer. The keys are the fixed r50k_base
/// vocabulary, never attacker-controlled input.
pub(crate) type Ranks<'a> = FnvHashMap<&'a [u8], u32>;

/// A token that BPE cannot build from two lower-ranked tokens.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unmergeable {
    pub rank: u32,
    pub parts: usize,
}

/// For each multi-byte token in rank order, the byte index where its merge pair splits it.
/// `tokens[r]` holds the bytes of rank `r`; single bytes are the base alphabet.
pub(crate) fn merge_splits(tokens: &[Vec<u8>]) -> Result<Vec<(u32, usize)>, Unmergeable> {
    let ranks: Ranks = tokens
        .iter()
        .enumerate()
        .filter_map(|(rank, bytes)| Some((bytes.as_slice(), u32::try_from(rank).ok()?)))
        .collect();
    let mut splits = Vec::with_capacity(tokens.len());
    for (rank, bytes) in ranks_in_order(tokens) {
        if bytes.len() < 2 {
            continue;
        }
        let bounds = merge_below(bytes, rank, &ranks);
        match bounds.as_slice() {
            [_, split, _] => splits.push((rank, *split)),
            _ => {
                return Err(Unmergeable {
                    rank,
                    parts: bounds.len() - 1,
                })
            }
        }
    }
    Ok(splits)
}

fn ranks_in_order(tokens: &[Vec<u8>]) -> impl Iterator<Item = (u32, &[u8])> {
    tokens
        .iter()
        .enumerate()
        .filter_map(|(rank, bytes)| Some((u32::try_from(rank).ok()?, bytes.as_slice())))
}

/// tiktoken's BPE over `bytes` using only tokens ranked below `limit`; returns the part
/// boundaries (part `i` is `bytes[bounds[i]..bounds[i + 1]]`).
fn merge_below(bytes: &[u8], limit: u32, ranks: &Ranks) -> Vec<usize> {
    let mut bounds: Vec<usize> = (0..=bytes.len()).collect();
    // pair_ranks[i]: rank of parts i and i + 1 merged, or u32::MAX when they cannot merge.
    let mut pair_ranks: Vec<u32> = (0..bytes.len().saturating_sub(1))
        .map(|i| pair_rank(bytes, &bounds, i, limit, ranks))
        .collect();
    while let Some((rank, i)) = pair_ranks.iter().copied().zip(0..).min() {
        if rank == u32::MAX {
            break;
        }
        bounds.remove(i + 1);
        pair_ranks.remove(i);
        if i < pair_ranks.len() {
            pair_ranks[i] = pair_rank(bytes, &bounds, i, limit, ranks);
        }
        if i > 0 {
            pair_ranks[i - 1] = pair_rank(bytes, &bounds, i - 1, limit, ranks);
        }
    }
    bounds
}

fn pair_rank(bytes: &[u8], bounds: &[usize], i: usize, limit: u32, ranks: &Ranks) -> u32 {
    ranks
        .get(&bytes[bounds[i]..bounds[i + 2]])
        .copied()
        .filter(|&rank| rank < limit)
        .unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(entries: &[&str]) -> Vec<Vec<u8>> {
        entries.iter().map(|e| e.as_bytes().to_vec()).collect()
    }

    #[test]
    fn finds_the_pair_that_lower_ranks_build() {
        // "abc" could split as "ab"+"c" or "a"+"bc"; "bc" ranks lower, so BPE builds it first.
        let tokens = vocab(&["a", "b", "c", "bc", "ab", "abc"]);
        assert_eq!(merge_splits(&tokens), Ok(vec![(3, 1), (4, 1), (5, 1)]));
    }

    #[test]
    fn rejects_a_token_that_needs_three_parts() {
        let tokens = vocab(&["a", "b", "c", "abc"]);
        assert_eq!(
            merge_splits(&tokens),
            Err(Unmergeable { rank: 3, parts: 3 })
        );
    }
}
