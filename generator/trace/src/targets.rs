//! The targets an experiment reports on (`ablate`'s and `attribute`'s `targets`): a token
//! named by its text (`" his"`), or by rule, `"guess(k)"`: the model's k-th likeliest next
//! token after the prompt, resolved when the prompt is traced. A target by rule asks the same
//! question of any prompt, so a reader's own sentence in live mode is ablated and attributed
//! for its own top guess, as the author's was for theirs.

/// The likeliest next tokens a rule may name: `guess(1)` to `guess(10)`.
pub const MAX_GUESS: usize = 10;

/// One entry of a `targets` list, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// A token named by its text.
    Text(&'a str),
    /// `guess(k)`: the k-th likeliest next token (from 1).
    Guess(usize),
}

impl<'a> Target<'a> {
    /// Reads `entry`: `guess(k)` (spaces allowed inside the parentheses) is a rule, anything
    /// else a token's text. A `guess(...)` whose k is not a whole number from 1 to
    /// [`MAX_GUESS`] is an error.
    pub fn parse(entry: &'a str) -> Result<Target<'a>, String> {
        let Some(inner) = entry
            .strip_prefix("guess(")
            .and_then(|rest| rest.strip_suffix(')'))
        else {
            return Ok(Target::Text(entry));
        };
        match inner.trim().parse::<usize>() {
            Ok(k) if (1..=MAX_GUESS).contains(&k) => Ok(Target::Guess(k)),
            _ => Err(format!(
                "target {entry:?}: guess(k) names the model's k-th likeliest next token, with \
                 k a whole number from 1 to {MAX_GUESS}"
            )),
        }
    }
}

/// Checks `option`'s `targets` list (`ablate`, `attribute`): at least one, none empty, every
/// rule well formed.
pub fn validate(option: &str, targets: &[String], example: &str) -> Result<(), String> {
    if targets.is_empty() {
        return Err(format!(
            "{option} needs at least one target token, e.g. {option} = {{ targets = \
             [{example}] }} (or [\"guess(1)\"], the model's own top guess)"
        ));
    }
    if let Some(t) = targets.iter().find(|t| t.is_empty()) {
        return Err(format!("{option}'s targets hold an empty token ({t:?})"));
    }
    for target in targets {
        Target::parse(target).map_err(|e| format!("{option}'s {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{validate, Target};

    #[test]
    fn a_target_is_a_text_or_a_guess_by_rank() {
        assert_eq!(Target::parse(" his"), Ok(Target::Text(" his")));
        assert_eq!(Target::parse("guess(1)"), Ok(Target::Guess(1)));
        assert_eq!(Target::parse("guess( 10 )"), Ok(Target::Guess(10)));
        assert_eq!(Target::parse("guess"), Ok(Target::Text("guess")));
        for bad in ["guess(0)", "guess(11)", "guess(x)", "guess(-1)"] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.contains("from 1 to 10"), "{e}");
        }
    }

    #[test]
    fn a_targets_list_is_checked_entry_by_entry() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(validate("ablate", &list(&[" a", "guess(2)"]), "\" was\"").is_ok());
        let e = validate("ablate", &[], "\" was\"").unwrap_err();
        assert!(e.contains("guess(1)") && e.contains("ablate = {"), "{e}");
        let e = validate("attribute", &list(&["guess(12)"]), "\" his\"").unwrap_err();
        assert!(e.starts_with("attribute's target \"guess(12)\""), "{e}");
        assert!(validate("ablate", &list(&[""]), "").is_err());
    }
}
