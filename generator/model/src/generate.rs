//! Continuing a prompt token by token with candle-transformers' sampler (plain forward, no recording).

use crate::error::Result;
use crate::recorder::NoRecorder;
use crate::topk::{softmax, top_k};
use crate::transformer::Transformer;

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

/// Continue `ids` by `options.generate` tokens. Same options and seed, same tokens.
pub fn generate(
    model: &Transformer,
    ids: &[u32],
    options: &PromptOptions,
    keep: usize,
) -> Result<Vec<Step>> {
    let mut sampler = LogitsProcessor::from_sampling(options.seed.unwrap_or(0), sampling(options));
    let mut ids = ids.to_vec();
    let mut steps = Vec::with_capacity(options.generate);
    for _ in 0..options.generate {
        let logits = model.forward(&ids, &mut NoRecorder)?;
        let last = logits.get(ids.len() - 1)?;
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
    let Some(width) = options.beams else {
        return Ok(None);
    };
    let mut nodes: Vec<BeamNode> = Vec::new();
    // The nodes of the last level, with the tokens that lead to them.
    let mut level: Vec<(Option<usize>, Vec<u32>)> = vec![(None, ids.to_vec())];
    for _ in 0..options.generate {
        let mut next = Vec::with_capacity(level.len() * width);
        for (parent, sequence) in &level {
            let logits = model.forward(sequence, &mut NoRecorder)?;
            let values = logits.get(sequence.len() - 1)?.to_vec1::<f32>()?;
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let lse = max
                + values
                    .iter()
                    .map(|v| f64::from(v - max).exp())
                    .sum::<f64>()
                    .ln() as f32;
            for (id, value) in top_k(&values, width) {
                let mut path = sequence.clone();
                path.push(id);
                next.push((Some(nodes.len()), path));
                nodes.push(BeamNode {
                    parent: *parent,
                    id,
                    logprob: value - lse,
                });
            }
        }
        level = next;
    }
    Ok(Some(BeamTree {
        width,
        steps: options.generate,
        nodes,
    }))
}
