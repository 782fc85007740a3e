//! `figure architecture`: the traced model as a block diagram with its real sizes
//! (`meta.model.config`) and the prompt's token count: embeddings, the repeated block
//! (norm, attention, residual add, norm, MLP, residual add) with the residual stream running
//! through it, the final norm, the unembedding and the logits; with parameter counts computed
//! from the sizes. GPT-2 here; the Llama family (RoPE, RMSNorm, grouped-query attention, a
//! gated MLP) in `architecture_decoder.rs`; an encoder-decoder (Marian, BART) in
//! `architecture_seq2seq.rs`.
//!
//! Options: `prompt`, `caption`.

use super::architecture_parts::{block, finish, plus, product, prompt_ids, Sublayer, RESIDUAL_X};
use super::{architecture_decoder, architecture_seq2seq};
use crate::draw::{arrow, labelled_box};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{count, thousands};
use crate::kinds::strips::WIDTH;
use crate::options::Block;
use crate::relations::Relation;
use crate::svg::{Canvas, Css, Element};
use crate::Traces;
use serde::Deserialize;
use tracebook_trace::ModelShape;

pub const KIND: &str = "architecture";

/// Parameter counts of GPT-2's parts, from its sizes (weights and biases).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameters {
    pub wte: usize,
    pub wpe: usize,
    pub attention: usize,
    pub mlp: usize,
    pub layer_norm: usize,
    pub block: usize,
    pub total: usize,
}

impl Parameters {
    pub fn of(config: &ModelShape) -> Parameters {
        let d = config.n_embd;
        let attention = d * 3 * d + 3 * d + d * d + d;
        let mlp = d * 4 * d + 4 * d + 4 * d * d + d;
        let layer_norm = 2 * d;
        let block = attention + mlp + 2 * layer_norm;
        let (wte, wpe) = (config.vocab_size * d, config.n_positions * d);
        Parameters {
            wte,
            wpe,
            attention,
            mlp,
            layer_norm,
            block,
            // The unembedding is wte again (tied), so it adds nothing.
            total: wte + wpe + config.n_layer * block + layer_norm,
        }
    }
}

/// Each embedding's box: half the width, less a gap.
const HALF: f64 = (WIDTH - 12.0) / 2.0;

/// `architecture` takes only the preamble.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::kinds) struct Opts {}

pub fn render(table: &toml::Table, traces: &dyn Traces) -> Result<Figure, FigureError> {
    let Block {
        prompt, caption, ..
    } = Block::<Opts>::read(KIND, table, traces)?;
    if prompt.config().seq2seq.is_some() {
        return architecture_seq2seq::render(KIND, prompt, caption);
    }
    if prompt.config().model_type() != "gpt2" {
        return architecture_decoder::render(KIND, prompt, caption);
    }
    let config = prompt.config().clone();
    let n = prompt.tokens()?.len();
    let p = Parameters::of(&config);
    let mut body = inputs(&config, &p, n);
    let (sublayers, stages) = gpt2_parts(&config, &p, n);
    body.extend(block(&config, p.block, n, &sublayers));
    let y = finish(&mut body, &stages, p.total);
    let canvas = Canvas {
        kind: KIND,
        width: WIDTH,
        height: y + 30.0,
        title: format!(
            "The model's architecture: {} layers, width {}",
            config.n_layer,
            thousands(config.n_embd)
        ),
        desc: describe(&config, &p, n),
        css: Css::default(),
    };
    let figure = Figure::new(canvas, body, caption, &prompt).with_source(Source::Config);
    Ok(figure.with_relations(relations(&config, &p)))
}

/// What a reader can check among the sizes and counts: each embedding is its rows × columns,
/// a LayerNorm a gain and a bias of d, the heads make up the width, a layer is its parts and
/// the model its embeddings, layers and final LayerNorm (the unembedding is wte again).
fn relations(config: &ModelShape, p: &Parameters) -> Vec<Relation> {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let ln = count(p.layer_norm);
    let mut total = vec![count(p.wte), count(p.wpe), ln.clone()];
    total.extend(std::iter::repeat_n(count(p.block), config.n_layer));
    vec![
        product(&[&v, &d], count(p.wte)),
        product(&[&thousands(config.n_positions), &d], count(p.wpe)),
        Relation::Sum {
            terms: vec![d.clone(), d.clone()],
            total: ln.clone(),
        },
        product(
            &[
                &config.n_head.to_string(),
                &(config.n_embd / config.n_head.max(1)).to_string(),
            ],
            d,
        ),
        Relation::Sum {
            terms: vec![count(p.attention), count(p.mlp), ln.clone(), ln],
            total: count(p.block),
        },
        Relation::Sum {
            terms: total,
            total: count(p.total),
        },
        Relation::Same {
            a: count(p.total),
            b: thousands(p.total),
        },
    ]
}

