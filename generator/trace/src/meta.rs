//! What a trace records besides tensors: the model, the prompt, its tokens and what was generated.

use crate::attribution::Attribution;
use crate::intervention::{Ablation, Patching};
use crate::precision::Precision;
use crate::prompt::PromptSpec;
pub use crate::tokens::{Candidate, Token};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Next-token candidates kept per position when the site does not say.
pub const DEFAULT_TOP_K: usize = 20;

/// The sizes of the model that made a trace (from its config.json).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ModelShape {
    pub n_layer: usize,
    pub n_head: usize,
    pub n_embd: usize,
    pub n_positions: usize,
    pub vocab_size: usize,
    pub layer_norm_epsilon: f64,
    /// The MLP's activation as config.json names it; absent means GPT-2's `gelu_new`.
    #[serde(default = "gelu_new", skip_serializing_if = "is_gelu_new")]
    pub activation_function: String,
    /// The config's `model_type` (`llama`, `qwen3`, ...); absent means `gpt2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_type: Option<String>,
    /// Key/value heads when fewer than the query heads share them (grouped-query attention):
    /// query head h reads key/value head h / (n_head / n_kv_head). Absent: one per query head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_kv_head: Option<usize>,
    /// Each head's width when it is not n_embd / n_head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_dim: Option<usize>,
    /// RoPE's base for a rotary model; absent for learned positions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rope_theta: Option<f64>,
    /// What a Llama-family block holds beyond these sizes; absent for GPT-2, and in traces
    /// written before tracebook recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decoder: Option<DecoderBlock>,
    /// An encoder-decoder (Marian, BART): the encoder's sizes and how positions enter. The
    /// fields above then describe the decoder (`n_layer`, `n_head`) and both (`n_embd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq2seq: Option<Seq2SeqShape>,
}

/// What sets an encoder-decoder's shape apart.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Seq2SeqShape {
    pub encoder_layers: usize,
    pub encoder_heads: usize,
    pub encoder_ffn_dim: usize,
    pub decoder_ffn_dim: usize,
    /// `sinusoidal` (Marian) or `learned` (BART).
    pub positions: String,
    /// The token embeddings are multiplied by √d_model (Marian's `scale_embedding`); absent in
    /// traces written before tracebook recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_embedding: Option<bool>,
    /// The unembedding is the shared token embedding (else an `lm_head` of its own); absent in
    /// traces written before tracebook recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tie_word_embeddings: Option<bool>,
}

/// The parts of a Llama-family model its sizes do not say: what the diagrams and parameter
/// counts of `architecture` and `shapes` need.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct DecoderBlock {
    /// The gated MLP's width (gate and up project d to it).
    pub intermediate_size: usize,
    /// The unembedding is the token embedding (no `lm_head` of its own).
    pub tie_word_embeddings: bool,
    /// Biases on the q, k and v projections (Qwen2).
    #[serde(default, skip_serializing_if = "is_false")]
    pub qkv_bias: bool,
    /// A bias on the attention's output projection.
    #[serde(default, skip_serializing_if = "is_false")]
    pub o_bias: bool,
    /// Biases on the MLP's three projections.
    #[serde(default, skip_serializing_if = "is_false")]
    pub mlp_bias: bool,
    /// An RMSNorm over each head's q and k before the rotation (Qwen3).
    #[serde(default, skip_serializing_if = "is_false")]
    pub qk_norm: bool,
}

fn is_false(b: &bool) -> bool {
    !b
}

impl Default for ModelShape {
    /// GPT-2 small's sizes.
    fn default() -> ModelShape {
        ModelShape {
            n_layer: 12,
            n_head: 12,
            n_embd: 768,
            n_positions: 1024,
            vocab_size: 50257,
            layer_norm_epsilon: 1e-5,
            activation_function: gelu_new(),
            model_type: None,
            n_kv_head: None,
            head_dim: None,
            rope_theta: None,
            decoder: None,
            seq2seq: None,
        }
    }
}

impl ModelShape {
    /// The config's `model_type`: `gpt2` unless the trace says otherwise.
    pub fn model_type(&self) -> &str {
        self.model_type.as_deref().unwrap_or("gpt2")
    }

    /// Key/value heads (n_head unless attention is grouped).
    pub fn kv_heads(&self) -> usize {
        self.n_kv_head.unwrap_or(self.n_head)
    }

