//! [`Prompt`]: the prompt a figure draws, with its trace, and tensor access whose errors
//! say which prompt's trace lacks what and how to rewrite it.

use crate::error::FigureError;
use crate::options::Layer;
use tracebook_trace::{ModelShape, Tensor, Token, Trace};

/// A prompt named by a figure's `prompt` option, with its trace.
#[derive(Debug, Clone)]
pub struct Prompt<'t> {
    pub name: String,
    pub trace: &'t Trace,
}

/// A tensor checked to have the shape a figure expects and only finite values.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl Checked {
    /// The innermost row at `index` (all but the last dimension), as f64.
    pub fn row(&self, index: &[usize]) -> Vec<f64> {
        let cols = *self.shape.last().unwrap_or(&1);
        let mut offset = 0;
        for (i, dim) in index.iter().zip(&self.shape) {
            offset = offset * dim + i;
        }
        self.data[offset * cols..(offset + 1) * cols]
            .iter()
            .map(|&v| f64::from(v))
            .collect()
    }

    /// The value at `index` (all dimensions), as f64.
    pub fn at(&self, index: &[usize]) -> f64 {
        let mut offset = 0;
        for (i, dim) in index.iter().zip(&self.shape) {
            offset = offset * dim + i;
        }
        f64::from(self.data[offset])
    }
}

