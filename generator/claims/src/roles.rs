//! A figure's picks by role: an option that names a position of the prompt (`token`,
//! `position`) may be written as the claims language writes positions, `token = "last() - 1"`
//! or `token = 'pos(" it")'`, and is resolved on the trace the figure is drawn from. On the
//! author's trace the build resolves it; in live mode the reader's session resolves the same
//! text on the reader's trace, so the figure picks the corresponding token of the reader's
//! sentence by the rule the author wrote.

use crate::eval::{Evaluator, NoVocabulary};
use crate::parse::parse;
use crate::problem::Problem;
use tracebook_trace::Trace;

/// The figure options that name a position of the prompt.
pub const POSITION_OPTIONS: [&str; 2] = ["token", "position"];

/// An option written as a role, and the position it named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    pub key: &'static str,
    /// The role as written: `last() - 1`.
    pub role: String,
    /// The position it names on the trace, from the start.
    pub at: i64,
}

/// Replaces each option of [`POSITION_OPTIONS`] written as a role (a string) in `options`
/// with the position it names on `trace` (of the prompt called `prompt`). The problem names
/// the option it is about.
pub fn resolve(
    options: &mut toml::Table,
    trace: &Trace,
    prompt: &str,
) -> Result<Vec<Pick>, (&'static str, Problem)> {
    let mut picks = Vec::new();
    for key in POSITION_OPTIONS {
        let Some(toml::Value::String(role)) = options.get(key) else {
            continue;
        };
        let role = role.clone();
        let at = position(trace, prompt, &role).map_err(|p| (key, p))?;
        options.insert(key.into(), toml::Value::Integer(at));
        picks.push(Pick { key, role, at });
    }
    Ok(picks)
}

/// The position of the prompt that `role` names on `trace`.
pub fn position(trace: &Trace, prompt: &str, role: &str) -> Result<i64, Problem> {
    let expr = parse(role, 0..role.len())?;
    let value = Evaluator::new(trace, prompt, &NoVocabulary).number(&expr)?;
    let n = trace.meta.tokens.len() as f64;
    if value.fract() != 0.0 || !(0.0..n).contains(&value) {
        return Err(Problem::new(
            0..role.len(),
            format!(
                "`{role}` is {value} on the trace of `{prompt}`, not a position from 0 to {}",
                n - 1.0
            ),
        )
        .with_hint("name a position by role: last(), first(), last() - 1, pos(\" it\")"));
    }
    Ok(value as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace() -> Trace {
        let text = include_str!("../../../traces/he_loved.json");
        Trace::from_json(text).unwrap()
    }

    #[test]
    fn a_role_becomes_the_position_it_names_on_the_trace() {
        // "He was happy and loved"
        let mut options: toml::Table =
            "prompt = \"he\"\ntoken = 'pos(\" happy\")'\nposition = \"last() - 1\"\nlayer = 1"
                .parse()
                .unwrap();
        let picks = resolve(&mut options, &trace(), "he").unwrap();
        assert_eq!(options["token"].as_integer(), Some(2));
        assert_eq!(options["position"].as_integer(), Some(3));
        assert_eq!(options["layer"].as_integer(), Some(1));
        assert_eq!(
            picks,
            [
                Pick {
                    key: "token",
                    role: "pos(\" happy\")".into(),
                    at: 2
                },
                Pick {
                    key: "position",
                    role: "last() - 1".into(),
                    at: 3
                }
            ]
        );
    }

    #[test]
    fn a_role_the_trace_cannot_answer_is_a_problem_of_its_option() {
        let mut options: toml::Table = "token = 'pos(\" sad\")'".parse().unwrap();
        let (key, problem) = resolve(&mut options, &trace(), "he").unwrap_err();
        assert_eq!(key, "token");
        assert!(problem.message.contains("sad"), "{}", problem.message);
        let mut options: toml::Table = "token = \"last() + 3\"".parse().unwrap();
        let (_, problem) = resolve(&mut options, &trace(), "he").unwrap_err();
        assert!(
            problem.message.contains("not a position from 0 to 4"),
            "{}",
            problem.message
        );
        let mut options: toml::Table = "token = 2".parse().unwrap();
        assert_eq!(resolve(&mut options, &trace(), "he").unwrap(), []);
    }
}