    /// Each head's width.
    pub fn head_width(&self) -> usize {
        self.head_dim.unwrap_or(self.n_embd / self.n_head.max(1))
    }
}

fn gelu_new() -> String {
    "gelu_new".into()
}

fn is_gelu_new(name: &String) -> bool {
    name == "gelu_new"
}

fn f32_name() -> String {
    "f32".into()
}

fn is_f32(name: &String) -> bool {
    name == "f32"
}

/// Which model made a trace: its id as the site names it, its sizes, and the sha256 of its weights.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ModelInfo {
    pub id: String,
    /// What readers are shown (`[model] name`, or a prompt's `name` beside its own `model`;
    /// without one, a folder model's folder name). Absent in traces written before it, which
    /// are shown by [`crate::model_label`] of the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub config: ModelShape,
    /// Lowercase hex sha256 of the weights file (of a sharded checkpoint: see
    /// `DigestCache::weights_sha256`).
    pub weights_sha256: String,
    /// How the weights were stored: `f32` (absent), `f16`, `bf16`, or several joined by `+`.
    /// Traces are always computed in f32.
    #[serde(default = "f32_name", skip_serializing_if = "is_f32")]
    pub weights_dtype: String,
}

/// One generated token: what was chosen, its probability, and the likeliest candidates.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GenerationStep {
    pub id: u32,
    pub text: String,
    #[serde(with = "crate::float_json")]
    pub prob: f32,
    pub top: Vec<Candidate>,
}

/// One word of the prompt as byte-pair encoding built it: the word's byte span in the prompt
/// text, the tokens of its single bytes it started from, and every merge in the order the
/// tokenizer applied them, so a reader can replay the encoding without the tokenizer.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct WordMerges {
    pub start: usize,
    pub end: usize,
    /// The ids of the word's bytes, one per byte, before any merge.
    pub bytes: Vec<u32>,
    pub merges: Vec<Merge>,
}

/// One BPE merge: the parts at `at` and `at + 1` became the token `id`, by the merge rule of
/// rank `rank` (0 is the rule learned first; the tokenizer applies the lowest rank it can).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Merge {
    pub at: usize,
    pub id: u32,
    pub rank: u32,
}

/// A beam-search tree the model scored: from the prompt, each node's likeliest next tokens
/// with their log-probabilities, down to `steps` tokens.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BeamTree {
    /// Children kept per node: the widest beam search the tree replays.
    pub width: usize,
    /// Depth: tokens after the prompt.
    pub steps: usize,
    /// Nodes in breadth-first order; a node's children follow in the order of likelihood.
    pub nodes: Vec<BeamNode>,
}

/// One node: its parent (`None` for a child of the prompt), the token and ln p(token | the
/// prompt and the tokens on the path to it).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct BeamNode {
    pub parent: Option<usize>,
    pub id: u32,
    #[serde(with = "crate::float_json")]
    pub logprob: f32,
}

/// How a site asks traces to be made (`[trace]` in tracebook.toml).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
#[serde(default, deny_unknown_fields)]
pub struct TraceOptions {
    pub precision: Precision,
    /// Next-token candidates kept per position.
    pub top_k: usize,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            precision: Precision::default(),
            top_k: DEFAULT_TOP_K,
        }
    }
}

/// Everything a trace says about its run, apart from the tensors.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TraceMeta {
    /// The tool that wrote the trace, e.g. "tracebook 0.1.0".
    pub tool: String,
    /// The prompt's name in the site ("" for an ad-hoc `--prompt` trace).
    pub name: String,
    pub model: ModelInfo,
    pub prompt: PromptSpec,
    pub options: TraceOptions,
    pub tokens: Vec<Token>,
    /// The continuation, one step per generated token (empty when nothing was generated).
    pub generation: Vec<GenerationStep>,
    /// The text of every token id the trace mentions (prompt tokens, `logits.topk_ids`,
    /// generated tokens and their candidates), so readers need no tokenizer.
    #[serde(default)]
    pub token_texts: BTreeMap<u32, String>,
    /// How the model was trained, when its folder holds the `training_log.json` that
    /// `tracebook train` writes (absent for other checkpoints, such as GPT-2's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<TrainingSummary>,
    /// Each word of the prompt as byte-pair encoding built it, for tokenizers whose merges
    /// are known (GPT-2 style byte-level BPE); empty for other tokenizers and in traces
    /// written before tracebook recorded merges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merges: Vec<WordMerges>,
    /// The beam-search tree the prompt asked for (`beams = N`), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beam: Option<BeamTree>,
    /// Each head and MLP ablated in turn (`ablate = {...}`), if the prompt asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ablation: Option<Ablation>,
    /// Activation patching into a corrupted prompt (`patch = {...}`), if the prompt asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patching: Option<Patching>,
    /// The targets' logits split among the model's parts (`attribute = {...}`), if asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// An encoder-decoder's trace: the prompt is the source text (`tokens`, the encoder's
    /// positions, ending with `</s>`), and this is the translation the decoder wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<Translation>,
}

