//! `figure architecture` for an encoder-decoder trace (Marian, BART): the two stacks of the
//! 2017 Transformer, one under the other so the diagram fits a phone. The source's token ids
//! enter the encoder, whose layers attend without a mask; its output is the keys and values
//! of every decoder layer's cross-attention (the line down the right edge). The decoder reads
//! the start token and what it wrote, with masked self-attention, cross-attention and an MLP
//! per layer. Both stacks are post-norm (the LayerNorm follows each residual add). Sizes and
//! switches come from `meta.model.config` and its `seq2seq` part, so the parameter count is
//! the checkpoint's.

use super::architecture_parts::{finish_at, plus, product, token_ids, RESIDUAL_X};
use crate::draw::{arrow, labelled_box, line, note, rect, text};
use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::format::{count, thousands};
use crate::kinds::strips::WIDTH;
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{Canvas, Css, Element};
use tracebook_trace::{ModelShape, Seq2SeqShape};

/// Where the sublayers' boxes start, right of the residual stream.
const SUB_X: f64 = 96.0;
/// The sublayers' width: narrower than the figure, leaving the right edge to the line that
/// carries the encoder's output down to the decoder.
const SUB_W: f64 = WIDTH - SUB_X - 32.0;
/// The x of that line.
const MEMORY_X: f64 = WIDTH - 12.0;
/// The height of one post-norm sublayer (box, add, LayerNorm).
const SUBLAYER_H: f64 = 100.0;
/// A stack's header above its sublayers: its name, its parameters, the residual stream.
const HEADER_H: f64 = 50.0;

/// Parameter counts of an encoder-decoder's parts, from its sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seq2SeqParameters {
    /// The token embedding both stacks share.
    pub embedding: usize,
    /// Each stack's learned positions (BART, 0 for Marian's computed sinusoids).
    pub positions: usize,
    /// Each stack's LayerNorm on its embeddings (BART's `layernorm_embedding`, else 0).
    pub embedding_norm: usize,
    /// One attention (self or cross): q, k, v and the output projection, with biases.
    pub attention: usize,
    pub encoder_mlp: usize,
    pub decoder_mlp: usize,
    pub layer_norm: usize,
    pub encoder_layer: usize,
    pub decoder_layer: usize,
    /// `lm_head`'s own matrix (0 when it is the token embedding).
    pub unembedding: usize,
    /// `final_logits_bias`, one number per vocabulary token.
    pub logits_bias: usize,
    pub total: usize,
}

impl Seq2SeqParameters {
    pub fn of(config: &ModelShape, s: &Seq2SeqShape, tied: bool) -> Seq2SeqParameters {
        let (d, v) = (config.n_embd, config.vocab_size);
        let learned = s.positions == "learned";
        let positions = if learned {
            (config.n_positions + 2) * d
        } else {
            0
        };
        let embedding_norm = if learned { 2 * d } else { 0 };
        let attention = 4 * (d * d + d);
        let mlp = |f: usize| 2 * d * f + f + d;
        let (encoder_mlp, decoder_mlp) = (mlp(s.encoder_ffn_dim), mlp(s.decoder_ffn_dim));
        let layer_norm = 2 * d;
        let encoder_layer = attention + encoder_mlp + 2 * layer_norm;
        let decoder_layer = 2 * attention + decoder_mlp + 3 * layer_norm;
        let unembedding = if tied { 0 } else { v * d };
        let total = v * d
            + 2 * (positions + embedding_norm)
            + s.encoder_layers * encoder_layer
            + config.n_layer * decoder_layer
            + unembedding
            + v;
        Seq2SeqParameters {
            embedding: v * d,
            positions,
            embedding_norm,
            attention,
            encoder_mlp,
            decoder_mlp,
            layer_norm,
            encoder_layer,
            decoder_layer,
            unembedding,
            logits_bias: v,
            total,
        }
    }
}

/// What one drawing needs: the sizes, the counts, and the two sequences' lengths.
struct Model<'a> {
    config: &'a ModelShape,
    s: &'a Seq2SeqShape,
    p: Seq2SeqParameters,
    scaled: bool,
    tied: bool,
    /// Source tokens (the encoder's positions) and decoder positions.
    source: usize,
    target: usize,
}

