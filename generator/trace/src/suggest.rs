//! "Did you mean" for every name an author or a reader of a trace can mistype: tensor
//! names here, and (re-exported by the site and figures crates) prompts, figure kinds,
//! option keys, functions and link targets. One rule everywhere, so a typo gets the same
//! hint whichever part of tracebook reports it, in one wording ([`did_you_mean`]).

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
    strsim::osa_distance(a, b)
}

/// The one wording of a near miss: "did you mean `x`?", when [`closest`] finds one.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    closest(word, candidates).map(|near| format!("did you mean `{near}`?"))
}

/// A hint: [`did_you_mean`] when a candidate is close, else the list of what is allowed.
pub fn hint(word: &str, candidates: &[&str], what: &str) -> Option<String> {
    if let Some(near) = did_you_mean(word, candidates.iter().copied()) {
        return Some(near);
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

#[cfg(test)]
mod tests {
    use super::{closest, distance, hint};

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
