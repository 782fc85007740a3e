//! Which self-attention `figure attention` draws: a decoder-only model's one stack of layers,
//! or one of an encoder-decoder's two (`stack`): the encoder's, over the source tokens with
//! nothing masked, or the decoder's, causal, over the positions the decoder read (its start
//! token first). Each has its own tensors, layer and head counts, and token labels.

use super::Stage;
use crate::error::FigureError;
use crate::options::{choice, Block, Head, HeadKey, Layer, LayerKey};
use crate::prompt::Prompt;
use tracebook_trace::Token;

choice! {
    /// One of an encoder-decoder's two stacks of self-attention.
    pub(in crate::kinds) enum Stack { Encoder = "encoder", Decoder = "decoder" } default Encoder
}

/// The self-attention a figure draws: its stack, tokens and size.
pub(in crate::kinds) struct View<'t> {
    /// `None` for a decoder-only model, which has one stack.
    pub(in crate::kinds) stack: Option<Stack>,
    /// The queries' and keys' tokens: the prompt's (the encoder's source tokens), or the
    /// tokens the decoder read (`translation.tokens`).
    pub(in crate::kinds) tokens: &'t [Token],
    pub(in crate::kinds) n_layer: usize,
    pub(in crate::kinds) n_head: usize,
}

impl<'t> View<'t> {
    /// The view of `prompt`'s trace that `stack` asks for, or why it cannot be drawn: an
    /// encoder-decoder needs a stack, a decoder-only model has just one.
    pub(in crate::kinds) fn of(
        prompt: &Prompt<'t>,
        stack: Option<Stack>,
        kind: &str,
    ) -> Result<View<'t>, FigureError> {
        let trace: &'t tracebook_trace::Trace = prompt.trace;
        let config = &trace.meta.model.config;
        let model = config.model_type();
        let Some(translation) = &trace.meta.translation else {
            return match stack {
                None => Ok(View {
                    stack,
                    tokens: &trace.meta.tokens,
                    n_layer: config.n_layer,
                    n_head: config.n_head,
                }),
                Some(_) => Err(one_stack(prompt, kind, model)),
            };
        };
        let Some(shape) = &config.seq2seq else {
            return Err(prompt.broken(format!(
                "the trace of \"{}\" has a translation but no `model.config.seq2seq` giving \
                 its encoder's size",
                prompt.name
            )));
        };
        let (tokens, n_layer, n_head) = match stack {
            None => return Err(two_stacks(prompt, kind, model)),
            Some(Stack::Encoder) => (
                &trace.meta.tokens,
                shape.encoder_layers,
                shape.encoder_heads,
            ),
            Some(Stack::Decoder) => (&translation.tokens, config.n_layer, config.n_head),
        };
        Ok(View {
            stack,
            tokens,
            n_layer,
            n_head,
        })
    }

    /// The name of `layer`'s attention tensor `what` (`pattern`, `scores`).
    pub(in crate::kinds) fn tensor(&self, layer: Layer, what: &str) -> String {
        let l = layer.0;
        match self.stack {
            None => format!("blocks.{l}.attn.{what}"),
            Some(Stack::Encoder) => format!("encoder.blocks.{l}.attn.{what}"),
            Some(Stack::Decoder) => format!("decoder.blocks.{l}.self_attn.{what}"),
        }
    }

    /// Whether a query sees only itself and the keys before it (all but the encoder).
    pub(in crate::kinds) fn causal(&self) -> bool {
        self.stack != Some(Stack::Encoder)
    }

    /// Whether the queries and keys are the prompt's tokens (not the decoder's positions),
    /// for the page's token highlight.
    pub(in crate::kinds) fn prompt_tokens(&self) -> bool {
        self.stack != Some(Stack::Decoder)
    }

    /// "Layer 1", or with a stack "Encoder layer 1".
    pub(in crate::kinds) fn layer_words(&self, layer: Layer) -> String {
        match self.stack {
            None => format!("Layer {}", layer.0),
            Some(Stack::Encoder) => format!("Encoder layer {}", layer.0),
            Some(Stack::Decoder) => format!("Decoder layer {}", layer.0),
        }
    }

    /// The block's `layer` and `head`, in range for this stack.
    pub(in crate::kinds) fn layer_head<T>(
        &self,
        block: &Block<'_, T>,
        kind: &str,
        (layer, head): (Option<LayerKey>, Option<HeadKey>),
    ) -> Result<(Layer, Head), FigureError> {
        let Some(stack) = self.stack else {
            return Ok((block.layer(kind, layer)?, block.head(kind, head)?));
        };
        let part = format!("the {}", stack.word());
        let layer = block.index_in(
            kind,
            ("layer", layer.map(|l| l.0)),
            (self.n_layer, "layers"),
            &part,
        )?;
        let head = block.index_in(
            kind,
            ("head", head.map(|h| h.0)),
            (self.n_head, "heads"),
            &part,
        )?;
        Ok((Layer(layer), Head(head)))
    }

    /// Refuses `masked` on the encoder, which masks nothing.
    pub(in crate::kinds) fn allows(&self, stage: Stage) -> Result<(), FigureError> {
        if stage != Stage::Masked || self.causal() {
            return Ok(());
        }
        Err(FigureError::at(
            "stage",
            "stage = \"masked\" draws the scores after the causal mask, but the encoder masks \
             nothing: every source token attends to every other, before and after it",
        )
        .with_hint(
            "use stage = \"scores\" (the same numbers, every cell drawn) or stage = \"pattern\"",
        ))
    }
}

/// A decoder-only model was given a `stack`.
fn one_stack(prompt: &Prompt<'_>, kind: &str, model: &str) -> FigureError {
    FigureError::at(
        "stack",
        format!(
            "`stack` picks an encoder-decoder's encoder or decoder, but \"{}\" was traced with \
             a decoder-only model (model_type {model}), which has one stack of layers",
            prompt.name
        ),
    )
    .with_hint(format!(
        "leave `stack` out: figure `{kind}` draws this model's one stack"
    ))
}

/// An encoder-decoder's trace without a `stack`.
fn two_stacks(prompt: &Prompt<'_>, kind: &str, model: &str) -> FigureError {
    FigureError::at(
        "stack",
        format!(
            "figure `{kind}` needs `stack`: \"{}\" was traced with an encoder-decoder ({model}), \
             which has two stacks of self-attention, the encoder's over the source and the \
             decoder's over what it wrote",
            prompt.name
        ),
    )
    .with_hint(
        "add a line stack = \"encoder\" or stack = \"decoder\"; figure `cross-attention` draws \
         the third kind, where the decoder looks in the source",
    )
}