/// The diagram of the encoder-decoder that made `prompt`'s trace, as figure `kind`.
pub fn render(
    kind: &'static str,
    prompt: Prompt<'_>,
    caption: Option<String>,
) -> Result<Figure, FigureError> {
    let config = prompt.config().clone();
    let s = config.seq2seq.clone().ok_or_else(|| {
        prompt.broken(format!(
            "the trace of \"{}\" has no encoder sizes",
            prompt.name
        ))
    })?;
    let (Some(scaled), Some(tied)) = (s.scale_embedding, s.tie_word_embeddings) else {
        return Err(prompt.broken(format!(
            "the trace of \"{}\" does not record whether the embeddings are scaled and tied \
             (`meta.model.config.seq2seq`, written since tracebook recorded it)",
            prompt.name
        )));
    };
    let target = prompt
        .trace
        .meta
        .translation
        .as_ref()
        .map_or(0, |t| t.tokens.len());
    let model = Model {
        p: Seq2SeqParameters::of(&config, &s, tied),
        config: &config,
        s: &s,
        scaled,
        tied,
        source: prompt.tokens()?.len(),
        target,
    };
    let (body, y) = model.draw();
    let canvas = Canvas {
        kind,
        width: WIDTH,
        height: y + 30.0,
        title: format!(
            "The model's architecture ({}): an encoder of {} layers and a decoder of {}, width {}",
            config.model_type(),
            s.encoder_layers,
            config.n_layer,
            thousands(config.n_embd)
        ),
        desc: model.describe(),
        css: Css::default(),
    };
    let relations = model.relations();
    Ok(Figure::new(canvas, body, caption, &prompt)
        .with_source(Source::Config)
        .with_relations(relations))
}