impl Prompt<'_> {
    /// The model's sizes.
    pub fn config(&self) -> &ModelShape {
        &self.trace.meta.model.config
    }

    /// The prompt's tokens, which a figure needs at least one of.
    pub fn tokens(&self) -> Result<&[Token], FigureError> {
        let tokens = &self.trace.meta.tokens;
        if tokens.is_empty() {
            return Err(self.broken(format!("the trace of \"{}\" has no tokens", self.name)));
        }
        Ok(tokens)
    }

    /// The tensor `name`, checked to have `rank` dimensions.
    pub fn tensor(&self, name: &str, rank: usize) -> Result<Tensor, FigureError> {
        let tensor = self.trace.tensor(name).map_err(|e| {
            self.broken(format!(
                "cannot read `{name}` from the trace of \"{}\": {e}",
                self.name
            ))
        })?;
        if tensor.shape.len() != rank {
            return Err(self.broken(format!(
                "`{name}` in the trace of \"{}\" has shape {:?}, expected {rank} dimensions",
                self.name, tensor.shape
            )));
        }
        Ok(tensor)
    }

    /// The tensor `name`, checked to have exactly `shape` and finite values.
    pub fn shaped(&self, name: &str, shape: &[usize]) -> Result<Checked, FigureError> {
        let tensor = self.tensor(name, shape.len())?;
        if tensor.shape != shape {
            return Err(self.broken(format!(
                "`{name}` in the trace of \"{}\" has shape {:?}; this prompt and model need {shape:?}",
                self.name, tensor.shape
            )));
        }
        if let Some(bad) = tensor.data.iter().position(|v| !v.is_finite()) {
            return Err(self.broken(format!("`{name}` holds a non-finite value at index {bad}")));
        }
        Ok(Checked {
            shape: tensor.shape,
            data: tensor.data,
        })
    }

    /// A T×`cols` activation of block `layer`, e.g. `block(layer, "resid_pre", d)`.
    pub fn block(&self, layer: Layer, what: &str, cols: usize) -> Result<Checked, FigureError> {
        let n = self.tokens()?.len();
        self.shaped(&format!("blocks.{}.{what}", layer.0), &[n, cols])
    }

    /// A per-head activation of block `layer`: `attn.q` or `.z` (H×T×dh), or `attn.k` or `.v`
    /// (one per key/value head: fewer than H when attention is grouped, see `kv_head`).
    pub fn heads(&self, layer: Layer, what: &str) -> Result<Checked, FigureError> {
        let n = self.tokens()?.len();
        let config = self.config();
        let heads = match what {
            "attn.k" | "attn.v" | "attn.k_unrotated" => config.kv_heads(),
            _ => config.n_head,
        };
        let name = format!("blocks.{}.{what}", layer.0);
        self.shaped(&name, &[heads, n, config.head_width()])
    }

    /// The key/value head that query head `head` reads (itself unless attention is grouped).
    pub fn kv_head(&self, head: usize) -> usize {
        let config = self.config();
        head / (config.n_head / config.kv_heads().max(1)).max(1)
    }

    /// Refuse, naming what the model has instead, to draw a part of GPT-2's architecture
    /// that the model of this trace does not have.
    pub fn needs(&self, kind: &str, part: Gpt2Part) -> Result<(), FigureError> {
        let config = self.config();
        let family = config.model_type();
        if family == "gpt2" {
            return Ok(());
        }
        let model = self.trace.meta.model.shown();
        let (draws, instead) = match part {
            Gpt2Part::LearnedPositions => (
                "learned position embeddings (`pos_embed`)",
                "has none: it rotates each head's queries and keys by their position (RoPE)"
                    .to_string(),
            ),
            Gpt2Part::LayerNorm => (
                "LayerNorm (subtract the mean, divide by the standard deviation)",
                "normalises with RMSNorm: it subtracts no mean and divides by the root mean \
                 square (its trace records `blocks.L.ln1.rms`)"
                    .to_string(),
            ),
            Gpt2Part::PlainMlp => (
                "an MLP that widens, applies GELU and narrows",
                format!(
                    "has a gated MLP, {}(gate) × up (its trace records `mlp.gate`, `mlp.up`, \
                     `mlp.act` and `mlp.post`)",
                    config.activation_function
                ),
            ),
        };
        Err(FigureError::new(format!(
            "figure `{kind}` draws {draws}; the model {model} that made this trace is a \
             {family} model, which {instead}"
        ))
        .with_hint("draw it from a prompt traced with a GPT-2 model, or use a figure that applies (attention, residual, logit-lens, ...)"))
    }

    /// Refuse, naming what GPT-2 has instead and the kind that draws it, to draw a part of
    /// the Llama family's architecture from a GPT-2 trace.
    pub fn needs_family(&self, kind: &str, part: FamilyPart) -> Result<(), FigureError> {
        let family = self.config().model_type();
        if family != "gpt2" {
            return Ok(());
        }
        let (draws, instead) = match part {
            FamilyPart::Rope => (
                "rotary position embeddings (RoPE)",
                "GPT-2 has learned positions, no rotation; see `positional`",
            ),
            FamilyPart::RmsNorm => (
                "RMSNorm (divide by the root mean square, no mean, no bias)",
                "GPT-2 normalises with LayerNorm; see `layernorm`",
            ),
            FamilyPart::GatedMlp => (
                "a gated MLP (act(gate) × up)",
                "GPT-2's MLP has no gate, it widens, applies GELU and narrows; see `mlp`",
            ),
        };
        let model = self.trace.meta.model.shown();
        Err(FigureError::new(format!(
            "figure `{kind}` draws {draws}; the model {model} that made this trace is a \
             {family} model: {instead}"
        ))
        .with_hint("draw it from a prompt traced with a Llama-family model (llama, mistral, qwen2, qwen3, gemma)"))
    }

    /// An error about the trace's contents, pointing at the `prompt` key.
    pub fn broken(&self, message: String) -> FigureError {
        FigureError::at("prompt", message).with_hint(format!(
            "re-run `tracebook trace --force --only {}` to rewrite the trace",
            self.name
        ))
    }
}

/// Parts of GPT-2's architecture that some figures draw and other families lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gpt2Part {
    LearnedPositions,
    LayerNorm,
    PlainMlp,
}

/// Parts of the Llama family's architecture that some figures draw and GPT-2 lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FamilyPart {
    Rope,
    RmsNorm,
    GatedMlp,
}
