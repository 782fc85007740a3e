//! Did-you-mean hints for names of prompts, figure kinds, keys and functions.

/// The closest candidate to `word`, if one is close enough to be a plausible typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|(distance, c)| *distance <= allowed_distance(word.len().max(c.len())))
        .min()
        .map(|(_, c)| c)
}

/// A hint: "did you mean `x`?" when a candidate is close, else the list of what is allowed.
pub fn hint(word: &str, candidates: &[&str], what: &str) -> Option<String> {
    if let Some(best) = closest(word, candidates.iter().copied()) {
        return Some(format!("did you mean `{best}`?"));
    }
    match candidates.len() {
        0 => None,
        1..=12 => Some(format!("{what}: {}", quoted_list(candidates))),
        n => Some(format!(
            "{what}: {} (and {} more)",
            quoted_list(&candidates[..12]),
            n - 12
        )),
    }
}

/// `a`, `b`, `c`
pub fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn allowed_distance(len: usize) -> usize {
    match len {
        0..=3 => 1,
        4..=8 => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_but_not_unrelated_words() {
        let kinds = ["tokens", "next-token", "attention"];
        assert_eq!(closest("tokns", kinds), Some("tokens"));
        assert_eq!(closest("next_token", kinds), Some("next-token"));
        assert_eq!(closest("Attention", kinds), Some("attention"));
        assert_eq!(closest("histogram", kinds), None);
    }

    #[test]
    fn hint_lists_candidates_when_nothing_is_close() {
        assert_eq!(
            hint("zzz", &["count", "token"], "known functions"),
            Some("known functions: `count`, `token`".to_string())
        );
        assert_eq!(
            hint("tokn", &["count", "token"], "known functions"),
            Some("did you mean `token`?".to_string())
        );
        assert_eq!(hint("x", &[], "known prompts"), None);
    }
}
