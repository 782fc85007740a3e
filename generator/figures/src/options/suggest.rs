//! "Did you mean" suggestions: the closest candidate by edit distance, if close enough
//! that it is probably what was meant.

/// The candidate nearest to `word` (case-insensitive [`distance`]), when the
/// distance is at most a third of the word's length (at least 1, at most 3).
/// Ties go to the candidate that sorts first, so the hint is deterministic.
pub fn closest<'c, I>(word: &str, candidates: I) -> Option<&'c str>
where
    I: IntoIterator<Item = &'c str>,
{
    let word_lower = word.to_lowercase();
    let limit = (word.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .map(|candidate| (distance(&word_lower, &candidate.to_lowercase()), candidate))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, candidate)| candidate)
}

/// Edit distance over characters, counting a swap of neighbours as one edit (optimal
/// string alignment), since "haed" for "head" is a typo, not two.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut current = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            current[j] = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{closest, distance};

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("layer", "layer"), 0);
        assert_eq!(distance("layr", "layer"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("héad", "head"), 1);
        assert_eq!(distance("haed", "head"), 1);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("abc", "ca"), 3);
    }

    #[test]
    fn suggests_close_candidates_only() {
        let keys = ["prompt", "caption", "layer", "head"];
        assert_eq!(closest("layr", keys), Some("layer"));
        assert_eq!(closest("Head", keys), Some("head"));
        assert_eq!(closest("promt", keys), Some("prompt"));
        assert_eq!(closest("colour", keys), None);
        assert_eq!(closest("x", ["k"]), Some("k"));
    }

    #[test]
    fn ties_resolve_to_the_first_in_sort_order() {
        assert_eq!(closest("cat", ["hat", "bat"]), Some("bat"));
        assert_eq!(closest("cat", ["bat", "hat"]), Some("bat"));
    }
}
