//! The figure kinds and the dispatch from a kind's name to its renderer.
//!
//! One module per kind, in nine folders by what the kinds draw, in the series' order; a
//! kind's tests beside it (`KIND_tests.rs`), its snapshots in its folder's `snapshots/`, its
//! own helpers in its folder. `strips` is shared by the vector kinds of several folders.
//! `kinds!` below lists the kinds in the order the docs list them.

// The folders in the series' order, each with its kinds.
// tokens, bpe, embedding, positional, embedding-sum, sinusoidal, rope
mod tokens_embeddings;
// qkv, heads, attention, attention-steps, attention-grid, head-mix, gqa
mod self_attention;
// mlp, gated-mlp, layernorm, rmsnorm
mod mlp_norms;
// residual, next-token, logits, logit-lens
mod residual_output;
// temperature, sampling, generation, beam
mod generation_sampling;
// loss, training, descent
mod training_loss;
// ablation, patching, logit-attribution, saliency, flow, compare
pub(crate) mod experiments;
// shapes, architecture
mod architecture_shapes;
// cross-attention
mod encoder_decoder;

mod strips;

use architecture_shapes::{architecture, shapes};
use encoder_decoder::cross_attention;
use experiments::{ablation, compare, flow, logit_attribution, patching, saliency};
use generation_sampling::{beam, generation, sampling, temperature};
use mlp_norms::{gated_mlp, layernorm, mlp, rmsnorm};
use residual_output::{logit_lens, logits, next_token, residual};
use self_attention::{attention, attention_grid, attention_steps, gqa, head_mix, heads, qkv};
use tokens_embeddings::{bpe, embedding, embedding_sum, positional, rope, sinusoidal, tokens};
use training_loss::{descent, loss, training};

use crate::error::FigureError;
use crate::shared::{Domain, SharedScale};
use crate::{Figure, Traces};
use tracebook_trace::suggest::did_you_mean;

/// A kind that colours nothing by value.
type Plain = fn(&toml::Table, &dyn Traces) -> Result<Figure, FigureError>;
/// A kind that colours by value: drawn on a shared scale if given, it also reports the
/// domain of its own values.
type Scaled =
    fn(&toml::Table, &dyn Traces, Option<&SharedScale>) -> Result<(Figure, Domain), FigureError>;

/// How a kind draws.
enum Render {
    Plain(Plain),
    Scaled(Scaled),
}

/// One figure kind: its name, its renderer and the options struct it reads.
struct Kind {
    name: &'static str,
    render: Render,
    keys: fn() -> Vec<&'static str>,
}

/// Lists the kinds, in the order the docs list them, each by its module; `scaled` marks
/// the kinds that colour by value and so take a shared `scale`.
macro_rules! kinds {
    ($($kind:ident $(: $scaled:ident)?),+ $(,)?) => {
        const KINDS: &[Kind] = &[$(Kind {
            name: $kind::KIND,
            render: kinds!(@render $kind $($scaled)?),
            keys: crate::options::keys::<$kind::Opts>,
        }),+];
        /// Every kind's name, in the order the docs list them.
        pub const NAMES: &[&str] = &[$($kind::KIND),+];
    };
    (@render $kind:ident) => { Render::Plain($kind::render) };
    (@render $kind:ident scaled) => { Render::Scaled($kind::render) };
}

kinds![
    tokens,
    bpe,
    embedding: scaled,
    positional: scaled,
    embedding_sum: scaled,
    sinusoidal: scaled,
    rope,
    qkv: scaled,
    heads: scaled,
    attention: scaled,
    cross_attention: scaled,
    attention_steps,
    attention_grid: scaled,
    head_mix: scaled,
    gqa,
    shapes,
    mlp,
    gated_mlp: scaled,
    layernorm: scaled,
    rmsnorm: scaled,
    residual: scaled,
    next_token,
    logits,
    temperature,
    sampling,
    generation,
    beam,
    logit_lens: scaled,
    ablation: scaled,
    patching: scaled,
    logit_attribution: scaled,
    saliency: scaled,
    flow,
    loss,
    training,
    descent,
    compare,
    architecture,
];

