//! "Did you mean" for every name an author or a reader of a trace can mistype: tensor
//! names here, and (re-exported by the site and figures crates) prompts, figure kinds,
//! option keys, functions and link targets. One rule everywhere, so a typo gets the same
//! hint whichever part of tracebook reports it.

/// The candidate nearest to `word`, when it is close enough to be a plausible typo: by
/// case-insensitive [`distance`], at most 1 edit for names of up to 3 characters, 2 up to
/// 8, and 3 beyond (the longer of the two names counts). `word` itself is never suggested;
/// ties go to the candidate that sorts first, so hints are deterministic.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= allowed(word.chars().count().max(c.chars().count())))
        .min()
        .map(|(_, c)| c)
}

fn allowed(len: usize) -> usize {
    match len {
        0..=3 => 1,
        4..=8 => 2,
        _ => 3,
    }
}

/// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`, counted
/// in characters: the optimal string alignment distance.
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
    fn distance_counts_single_character_edits() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("layr", "layer"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("héad", "head"), 1);
        assert_eq!(distance("haed", "head"), 1);
        assert_eq!(distance("abc", "ca"), 3);
    }

    #[test]
    fn close_names_are_suggested_and_far_ones_are_not() {
        let names = ["blocks.0.attn.pattern", "blocks.0.attn.scores", "embed"];
        assert_eq!(
            closest("blocks.0.attn.patern", names),
            Some("blocks.0.attn.pattern")
        );
        assert_eq!(closest("embd", names), Some("embed"));
        assert_eq!(closest("logits.last", names), None);
        let kinds = ["tokens", "next-token", "attention"];
        assert_eq!(closest("tokns", kinds), Some("tokens"));
        assert_eq!(closest("next_token", kinds), Some("next-token"));
        assert_eq!(closest("Attention", kinds), Some("attention"));
        assert_eq!(closest("histogram", kinds), None);
        assert_eq!(closest("x", ["k"]), Some("k"));
        assert_eq!(closest("tokens", kinds), None, "a name is not its own typo");
    }

    #[test]
    fn ties_go_to_the_first_in_sort_order() {
        assert_eq!(closest("cat", ["hat", "bat"]), Some("bat"));
        assert_eq!(closest("cat", ["bat", "hat"]), Some("bat"));
    }
}