impl TraceMeta {
    /// The meta of a trace about to be recorded: who made it, of what, and the prompt's
    /// tokens; what the run adds (generation, token texts, experiments) starts empty.
    pub fn new(
        tool: String,
        name: &str,
        model: ModelInfo,
        prompt: PromptSpec,
        options: TraceOptions,
        tokens: Vec<Token>,
    ) -> TraceMeta {
        TraceMeta {
            tool,
            name: name.to_string(),
            model,
            prompt,
            options,
            tokens,
            generation: Vec::new(),
            token_texts: BTreeMap::new(),
            training: None,
            merges: Vec::new(),
            beam: None,
            ablation: None,
            patching: None,
            attribution: None,
            translation: None,
        }
    }
}

/// The decoder's side of an encoder-decoder trace.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Translation {
    /// The translation as text (special tokens left out).
    pub text: String,
    /// The decoder's positions: its start token (an empty span), then each token it wrote
    /// but the last, with spans into `text`; position t's prediction is
    /// `generation[t]`, so the last one written (often `</s>`) is only in `generation`.
    pub tokens: Vec<Token>,
}

/// A model's training run in brief, for figures of the loss curve.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TrainingSummary {
    /// Optimiser steps done.
    pub steps: usize,
    /// Training tokens per step (batch size × context).
    pub tokens_per_step: usize,
    /// Tokens in the training split of the corpus.
    pub corpus_tokens: usize,
    pub parameters: usize,
    /// Training loss (nats per token), as `[step, mean loss]` over consecutive groups of
    /// steps ending at `step` (at most 200 points).
    pub loss: Vec<(usize, f64)>,
    /// Validation loss as `[step, loss]`; step 0 is the untrained model.
    pub val_loss: Vec<(usize, f64)>,
    /// Validation loss of a bigram model counted on the same training split, if measured.
    pub bigram_val_loss: Option<f64>,
    /// The learning rate as `[step, lr]`, the rate of each `loss` group's last step; empty in
    /// traces written before tracebook recorded it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lr: Vec<(usize, f64)>,
    /// The gradient norm before clipping as `[step, mean norm]`, over the groups of `loss`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grad_norm: Vec<(usize, f64)>,
    /// One weight followed through the run, when the run recorded one (`tracebook train`
    /// does since it wrote `watched` into its log; earlier runs did not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<WeightHistory>,
}

/// One number of the model's weights over a training run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeightHistory {
    /// The weight tensor, as the checkpoint names it (`h.0.attn.c_attn.weight`).
    pub name: String,
    /// The number's index in the tensor, flattened row-major.
    pub index: usize,
    /// Its value as `[step, value]` after each group's last step; step 0 is the initial value.
    pub values: Vec<(usize, f64)>,
    /// The gradient of the loss with respect to it as `[step, mean gradient]` over each group
    /// (after clipping, what the optimiser was given).
    pub grads: Vec<(usize, f64)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_options_default_to_compact_and_top_20_and_reject_typos() {
        let options: TraceOptions = serde_json::from_str("{}").unwrap();
        assert_eq!(options, TraceOptions::default());
        assert_eq!(options.precision, Precision::Compact);
        assert_eq!(options.top_k, 20);
        let err = serde_json::from_str::<TraceOptions>(r#"{"precison":"f32"}"#).unwrap_err();
        assert!(
            err.to_string().contains("unknown field `precison`"),
            "{err}"
        );
    }
}
