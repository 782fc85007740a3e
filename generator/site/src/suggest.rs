//! Did-you-mean hints for names of prompts, figure kinds, keys and functions: the shared
//! [`closest`] rule, worded as a hint or a list of what is allowed.

pub use tracebook_trace::suggest::closest;

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

#[cfg(test)]
mod tests {
    use super::*;

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