/// GPT-2's two sublayers and its output stages, with their sizes.
fn gpt2_parts(
    config: &ModelShape,
    p: &Parameters,
    n: usize,
) -> ([Sublayer; 2], [(&'static str, String); 3]) {
    let d = thousands(config.n_embd);
    let sublayers = [
        Sublayer {
            norm: "LayerNorm 1",
            norm_params: p.layer_norm,
            name: "attention",
            size: format!(
                "{} heads × {} · {}",
                config.n_head,
                config.n_embd / config.n_head.max(1),
                count(p.attention)
            ),
        },
        Sublayer {
            norm: "LayerNorm 2",
            norm_params: p.layer_norm,
            name: "MLP",
            size: format!(
                "{d} → {} → {d} · {}",
                thousands(4 * config.n_embd),
                count(p.mlp)
            ),
        },
    ];
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let stages = [
        ("final LayerNorm", format!("{d} → {d}")),
        ("unembedding", format!("{d} × {v}, the same matrix as wte")),
        (
            "logits",
            format!("{n} × {v}: a score per token of the vocabulary"),
        ),
    ];
    (sublayers, stages)
}

/// The token ids, the two embeddings they select, and their sum starting the residual
/// stream.
fn inputs(config: &ModelShape, p: &Parameters, n: usize) -> Vec<Element> {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    let mut out = prompt_ids(n).to_vec();
    out.extend([
        labelled_box(
            0.0,
            52.0,
            HALF,
            40.0,
            "token embedding",
            &format!("wte {v} × {d} · {}", count(p.wte)),
        ),
        labelled_box(
            WIDTH - HALF,
            52.0,
            HALF,
            40.0,
            "position embedding",
            &format!(
                "wpe {} × {d} · {}",
                thousands(config.n_positions),
                count(p.wpe)
            ),
        ),
        arrow((HALF / 2.0, 92.0), (RESIDUAL_X, 116.0)),
        arrow((WIDTH - HALF / 2.0, 92.0), (RESIDUAL_X + 10.0, 114.0)),
        plus(RESIDUAL_X, 122.0),
    ]);
    out
}

fn describe(config: &ModelShape, p: &Parameters, n: usize) -> String {
    let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
    format!(
        "The model as traced (GPT-2's shape): the prompt's {n} token ids select rows of the token embedding \
         ({v} × {d}), to which position embeddings ({} × {d}) are added, giving the residual \
         stream, {n} × {d}. Then {} identical layers: each applies a LayerNorm and attention \
         with {} heads of {} and adds the result to the residual stream, then a LayerNorm and \
         an MLP ({d} → {} → {d}) and adds that too; {} parameters per layer. A final \
         LayerNorm and the unembedding (the token embedding matrix again) turn each position \
         into {v} logits. {} parameters in all.",
        thousands(config.n_positions),
        config.n_layer,
        config.n_head,
        config.n_embd / config.n_head.max(1),
        thousands(4 * config.n_embd),
        count(p.block),
        count(p.total)
    )
}

#[cfg(test)]
mod tests {
    use super::{render, Parameters};
    use crate::testing::test_svg::all_texts;
    use crate::testing::test_traces::{options, tiny_trace, TestTraces};
    use tracebook_trace::ModelShape;

    #[test]
    fn gpt2_small_has_its_famous_parameter_count() {
        let config = ModelShape::default();
        let p = Parameters::of(&config);
        assert_eq!(p.total, 124_439_808);
        assert_eq!(p.block, 7_087_872);
        assert_eq!(p.attention, 2_362_368);
        assert_eq!(p.mlp, 4_722_432);
    }

    #[test]
    fn the_diagram_states_the_traced_models_sizes() {
        let traces = TestTraces::with("p", tiny_trace());
        let figure = render(&options("prompt = \"p\""), &traces).unwrap();
        let texts = all_texts(&figure.svg);
        for expected in [
            "T = 4 tokens of the prompt",
            "layer × 2",
            "residual stream, 4 × 8",
            "2 heads × 4 · 288",
            "8 → 32 → 8 · 552",
            "wte 40 × 8 · 320",
            "4 × 40: a score per token of the vocabulary",
        ] {
            assert!(
                texts.iter().any(|t| t == expected),
                "{expected} in {texts:?}"
            );
        }
        let p = Parameters::of(&tiny_trace().meta.model.config);
        assert_eq!(p.total, 2_592);
        assert!(texts.contains(&"2,592 parameters in all (2,592)".to_string()));
        assert!(figure.alt.contains("2 identical layers"), "{}", figure.alt);
    }

    #[test]
    fn snapshot() {
        let traces = TestTraces::with("p", tiny_trace());
        insta::assert_snapshot!(render(&options("prompt = \"p\""), &traces).unwrap().svg);
    }
}

#[cfg(test)]
#[path = "architecture_decoder_tests.rs"]
mod decoder_tests;
