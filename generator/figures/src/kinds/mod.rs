//! The figure kinds, one per file, and the dispatch from a kind's name to its renderer.

mod architecture;
mod attention;
mod attention_grid;
mod attention_steps;
mod compare;
mod compare_views;
mod embedding;
mod embedding_sum;
mod generation;
mod head_mix;
mod heads;
mod layernorm;
mod logit_lens;
mod loss;
mod mlp;
mod next_token;
mod positional;
mod qkv;
mod residual;
mod sampling;
mod sinusoidal;
mod strips;
mod temperature;
mod tokens;
mod training;

use crate::error::FigureError;
use crate::{Figure, Traces};
use tracebook_trace::suggest::did_you_mean;

/// One figure kind: its name, its renderer and the options struct it reads.
struct Kind {
    name: &'static str,
    render: fn(&toml::Table, &dyn Traces) -> Result<Figure, FigureError>,
    keys: fn() -> Vec<&'static str>,
}

/// Lists the kinds, in the order the docs list them, each by its module.
macro_rules! kinds {
    ($($kind:ident),+ $(,)?) => {
        const KINDS: &[Kind] = &[$(Kind {
            name: $kind::KIND,
            render: $kind::render,
            keys: crate::options::keys::<$kind::Opts>,
        }),+];
        /// Every kind's name, in the order the docs list them.
        pub const NAMES: &[&str] = &[$($kind::KIND),+];
    };
}

kinds![
    tokens,
    embedding,
    positional,
    embedding_sum,
    sinusoidal,
    qkv,
    heads,
    attention,
    attention_steps,
    attention_grid,
    head_mix,
    mlp,
    layernorm,
    residual,
    next_token,
    temperature,
    sampling,
    generation,
    logit_lens,
    loss,
    training,
    compare,
    architecture,
];

/// Renders `kind`, or explains that there is no such kind.
pub fn render(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Figure, FigureError> {
    match KINDS.iter().find(|k| k.name == kind) {
        Some(k) => (k.render)(options, traces),
        None => Err(unknown_kind(kind)),
    }
}

/// The option keys `kind` accepts (`prompt`, `caption`, then its own), from its options
/// struct; `None` for an unknown kind.
pub fn keys(kind: &str) -> Option<Vec<&'static str>> {
    KINDS.iter().find(|k| k.name == kind).map(|k| (k.keys)())
}

fn unknown_kind(kind: &str) -> FigureError {
    let list = NAMES.join(", ");
    let hint = match did_you_mean(kind, NAMES.iter().copied()) {
        Some(near) => format!("{near} Known kinds: {list}"),
        None => format!("known kinds: {list}"),
    };
    FigureError::new(format!("unknown figure kind `{kind}`")).with_hint(hint)
}

#[cfg(test)]
mod size_tests;

#[cfg(test)]
mod tests {
    use super::{render, NAMES};
    use crate::test_svg::{desc, parse};
    use crate::test_traces::{options, tiny_trace, training_run, TestTraces};

    /// A block body for every kind, with the options it needs.
    pub const EXAMPLES: &[(&str, &str)] = &[
        ("tokens", ""),
        ("embedding", ""),
        ("positional", ""),
        ("embedding-sum", ""),
        ("sinusoidal", ""),
        ("qkv", "layer = 1"),
        ("heads", "layer = 1"),
        ("attention", "layer = 1\nhead = 0"),
        ("attention-steps", "layer = 1\nhead = 0"),
        ("attention-grid", ""),
        ("head-mix", "layer = 1"),
        ("mlp", "layer = 1"),
        ("layernorm", "layer = 1"),
        ("residual", ""),
        ("next-token", ""),
        ("temperature", ""),
        ("sampling", ""),
        ("generation", ""),
        ("logit-lens", ""),
        ("loss", ""),
        ("architecture", ""),
        ("compare", "other = \"robots\""),
        ("training", ""),
    ];

    #[test]
    fn every_kind_renders_well_formed_accessible_deterministic_svg() {
        let mut trace = tiny_trace();
        trace.meta.training = Some(training_run());
        let traces = TestTraces::with("robots", trace);
        for kind in NAMES {
            let body = EXAMPLES
                .iter()
                .find(|(k, _)| k == kind)
                .unwrap_or_else(|| panic!("no example for {kind}"))
                .1;
            let options = options(&format!("prompt = \"robots\"\n{body}"));
            let figure =
                render(kind, &options, &traces).unwrap_or_else(|e| panic!("{kind}: {e:?}"));
            let doc = parse(&figure.svg);
            let root = doc.root_element();
            assert_eq!(root.attribute("role"), Some("img"), "{kind}");
            assert_eq!(root.attribute("width"), Some("100%"), "{kind}");
            assert_eq!(
                root.attribute("class"),
                Some(format!("tbf tbf-{kind}").as_str())
            );
            assert!(root.children().any(|n| n.has_tag_name("title")), "{kind}");
            assert_eq!(desc(&figure.svg), figure.alt, "{kind}");
            assert!(figure.alt.len() > 40, "{kind}: {}", figure.alt);
            assert_eq!(figure.model_ids, ["test/tiny-gpt2"]);
            let again = render(kind, &options, &traces).unwrap();
            assert_eq!(figure.svg, again.svg, "{kind} is not deterministic");
        }
    }

    #[test]
    fn every_kind_names_its_unknown_options() {
        let mut trace = tiny_trace();
        trace.meta.training = Some(training_run());
        let traces = TestTraces::with("robots", trace);
        for kind in NAMES {
            let options = options("prompt = \"robots\"\ncolour = \"red\"");
            let error = render(kind, &options, &traces).unwrap_err();
            assert_eq!(error.key.as_deref(), Some("colour"), "{kind}");
            let options = options_without_prompt();
            let error = render(kind, &options, &traces).unwrap_err();
            assert_eq!(error.key.as_deref(), Some("prompt"), "{kind}");
        }
    }

    fn options_without_prompt() -> toml::Table {
        toml::Table::new()
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
            .starts_with("did you mean `next-token`?"));
        let error = render("sparkles", &toml::Table::new(), &traces).unwrap_err();
        assert!(error
            .hint
            .unwrap()
            .starts_with("known kinds: tokens, embedding, positional"));
    }
}