/// The option key that names a shared colour scale.
const SCALE: &str = "scale";

/// Renders `kind` on its own colour scale, or on `shared` when given; explains an unknown
/// kind, and a `scale` on a kind that colours nothing by value.
pub fn render(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
    shared: Option<&SharedScale>,
) -> Result<Figure, FigureError> {
    match find(kind)?.render {
        Render::Plain(render) => render(options, traces).map_err(|e| not_scaled(kind, e)),
        Render::Scaled(render) => {
            let options = without_scale(options)?;
            render(&options, traces, shared).map(|(figure, _)| figure)
        }
    }
}

/// The domain of the values `kind` colours with `options`; `None` for a kind that colours
/// nothing by value.
pub fn domain(
    kind: &str,
    options: &toml::Table,
    traces: &dyn Traces,
) -> Result<Option<Domain>, FigureError> {
    match find(kind)?.render {
        Render::Plain(_) => Ok(None),
        Render::Scaled(render) => {
            let options = without_scale(options)?;
            render(&options, traces, None).map(|(_, domain)| Some(domain))
        }
    }
}

/// The option keys `kind` accepts (`prompt`, `caption`, `scale` where it colours by value,
/// then its own), from its options struct; `None` for an unknown kind.
pub fn keys(kind: &str) -> Option<Vec<&'static str>> {
    let k = KINDS.iter().find(|k| k.name == kind)?;
    let mut keys = (k.keys)();
    if matches!(k.render, Render::Scaled(_)) {
        keys.insert(2, SCALE);
    }
    Some(keys)
}

/// The kinds that colour by value, and so take a shared `scale`.
pub fn scaled() -> Vec<&'static str> {
    KINDS
        .iter()
        .filter(|k| matches!(k.render, Render::Scaled(_)))
        .map(|k| k.name)
        .collect()
}

fn find(kind: &str) -> Result<&'static Kind, FigureError> {
    KINDS
        .iter()
        .find(|k| k.name == kind)
        .ok_or_else(|| unknown_kind(kind))
}

/// `options` without `scale`, which the figure reads as a [`SharedScale`], not an option;
/// an error if `scale` is not a name.
fn without_scale(options: &toml::Table) -> Result<toml::Table, FigureError> {
    let mut options = options.clone();
    match options.remove(SCALE) {
        None | Some(toml::Value::String(_)) => Ok(options),
        Some(other) => Err(FigureError::at(
            SCALE,
            format!(
                "`scale` is the name of a shared colour scale, not {}",
                other.type_str()
            ),
        )
        .with_hint("e.g. scale = \"attn\": figures of the page with the same name share colours")),
    }
}

