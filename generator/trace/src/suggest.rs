//! "Did you mean": the known name closest to a mistyped one, by edit distance.

/// The candidate closest to `name`, if it is close enough to be a likely typo (at most a third
/// of the name's characters, and at least 2, differ). Ties go to the earliest candidate.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = edit_distance(name, candidate);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance over characters: insertions, deletions and substitutions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_single_character_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("pattern", "pattern"), 0);
    }

    #[test]
    fn close_names_are_suggested_and_far_ones_are_not() {
        let names = ["blocks.0.attn.pattern", "blocks.0.attn.scores", "embed"];
        assert_eq!(
            closest("blocks.0.attn.patern", names.into_iter()),
            Some("blocks.0.attn.pattern")
        );
        assert_eq!(closest("embd", names.into_iter()), Some("embed"));
        assert_eq!(closest("logits.last", names.into_iter()), None);
    }
}
