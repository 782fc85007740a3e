//! The figure kinds, one per file, and the dispatch from a kind's name to its renderer.

mod attention;
mod next_token;
mod tokens;

use crate::error::FigureError;
use crate::options::closest;
use crate::{Figure, Traces};

/// Every kind's name, in the order the docs list them.
pub const NAMES: &[&str] = &[tokens::KIND, attention::KIND, next_token::KIND];

/// Renders `kind`, or explains that there is no such kind.
pub fn render(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Figure, FigureError> {
    match kind {
        tokens::KIND => tokens::render(options, traces),
        next_token::KIND => next_token::render(options, traces),
        attention::KIND => attention::render(options, traces),
        _ => Err(unknown_kind(kind)),
    }
}

fn unknown_kind(kind: &str) -> FigureError {
    let list = NAMES.join(", ");
    let hint = match closest(kind, NAMES.iter().copied()) {
        Some(near) => format!("did you mean `figure {near}`? Known kinds: {list}"),
        None => format!("known kinds: {list}"),
    };
    FigureError::new(format!("unknown figure kind `{kind}`")).with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::{render, NAMES};
    use crate::test_traces::{tiny_trace, TestTraces};

    #[test]
    fn every_listed_kind_renders() {
        let traces = TestTraces::with("robots", tiny_trace());
        let options: toml::Table =
            toml::from_str("prompt = \"robots\"\nlayer = 1\nhead = 0").unwrap();
        for kind in NAMES {
            let mut options = options.clone();
            if *kind != "attention" {
                options.remove("layer");
                options.remove("head");
            }
            let figure =
                render(kind, &options, &traces).unwrap_or_else(|e| panic!("{kind}: {e:?}"));
            assert!(figure.svg.contains(&format!("tbf-{kind}")), "{kind}");
        }
    }

    #[test]
    fn unknown_kinds_suggest_the_nearest_one() {
        let traces = TestTraces::with("robots", tiny_trace());
        let error = render("next-tokens", &toml::Table::new(), &traces).unwrap_err();
        assert_eq!(error.key, None);
        assert_eq!(error.message, "unknown figure kind `next-tokens`");
        assert!(error
            .hint
            .unwrap()
            .starts_with("did you mean `figure next-token`?"));
        let error = render("sparkles", &toml::Table::new(), &traces).unwrap_err();
        assert!(error
            .hint
            .unwrap()
            .starts_with("known kinds: tokens, attention, next-token"));
    }
}
