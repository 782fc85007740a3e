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

/// Every kind's name, in the order the docs list them.
pub const NAMES: &[&str] = &[
    tokens::KIND,
    embedding::KIND,
    positional::KIND,
    embedding_sum::KIND,
    sinusoidal::KIND,
    qkv::KIND,
    heads::KIND,
    attention::KIND,
    attention_steps::KIND,
    attention_grid::KIND,
    head_mix::KIND,
    mlp::KIND,
    layernorm::KIND,
    residual::KIND,
    next_token::KIND,
    temperature::KIND,
    sampling::KIND,
    generation::KIND,
    logit_lens::KIND,
    loss::KIND,
    training::KIND,
    compare::KIND,
    architecture::KIND,
];

/// Renders `kind`, or explains that there is no such kind.
pub fn render(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Figure, FigureError> {
    match kind {
        tokens::KIND => tokens::render(options, traces),
        next_token::KIND => next_token::render(options, traces),
        temperature::KIND => temperature::render(options, traces),
        sampling::KIND => sampling::render(options, traces),
        generation::KIND => generation::render(options, traces),
        logit_lens::KIND => logit_lens::render(options, traces),
        loss::KIND => loss::render(options, traces),
        training::KIND => training::render(options, traces),
        architecture::KIND => architecture::render(options, traces),
        compare::KIND => compare::render(options, traces),
        attention::KIND => attention::render(options, traces),
        attention_steps::KIND => attention_steps::render(options, traces),
        attention_grid::KIND => attention_grid::render(options, traces),
        head_mix::KIND => head_mix::render(options, traces),
        mlp::KIND => mlp::render(options, traces),
        layernorm::KIND => layernorm::render(options, traces),
        residual::KIND => residual::render(options, traces),
        embedding::KIND => embedding::render(options, traces),
        positional::KIND => positional::render(options, traces),
        embedding_sum::KIND => embedding_sum::render(options, traces),
        sinusoidal::KIND => sinusoidal::render(options, traces),
        qkv::KIND => qkv::render(options, traces),
        heads::KIND => heads::render(options, traces),
        _ => Err(unknown_kind(kind)),
    }
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
            assert_eq!(figure.model_id, "test/tiny-gpt2");
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
