//! What `figure cross-attention` reads from an encoder-decoder's trace: the tokens on its two
//! axes, and one layer's cross-attention (one head's, or the mean over the heads).

use crate::error::FigureError;
use crate::kinds::self_attention::attention::matrix::Matrix;
use crate::options::Layer;
use crate::prompt::Prompt;

/// One head, or the mean over every head of the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    Head(usize),
    Mean,
}

impl Which {
    /// "head 2", "mean of 4 heads".
    pub(super) fn words(self, n_head: usize) -> String {
        match self {
            Which::Head(h) => format!("head {h}"),
            Which::Mean => format!("mean of {n_head} heads"),
        }
    }
}

/// The two axes' labels: what each decoder position wrote, and the source tokens.
pub(super) struct Sides {
    /// Row t: the token the decoder wrote at position t (`generation[t]`).
    pub(super) written: Vec<String>,
    /// The encoder's positions, ending with `</s>`.
    pub(super) source: Vec<String>,
}

impl Sides {
    /// The sides of `prompt`'s trace, or why it has none: it is not an encoder-decoder's.
    pub(super) fn of(prompt: &Prompt<'_>, kind: &str) -> Result<Sides, FigureError> {
        let meta = &prompt.trace.meta;
        let Some(translation) = &meta.translation else {
            return Err(FigureError::at(
                "prompt",
                format!(
                    "figure `{kind}` draws where a decoder looks in the source it translates, \
                     but \"{}\" was traced with a decoder-only model ({}, model_type {}), \
                     which has no encoder and so no cross-attention",
                    prompt.name,
                    meta.model.shown(),
                    prompt.config().model_type()
                ),
            )
            .with_hint(
                "trace the prompt with an encoder-decoder such as Marian or BART (`model = \
                 \"Helsinki-NLP/opus-mt-en-fr\"` on the prompt), or draw this one with `attention`",
            ));
        };
        let t = translation.tokens.len();
        if t == 0 || meta.generation.len() != t || meta.tokens.is_empty() {
            return Err(prompt.broken(format!(
                "the trace of \"{}\" has {} decoder positions, {} written tokens and {} source \
                 tokens; an encoder-decoder's trace has as many written tokens as positions",
                prompt.name,
                t,
                meta.generation.len(),
                meta.tokens.len()
            )));
        }
        Ok(Sides {
            written: meta.generation.iter().map(|g| g.text.clone()).collect(),
            source: meta.tokens.iter().map(|t| t.text.clone()).collect(),
        })
    }
}

/// Layer `layer`'s cross-attention pattern, `which` head or the mean over them: rows the
/// decoder's positions, columns the source's.
pub(super) fn matrix(
    prompt: &Prompt<'_>,
    sides: &Sides,
    layer: Layer,
    which: Which,
) -> Result<Matrix, FigureError> {
    let (t, s) = (sides.written.len(), sides.source.len());
    let heads = prompt.config().n_head;
    let name = format!("decoder.blocks.{}.cross_attn.pattern", layer.0);
    let tensor = prompt.shaped(&name, &[heads, t, s])?;
    let data = match which {
        Which::Head(h) => tensor.data[h * t * s..(h + 1) * t * s].to_vec(),
        Which::Mean => (0..t * s)
            .map(|i| {
                let sum: f64 = (0..heads)
                    .map(|h| f64::from(tensor.data[h * t * s + i]))
                    .sum();
                (sum / heads.max(1) as f64) as f32
            })
            .collect(),
    };
    Ok(Matrix::full(data, t, s))
}