impl Model<'_> {
    /// The whole diagram, top to bottom; with the y under it.
    fn draw(&self) -> (Vec<Element>, f64) {
        let mut body = self.inputs(0.0, "source token ids", self.source_words());
        let encoder = [
            self.attention("self-attention, no mask", self.s.encoder_heads),
            self.mlp(self.s.encoder_ffn_dim, self.p.encoder_mlp),
        ];
        let (stack, y) = self.stack(140.0, "encoder", self.p.encoder_layer, &encoder);
        body.extend(stack);
        body.push(arrow((RESIDUAL_X, y), (RESIDUAL_X, y + 14.0)));
        let memory = y + 16.0;
        body.push(labelled_box(
            0.0,
            memory,
            SUB_X + SUB_W,
            36.0,
            "encoder output",
            &format!(
                "{} × {}: every cross-attention's keys and values",
                self.source,
                thousands(self.config.n_embd)
            ),
        ));
        let top = memory + 56.0;
        body.extend(self.inputs(top, "decoder token ids", self.target_words()));
        let decoder = [
            self.attention("masked self-attention", self.config.n_head),
            self.attention("cross-attention", self.config.n_head),
            self.mlp(self.s.decoder_ffn_dim, self.p.decoder_mlp),
        ];
        let (stack, y) = self.stack(top + 140.0, "decoder", self.p.decoder_layer, &decoder);
        body.extend(stack);
        // The encoder's output, down the right edge into each layer's cross-attention.
        let cross = top + 140.0 + HEADER_H + SUBLAYER_H + 20.0;
        body.push(line(
            "tbf-ax",
            SUB_X + SUB_W,
            memory + 18.0,
            MEMORY_X,
            memory + 18.0,
        ));
        body.push(line("tbf-ax", MEMORY_X, memory + 18.0, MEMORY_X, cross));
        body.push(arrow((MEMORY_X, cross), (SUB_X + SUB_W + 1.0, cross)));
        let y = finish_at(&mut body, y, &self.outputs(), self.p.total);
        (body, y)
    }

    /// "S = 9 tokens of the source, </s> last".
    fn source_words(&self) -> String {
        format!("S = {} tokens of the source, </s> last", self.source)
    }

    /// "T = 12: the start token, then each one written".
    fn target_words(&self) -> String {
        format!(
            "T = {}: the start token, then each one written",
            self.target
        )
    }

    /// From `top`: a stack's token ids, the shared embedding they select, its positions and
    /// their sum starting the residual stream (at `top + 122`).
    fn inputs(&self, top: f64, ids: &str, detail: String) -> Vec<Element> {
        let (d, v) = (
            thousands(self.config.n_embd),
            thousands(self.config.vocab_size),
        );
        let scaled = if self.scaled { ", × √d" } else { "" };
        let positions = if self.s.positions == "learned" {
            let each = self.p.positions + self.p.embedding_norm;
            format!("+ learned positions, then LayerNorm · {}", count(each))
        } else {
            "+ sinusoidal positions, computed: no parameters".to_string()
        };
        let centre = (SUB_X + SUB_W) / 2.0;
        let mut out = token_ids(top, centre, 300.0, ids, &detail).to_vec();
        out.extend([
            labelled_box(
                0.0,
                top + 52.0,
                SUB_X + SUB_W,
                40.0,
                "token embedding (shared)",
                &format!("{v} × {d}{scaled} · {}", count(self.p.embedding)),
            ),
            note(positions, 56.0, top + 112.0),
            arrow((RESIDUAL_X, top + 92.0), (RESIDUAL_X, top + 112.0)),
            plus(RESIDUAL_X, top + 122.0),
        ]);
        out
    }

    /// An attention sublayer's box: its heads and parameters.
    fn attention(&self, name: &'static str, heads: usize) -> (&'static str, String) {
        let width = self.config.n_embd / heads.max(1);
        (
            name,
            format!("{heads} heads × {width} · {}", count(self.p.attention)),
        )
    }

    /// An MLP sublayer's box: its widths, activation and parameters.
    fn mlp(&self, inner: usize, params: usize) -> (&'static str, String) {
        let d = thousands(self.config.n_embd);
        (
            "MLP",
            format!(
                "{d} → {} → {d}, {} · {}",
                thousands(inner),
                activation(self.config),
                count(params)
            ),
        )
    }

    /// One stack from `top`: its frame, the residual stream down its left and its post-norm
    /// sublayers; with the y under it.
    fn stack(
        &self,
        top: f64,
        name: &str,
        params: usize,
        sublayers: &[(&'static str, String)],
    ) -> (Vec<Element>, f64) {
        let height = HEADER_H + sublayers.len() as f64 * SUBLAYER_H + 10.0;
        let (layers, length) = match name {
            "encoder" => (self.s.encoder_layers, self.source),
            _ => (self.config.n_layer, self.target),
        };
        let mut out = vec![
            rect("tbf-o", 0.0, top, SUB_X + SUB_W + 4.0, height)
                .attr("rx", 8.0)
                .attr("stroke-dasharray", "4 3"),
            text(SUB_X + SUB_W, top + 16.0)
                .class("tbf-b")
                .attr("text-anchor", "end")
                .text(format!("{name} layer × {layers}")),
            text(SUB_X + SUB_W, top + 31.0)
                .class("tbf-s tbf-dim")
                .attr("text-anchor", "end")
                .text(format!("{} parameters each", count(params))),
            text(RESIDUAL_X + 6.0, top + 46.0)
                .class("tbf-s tbf-acc")
                .text(format!(
                    "residual stream, {length} × {}",
                    thousands(self.config.n_embd)
                )),
            line(
                "tbf-line",
                RESIDUAL_X,
                top - 10.0,
                RESIDUAL_X,
                top + HEADER_H,
            ),
        ];
        for (i, (title, detail)) in sublayers.iter().enumerate() {
            let y = top + HEADER_H + i as f64 * SUBLAYER_H;
            out.extend(post_norm(y, title, detail, self.p.layer_norm));
        }
        let bottom = top + height;
        out.push(line(
            "tbf-line",
            RESIDUAL_X,
            bottom - 10.0,
            RESIDUAL_X,
            bottom,
        ));
        (out, bottom)
    }

    /// The unembedding (tied or its own, with the bias) and the logits.
    fn outputs(&self) -> [(&'static str, String); 2] {
        let (d, v) = (
            thousands(self.config.n_embd),
            thousands(self.config.vocab_size),
        );
        let unembedding = if self.tied {
            format!("{d} × {v}, the token embedding again, + a bias")
        } else {
            format!(
                "lm_head {d} × {v} · {}, + a bias",
                count(self.p.unembedding)
            )
        };
        [
            ("unembedding", unembedding),
            (
                "logits",
                format!("{} × {v}: a score per token of the vocabulary", self.target),
            ),
        ]
    }

    /// What a reader can check among the sizes and counts: the embedding (and an lm_head of
    /// its own) is its rows × columns, a LayerNorm a gain and a bias of d, each layer its
    /// sublayers and their LayerNorms, and the model its embedding, positions (each stack's),
    /// layers, unembedding and the logits' bias of one number per token of the vocabulary.
    fn relations(&self) -> Vec<Relation> {
        let (p, s) = (&self.p, self.s);
        let d = thousands(self.config.n_embd);
        let v = thousands(self.config.vocab_size);
        let (attn, ln) = (count(p.attention), count(p.layer_norm));
        let mut total = vec![count(p.embedding), v.clone()];
        if p.positions > 0 {
            total.extend(std::iter::repeat_n(
                count(p.positions + p.embedding_norm),
                2,
            ));
        }
        total.extend(std::iter::repeat_n(
            count(p.encoder_layer),
            s.encoder_layers,
        ));
        total.extend(std::iter::repeat_n(
            count(p.decoder_layer),
            self.config.n_layer,
        ));
        let mut out = vec![
            product(&[&v, &d], count(p.embedding)),
            Relation::Sum {
                terms: vec![d.clone(), d.clone()],
                total: ln.clone(),
            },
            Relation::Sum {
                terms: vec![attn.clone(), count(p.encoder_mlp), ln.clone(), ln.clone()],
                total: count(p.encoder_layer),
            },
            Relation::Sum {
                terms: vec![
                    attn.clone(),
                    attn,
                    count(p.decoder_mlp),
                    ln.clone(),
                    ln.clone(),
                    ln,
                ],
                total: count(p.decoder_layer),
            },
            Relation::Same {
                a: count(p.total),
                b: thousands(p.total),
            },
        ];
        if p.unembedding > 0 {
            out.push(product(&[&d, &v], count(p.unembedding)));
            total.push(count(p.unembedding));
        }
        out.push(Relation::Sum {
            terms: total,
            total: count(p.total),
        });
        out
    }

    fn describe(&self) -> String {
        let (config, s, p) = (self.config, self.s, &self.p);
        let (d, v) = (thousands(config.n_embd), thousands(config.vocab_size));
        format!(
            "The model as traced (a {} encoder-decoder): the source's {} token ids select rows \
             of the token embedding ({v} × {d}), to which {} positions are added. The encoder's \
             {} layers each apply self-attention with {} heads and no mask, add it to the \
             residual stream and normalise it (LayerNorm), then an MLP ({d} → {} → {d}), add \
             and normalise; {} parameters per layer. Its output, {} × {d}, gives the keys and \
             values of every cross-attention. The decoder reads {} tokens (the start token, then \
             each one it wrote) through the same embedding; its {} layers each apply masked \
             self-attention, cross-attention to the encoder's output, and an MLP, each added \
             and normalised; {} parameters per layer. The unembedding turns each decoder \
             position into {v} logits. {} parameters in all.",
            config.model_type(),
            self.source,
            s.positions,
            s.encoder_layers,
            s.encoder_heads,
            thousands(s.encoder_ffn_dim),
            count(p.encoder_layer),
            self.source,
            self.target,
            config.n_layer,
            count(p.decoder_layer),
            count(p.total)
        )
    }
}

/// One post-norm sublayer from `y`: the branch off the residual stream into the sublayer,
/// its add back, and the LayerNorm on the stream after the add.
fn post_norm(y: f64, title: &str, detail: &str, norm_params: usize) -> Vec<Element> {
    vec![
        line("tbf-line", RESIDUAL_X, y, RESIDUAL_X, y + 53.0),
        arrow((RESIDUAL_X, y + 20.0), (SUB_X - 2.0, y + 20.0)),
        labelled_box(SUB_X, y, SUB_W, 40.0, title, detail),
        arrow((SUB_X + 20.0, y + 40.0), (RESIDUAL_X + 9.0, y + 58.0)),
        plus(RESIDUAL_X, y + 62.0),
        line("tbf-line", RESIDUAL_X, y + 71.0, RESIDUAL_X, y + 76.0),
        rect("tbf-box", RESIDUAL_X - 36.0, y + 76.0, 72.0, 22.0).attr("rx", 4.0),
        text(RESIDUAL_X, y + 91.0)
            .class("tbf-s")
            .attr("text-anchor", "middle")
            .text("LayerNorm"),
        note(
            format!("{} parameters", count(norm_params)),
            RESIDUAL_X + 44.0,
            y + 91.0,
        ),
        line("tbf-line", RESIDUAL_X, y + 98.0, RESIDUAL_X, y + SUBLAYER_H),
    ]
}

/// The MLP's activation as the diagram names it.
fn activation(config: &ModelShape) -> &'static str {
    match config.activation_function.as_str() {
        "silu" | "swish" => "SiLU",
        "relu" => "ReLU",
        a if a.starts_with("gelu") => "GELU",
        _ => "act",
    }
}

#[cfg(test)]
#[path = "architecture_seq2seq_tests.rs"]
mod tests;
