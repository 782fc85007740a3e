//! Which self-attention `figure attention` (and `attention-grid`, `attention-steps`) draws: a
//! decoder-only model's one stack of layers, or one of an encoder-decoder's two (`stack`): the
//! encoder's, over the source tokens with nothing masked, or the decoder's, causal, over the
//! positions the decoder read (its start token first). Each has its own tensors, layer and
//! head counts, and token labels.

use super::Stage;
use crate::error::FigureError;
use crate::options::{choice, Block, Head, HeadKey, Layer, LayerKey, TokenKey};
use crate::prompt::{Checked, Prompt};
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

    /// The block's `layer`, in range for this stack, or `None` (every layer) when it is
    /// absent: for a kind that draws every layer unless told one.
    pub(in crate::kinds) fn layer_or_all<T>(
        &self,
        block: &Block<'_, T>,
        kind: &str,
        layer: Option<LayerKey>,
    ) -> Result<Option<Layer>, FigureError> {
        let (Some(stack), Some(key)) = (self.stack, layer) else {
            return block.layer_or_all(layer);
        };
        let part = format!("the {}", stack.word());
        let count = (self.n_layer, "layers");
        let layer = block.index_in(kind, ("layer", Some(key.0)), count, &part)?;
        Ok(Some(Layer(layer)))
    }

    /// The block's `token` (`0..T`, or `-T..=-1` from the end) among this stack's tokens.
    pub(in crate::kinds) fn token<T>(
        &self,
        block: &Block<'_, T>,
        key: TokenKey,
    ) -> Result<usize, FigureError> {
        let Some(stack) = self.stack else {
            return Ok(block.token(key)?.0);
        };
        let n_tokens = self.tokens.len();
        let (n, value) = (n_tokens as i64, key.0);
        let resolved = if value < 0 { value + n } else { value };
        if (0..n).contains(&resolved) {
            return Ok(resolved as usize);
        }
        let has = match stack {
            Stack::Encoder => format!("the encoder reads {n_tokens} source tokens"),
            Stack::Decoder => format!("the decoder read {n_tokens} tokens"),
        };
        Err(
            FigureError::at("token", format!("token = {value} is out of range: {has}")).with_hint(
                format!(
                    "use 0 to {} from the start, or -1 to -{n_tokens} from the end",
                    n - 1
                ),
            ),
        )
    }

    /// Block `layer`'s per-head activation `what` (`q`, `v`, `z`; H×T×dh) in this stack (a
    /// decoder-only model's `k` and `v` may have fewer heads: see `Prompt::heads`).
    pub(in crate::kinds) fn heads(
        &self,
        prompt: &Prompt<'_>,
        layer: Layer,
        what: &str,
    ) -> Result<Checked, FigureError> {
        if self.stack.is_none() {
            return prompt.heads(layer, &format!("attn.{what}"));
        }
        let width = prompt.config().n_embd / self.n_head.max(1);
        let shape = [self.n_head, self.tokens.len(), width];
        prompt.shaped(&self.tensor(layer, what), &shape)
    }

    /// The key/value head that query head `head` reads: itself, unless a decoder-only
    /// model groups its attention.
    pub(in crate::kinds) fn kv_head(&self, prompt: &Prompt<'_>, head: Head) -> usize {
        match self.stack {
            None => prompt.kv_head(head.0),
            Some(_) => head.0,
        }
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