/// `error` about `scale` on a kind without a colour scale, saying which kinds have one.
fn not_scaled(kind: &str, mut error: FigureError) -> FigureError {
    if error.key.as_deref() != Some(SCALE) {
        return error;
    }
    let kinds = scaled().join(", ");
    let note = format!(
        "`{kind}` colours nothing by value, so it cannot share a colour scale; \
         scale = \"NAME\" is for: {kinds}"
    );
    error.hint = Some(match error.hint {
        Some(hint) => format!("{hint}; {note}"),
        None => note,
    });
    error
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
mod cut_text_tests;
#[cfg(test)]
mod size_tests;

#[cfg(test)]
mod tests {
    use super::NAMES;
    use crate::render;
    use crate::testing::test_interventions::with_experiments;
    use crate::testing::test_llama::llama_trace;
    use crate::testing::test_seq2seq::seq2seq_trace;
    use crate::testing::test_svg::{desc, parse};
    use crate::testing::test_traces::{options, tiny_trace, training_run, TestTraces};

    /// A block body for every kind, with the options it needs.
    pub const EXAMPLES: &[(&str, &str)] = &[
        ("tokens", ""),
        ("bpe", ""),
        ("embedding", ""),
        ("positional", ""),
        ("embedding-sum", ""),
        ("sinusoidal", ""),
        ("rope", "layer = 1\nhead = 3"),
        ("qkv", "layer = 1"),
        ("heads", "layer = 1"),
        ("attention", "layer = 1\nhead = 0"),
        ("cross-attention", "layer = 1"),
        ("attention-steps", "layer = 1\nhead = 0"),
        ("attention-grid", ""),
        ("head-mix", "layer = 1"),
        ("gqa", ""),
        ("shapes", ""),
        ("mlp", "layer = 1"),
        ("gated-mlp", "layer = 1"),
        ("layernorm", "layer = 1"),
        ("rmsnorm", "layer = 1"),
        ("residual", ""),
        ("next-token", ""),
        ("logits", ""),
        ("temperature", ""),
        ("sampling", ""),
        ("generation", ""),
        ("beam", ""),
        ("logit-lens", ""),
        ("ablation", ""),
        ("patching", ""),
        ("logit-attribution", ""),
        ("saliency", ""),
        ("flow", ""),
        ("loss", ""),
        ("architecture", ""),
        ("compare", "other = \"robots\""),
        ("training", ""),
        ("descent", ""),
    ];

    /// The kinds that draw what only the Llama family has: their examples draw from the
    /// Llama test trace, and they refuse GPT-2's by name.
    pub const LLAMA_ONLY: &[&str] = &["rope", "rmsnorm", "gated-mlp"];

    /// The kinds that draw what only an encoder-decoder has: their examples draw from the
    /// Marian-like test trace.
    pub const SEQ2SEQ_ONLY: &[&str] = &["cross-attention"];

    #[test]
    fn every_kind_renders_well_formed_accessible_deterministic_svg() {
        let mut trace = with_experiments(tiny_trace());
        trace.meta.training = Some(training_run());
        let gpt2 = TestTraces::with("robots", trace);
        let llama = TestTraces::with("robots", llama_trace());
        let marian = TestTraces::with("robots", seq2seq_trace());
        for kind in NAMES {
            let (traces, model) = if LLAMA_ONLY.contains(kind) {
                (&llama, "test/tiny-llama")
            } else if SEQ2SEQ_ONLY.contains(kind) {
                (&marian, "test/tiny-marian")
            } else {
                (&gpt2, "test/tiny-gpt2")
            };
            let body = EXAMPLES
                .iter()
                .find(|(k, _)| k == kind)
                .unwrap_or_else(|| panic!("no example for {kind}"))
                .1;
            let options = options(&format!("prompt = \"robots\"\n{body}"));
            let figure = render(kind, &options, traces).unwrap_or_else(|e| panic!("{kind}: {e:?}"));
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
            assert_eq!(figure.models, [model]);
            let again = render(kind, &options, traces).unwrap();
            assert_eq!(figure.svg, again.svg, "{kind} is not deterministic");
        }
    }

    #[test]
    fn the_llama_only_kinds_refuse_gpt2_by_name_pointing_to_its_own_kind() {
        let traces = TestTraces::with("robots", tiny_trace());
        for (kind, instead) in LLAMA_ONLY.iter().zip(["positional", "layernorm", "mlp"]) {
            let body = EXAMPLES.iter().find(|(k, _)| k == kind).unwrap().1;
            let options = options(&format!("prompt = \"robots\"\n{body}"));
            let error = render(kind, &options, &traces).unwrap_err();
            assert!(
                error
                    .message
                    .starts_with(&format!("figure `{kind}` draws "))
                    && error.message.contains("a gpt2 model: GPT-2")
                    && error.message.ends_with(&format!("see `{instead}`")),
                "{kind}: {}",
                error.message
            );
            assert!(error.hint.unwrap().contains("Llama-family"), "{kind}");
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
            .starts_with("known kinds: tokens, bpe, embedding, positional"));
    }
}
