//! Continuing a prompt token by token with candle-transformers' sampler (plain forward, no
//! recording), and the beam-search tree; a decoder-only model's or, from its own next-token
//! logits, an encoder-decoder's decoder.

use crate::error::Result;
use crate::recorder::NoRecorder;
use crate::topk::{softmax, top_k};
use crate::transformer::Transformer;

use candle_core::Tensor;
use candle_transformers::generation::{LogitsProcessor, Sampling};
use tracebook_trace::{BeamNode, BeamTree, PromptOptions};

/// One generated token: its id, its probability under the model (temperature 1), and the
/// `keep` likeliest candidates at that step with their probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub id: u32,
    pub prob: f32,
    pub top: Vec<(u32, f32)>,
}

/// The sampler an author's options ask for: greedy unless a temperature above zero is given.
pub fn sampling(options: &PromptOptions) -> Sampling {
    match (options.temperature, options.top_k, options.top_p) {
        (None, _, _) => Sampling::ArgMax,
        (Some(t), _, _) if t <= 0.0 => Sampling::ArgMax,
        (Some(temperature), None, None) => Sampling::All { temperature },
        (Some(temperature), Some(k), None) => Sampling::TopK { k, temperature },
        (Some(temperature), None, Some(p)) => Sampling::TopP { p, temperature },
        (Some(temperature), Some(k), Some(p)) => Sampling::TopKThenTopP { k, p, temperature },
    }
}

/// The logits `[V]` after the last of the ids it is given: the model's next-token scores.
pub type NextLogits<'a> = dyn FnMut(&[u32]) -> Result<Tensor> + 'a;

/// Where a continuation ends: after `most` tokens, or (an encoder-decoder's `</s>`) once it
/// writes `stop`, which is kept.
#[derive(Debug, Clone, Copy)]
pub struct Until {
    pub most: usize,
    pub stop: Option<u32>,
}

/// A decoder-only model's next-token logits after `ids` (plain forward, no recording).
fn last_logits(model: &Transformer, ids: &[u32]) -> Result<Tensor> {
    let logits = model.forward(ids, &mut NoRecorder)?;
    Ok(logits.get(ids.len() - 1)?)
}

/// Continue `ids` by `options.generate` tokens. Same options and seed, same tokens.
pub fn generate(
    model: &Transformer,
    ids: &[u32],
    options: &PromptOptions,
    keep: usize,
) -> Result<Vec<Step>> {
    let until = Until {
        most: options.generate,
        stop: None,
    };
    sample_steps(
        &mut |ids| last_logits(model, ids),
        ids,
        options,
        until,
        keep,
    )
}

/// Continue `ids` a token at a time with the sampler `options` ask for, each step's logits
/// from `next`, until `until`; each step keeps its `keep` likeliest candidates. Same options
/// and seed, same tokens.
pub fn sample_steps(
    next: &mut NextLogits,
    ids: &[u32],
    options: &PromptOptions,
    until: Until,
    keep: usize,
) -> Result<Vec<Step>> {
    let mut sampler = LogitsProcessor::from_sampling(options.seed.unwrap_or(0), sampling(options));
    let mut ids = ids.to_vec();
    let mut steps = Vec::with_capacity(until.most);
    for _ in 0..until.most {
        let last = next(&ids)?;
        let id = sampler.sample(&last)?;
        let values = last.to_vec1::<f32>()?;
        let probs = softmax(&values);
        let top = top_k(&values, keep)
            .into_iter()
            .map(|(i, _)| (i, probs[i as usize]))
            .collect();
        steps.push(Step {
            id,
            prob: probs[id as usize],
            top,
        });
        ids.push(id);
        if until.stop == Some(id) {
            break;
        }
    }
    Ok(steps)
}

/// The beam-search tree `options` ask for (`beams = N` over `generate` steps): from `ids`,
/// each node's `N` likeliest next tokens with their log-probabilities, breadth first. A beam
/// search of any width up to `N` over up to `generate` steps only ever looks at these nodes.
pub fn beam_tree(
    model: &Transformer,
    ids: &[u32],
    options: &PromptOptions,
) -> Result<Option<BeamTree>> {
    grow_beam_tree(&mut |ids| last_logits(model, ids), ids, options, None)
}

/// As [`beam_tree`], each node's logits from `next`; a node whose token is `stop` (an
/// encoder-decoder's `</s>`) ends its branch: it has no children.
pub fn grow_beam_tree(
    next: &mut NextLogits,
    ids: &[u32],
    options: &PromptOptions,
    stop: Option<u32>,
) -> Result<Option<BeamTree>> {
    let Some(width) = options.beams else {
        return Ok(None);
    };
    let mut nodes: Vec<BeamNode> = Vec::new();
    // The nodes of the last level, with the tokens that lead to them.
    let mut level: Vec<(Option<usize>, Vec<u32>)> = vec![(None, ids.to_vec())];
    for _ in 0..options.generate {
        let mut children = Vec::with_capacity(level.len() * width);
        for (parent, sequence) in &level {
            let values = next(sequence)?.to_vec1::<f32>()?;
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let lse = max
                + values
                    .iter()
                    .map(|v| f64::from(v - max).exp())
                    .sum::<f64>()
                    .ln() as f32;
            for (id, value) in top_k(&values, width) {
                if stop != Some(id) {
                    let mut path = sequence.clone();
                    path.push(id);
                    children.push((Some(nodes.len()), path));
                }
                nodes.push(BeamNode {
                    parent: *parent,
                    id,
                    logprob: value - lse,
                });
            }
        }
        level = children;
    }
    Ok(Some(BeamTree {
        width,
        steps: options.generate,
        nodes,
    }))
}
