//! Causal interventions on the forward pass: ablation (each head's output and each MLP's
//! output replaced, one at a time) and activation patching (a clean run's activations copied
//! into a corrupted run, one site at a time).
//!
//! Each intervention at layer `l` changes nothing before block `l`, so its run starts from the
//! plain run's stream entering block `l`, and the runs that start at the same block go through
//! the remaining blocks together as one batch (their rows stacked, see
//! `Transformer::run_blocks`): a batch costs about what one run of as many tokens would, and
//! the matrix products of many short runs become a few tall ones.

pub mod estimate;
pub mod hooks;

use crate::derived::log_sum_exp;
use crate::error::Result;
use crate::topk::top_k;
use crate::transformer::Transformer;
use candle_core::Tensor;
use hooks::{Cache, Edit, Hooks, Site, Value};
use tracebook_trace::AblationMode;

/// Rows (sequences × tokens) one batch holds at most, which bounds its memory on long prompts.
const BATCH_ROWS: usize = 1024;

/// One run's next token after the prompt: the targets' log-probabilities (in the order asked)
/// and the `k` likeliest tokens as (id, probability).
#[derive(Clone, Debug, PartialEq)]
pub struct Next {
    pub logprobs: Vec<f32>,
    pub top: Vec<(u32, f32)>,
}

impl Next {
    fn of(logits: &[f32], targets: &[u32], k: usize) -> Next {
        let lse = log_sum_exp(logits);
        Next {
            logprobs: targets.iter().map(|&t| logits[t as usize] - lse).collect(),
            top: top_k(logits, k)
                .into_iter()
                .map(|(id, l)| (id, (l - lse).exp()))
                .collect(),
        }
    }
}

/// Every ablation of one prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct Ablated {
    pub base: Next,
    /// `heads[layer][head]`
    pub heads: Vec<Vec<Next>>,
    pub mlp: Vec<Next>,
}

/// Ablate each head's output and each layer's MLP output of the run over `ids`, one at a
/// time, replacing it by `mode`.
pub fn ablate(
    net: &Transformer,
    ids: &[u32],
    targets: &[u32],
    mode: AblationMode,
    k: usize,
) -> Result<Ablated> {
    let (cache, last) = plain(net, ids)?;
    let value = match mode {
        AblationMode::Zero => Value::Zero,
        AblationMode::Mean => Value::Mean,
    };
    let (layers, heads) = (net.config().n_layer(), net.config().n_head());
    let mut ablated = Ablated {
        base: Next::of(&last, targets, k),
        heads: Vec::with_capacity(layers),
        mlp: Vec::with_capacity(layers),
    };
    for layer in 0..layers {
        let sites = (0..heads)
            .map(|head| Site::Head { layer, head })
            .chain([Site::Mlp { layer }]);
        let edits = sites.map(|site| {
            Some(Edit {
                site,
                value: value.clone(),
            })
        });
        let mut rows = run_edits(net, layer, cache.resid_pre(layer)?, edits.collect())?;
        let mlp = rows.pop().expect("one run per head and one for the MLP");
        ablated.mlp.push(Next::of(&mlp, targets, k));
        let of_heads = rows.iter().map(|r| Next::of(r, targets, k)).collect();
        ablated.heads.push(of_heads);
    }
    Ok(ablated)
}

/// Activation patching's logit differences, answer − wrong at the last position.
#[derive(Clone, Debug, PartialEq)]
pub struct Patched {
    pub clean: f32,
    pub corrupted: f32,
    /// `resid[layer][position]`: the corrupted run with the clean stream entering block
    /// `layer` at `position`.
    pub resid: Vec<Vec<f32>>,
    /// `heads[layer][head]`: the corrupted run with that head's clean output.
    pub heads: Vec<Vec<f32>>,
    /// Attribution patching's estimate of both, normalised (see `estimate`).
    pub estimate: estimate::Estimated,
}

/// Patch the run over `clean` into the run over `corrupted` (as many tokens), site by site.
pub fn patch(
    net: &Transformer,
    clean: &[u32],
    corrupted: &[u32],
    answer: u32,
    wrong: u32,
) -> Result<Patched> {
    let diff = |row: &[f32]| row[answer as usize] - row[wrong as usize];
    let ((from, clean_last), (into, corrupted_last)) = (plain(net, clean)?, plain(net, corrupted)?);
    let (clean_diff, corrupted_diff) = (diff(&clean_last), diff(&corrupted_last));
    let (layers, heads, t) = (net.config().n_layer(), net.config().n_head(), clean.len());
    let estimate = estimate::estimate(
        net,
        &from,
        &into,
        corrupted,
        (answer, wrong),
        (clean_diff, corrupted_diff),
    )?;
    let mut patched = Patched {
        clean: clean_diff,
        corrupted: corrupted_diff,
        resid: Vec::with_capacity(layers),
        heads: Vec::with_capacity(layers),
        estimate,
    };
    for layer in 0..layers {
        let sites: Vec<Site> = (0..t)
            .map(|position| Site::Resid { layer, position })
            .chain((0..heads).map(|head| Site::Head { layer, head }))
            .collect();
        let edits = sites
            .into_iter()
            .map(|site| {
                let value = Value::From(from.site(site)?);
                Ok(Some(Edit { site, value }))
            })
            .collect::<Result<Vec<_>>>()?;
        let rows = run_edits(net, layer, into.resid_pre(layer)?, edits)?;
        let diffs: Vec<f32> = rows.iter().map(|r| diff(r)).collect();
        patched.resid.push(diffs[..t].to_vec());
        patched.heads.push(diffs[t..].to_vec());
    }
    Ok(patched)
}

/// The run over `ids` with nothing edited: what interventions start from and copy (each
/// block's input, each attention's `z`), and its next-token logits.
fn plain(net: &Transformer, ids: &[u32]) -> Result<(Cache, Vec<f32>)> {
    let mut cache = Cache::default();
    let logits = net.forward(ids, &mut cache)?;
    let last = logits.get(ids.len() - 1)?.to_vec1::<f32>()?;
    Ok((cache, last))
}

/// Each edit alone on the stream `start` (`[T, d]`) entering block `first`, in batches: the
/// next-token logits of each.
fn run_edits(
    net: &Transformer,
    first: usize,
    start: &Tensor,
    edits: Vec<Option<Edit>>,
) -> Result<Vec<Vec<f32>>> {
    let t = start.dim(0)?;
    let per_batch = (BATCH_ROWS / t).max(1);
    let mut out = Vec::with_capacity(edits.len());
    for chunk in edits.chunks(per_batch) {
        let batch = chunk.len();
        let x = start.repeat((batch, 1))?;
        let mut hooks = Hooks {
            edits: chunk.to_vec(),
        };
        let resid = net.run_blocks(first, &x, batch, &mut hooks)?;
        out.extend(net.next_token_logits(&resid, batch)?.to_vec2::<f32>()?);
    }
    Ok(out)
}
