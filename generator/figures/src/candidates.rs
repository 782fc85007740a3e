//! The model's next-token candidates at one position, with their probabilities.
//!
//! Every probability is `exact_math::prob(logit, lse)`: the logit as the trace stores it
//! (`logits.topk_values`, whose last row decodes to the same values as those ids in
//! `logits.last`) and the position's exact log-sum-exp of all V logits (`logits.lse`). The
//! loss figure, the inline values, the claims and the logit lens compute theirs the same way
//! (the tracer derives `loss.per_token` and the lens's probabilities from the same stored
//! numbers), so one token's probability prints alike everywhere. Candidates are the
//! position's row of `logits.topk_ids` (stored exactly, so rounding in stored logits cannot
//! reorder near-ties at the cut).

use crate::error::FigureError;
use crate::prompt::{Checked, Prompt};
use std::cell::OnceCell;
use tracebook_trace::exact_math::prob;

/// One candidate next token.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: u32,
    pub text: String,
    pub logit: f64,
    pub prob: f64,
}

/// The candidates after one position, likeliest first.
#[derive(Debug, Clone)]
pub struct Distribution {
    pub candidates: Vec<Candidate>,
    /// Every logit, where the trace keeps them (the last position).
    pub all_logits: Option<Vec<f32>>,
    /// The position's log-sum-exp of all V logits (`logits.lse`).
    pub lse: f32,
    pub vocab: usize,
}

impl Distribution {
    /// The probability of token `id`, where the trace keeps its logit (0 elsewhere).
    pub fn prob_of(&self, id: u32) -> f64 {
        let stored = self.candidates.iter().find(|c| c.id == id);
        let all = self.all_logits.as_deref().and_then(|l| l.get(id as usize));
        match (stored, all) {
            (Some(c), _) => c.prob,
            (None, Some(&logit)) => f64::from(prob(logit, self.lse)),
            (None, None) => 0.0,
        }
    }
}

/// The stored candidates after token `position` of `prompt`.
pub fn at(prompt: &Prompt<'_>, position: usize) -> Result<Distribution, FigureError> {
    Stored::read(prompt)?.at(position)
}

/// A prompt's stored candidates, decoded once for any number of positions: the ids, and on
/// first use the top-k logits and log-sum-exps of the positions before the last.
pub struct Stored<'a, 't> {
    prompt: &'a Prompt<'t>,
    n: usize,
    k: usize,
    ids: Vec<f32>,
    values: OnceCell<Checked>,
    lse: OnceCell<Checked>,
}

impl<'a, 't> Stored<'a, 't> {
    pub fn read(prompt: &'a Prompt<'t>) -> Result<Self, FigureError> {
        let n = prompt.tokens()?.len();
        let ids = prompt.tensor("logits.topk_ids", 2)?;
        let k = ids.shape[1];
        if ids.shape[0] != n || k == 0 {
            return Err(prompt.broken(format!(
                "`logits.topk_ids` has shape {:?}; a prompt of {n} tokens needs [{n}, k] with k ≥ 1",
                ids.shape
            )));
        }
        Ok(Stored {
            prompt,
            n,
            k,
            ids: ids.data,
            values: OnceCell::new(),
            lse: OnceCell::new(),
        })
    }

    /// `cell`'s tensor `name` of `shape`, read on first use.
    fn once<'c>(
        &self,
        cell: &'c OnceCell<Checked>,
        name: &str,
        shape: &[usize],
    ) -> Result<&'c Checked, FigureError> {
        if cell.get().is_none() {
            let _ = cell.set(self.prompt.shaped(name, shape)?);
        }
        Ok(cell.get().expect("set above"))
    }

    /// The candidates after token `position`, likeliest first.
    pub fn at(&self, position: usize) -> Result<Distribution, FigureError> {
        let (prompt, n, stored) = (self.prompt, self.n, self.k);
        let row_ids = &self.ids[position * stored..(position + 1) * stored];
        let last = position + 1 == n;
        let lse = if last && prompt.trace.shape("logits.lse").is_none() {
            prompt
                .trace
                .lse_at(position)
                .map_err(|e| prompt.broken(e.to_string()))?
        } else {
            self.once(&self.lse, "logits.lse", &[n])?.at(&[position]) as f32
        };
        let (logits, all_logits) = if last {
            let all = prompt.tensor("logits.last", 1)?.data;
            check_finite(prompt, "logits.last", &all)?;
            let logits: Vec<f64> = row_ids
                .iter()
                .map(|&raw| vocab_id(prompt, raw, all.len()).map(|id| f64::from(all[id as usize])))
                .collect::<Result<_, _>>()?;
            (logits, Some(all))
        } else {
            let values = self
                .once(&self.values, "logits.topk_values", &[n, stored])?
                .row(&[position]);
            (values, None)
        };
        let vocab = all_logits
            .as_ref()
            .map_or(prompt.config().vocab_size, Vec::len);
        let mut candidates = Vec::with_capacity(stored);
        for (&raw, logit) in row_ids.iter().zip(logits) {
            let id = vocab_id(prompt, raw, vocab)?;
            let Some(text) = prompt.trace.meta.token_texts.get(&id) else {
                return Err(prompt.broken(format!("the trace has no text for token id {id}")));
            };
            candidates.push(Candidate {
                id,
                text: text.clone(),
                logit,
                prob: f64::from(prob(logit as f32, lse)),
            });
        }
        // Stable: equal probabilities keep the stored order.
        candidates.sort_by(|a, b| b.prob.total_cmp(&a.prob));
        Ok(Distribution {
            candidates,
            all_logits,
            lse,
            vocab,
        })
    }
}

/// The surprise −ln p (nats) at each token after the first, given the ones before it:
/// `loss.per_token`, which the tracer computes from the next token's logit as the trace
/// stores it, so `exp(−loss)` is the probability the candidates give that token (a figure of
/// losses and a figure of candidates print one probability for one event).
pub fn surprise(prompt: &Prompt<'_>) -> Result<Vec<f64>, FigureError> {
    let n = prompt.tokens()?.len();
    let stored = prompt.shaped("loss.per_token", &[n.saturating_sub(1)])?;
    Ok((0..n.saturating_sub(1)).map(|i| stored.at(&[i])).collect())
}

/// The probability whose surprise is `loss` nats: `exp(−loss)` as `exact_math` computes it.
pub fn prob_of_surprise(loss: f64) -> f64 {
    f64::from(tracebook_trace::exact_math::exp(-(loss as f32)))
}

/// `raw` as a vocabulary id below `vocab`, or an error about the trace.
fn vocab_id(prompt: &Prompt<'_>, raw: f32, vocab: usize) -> Result<u32, FigureError> {
    let id = raw as u32;
    if f64::from(raw) == f64::from(id) && (id as usize) < vocab {
        Ok(id)
    } else {
        Err(prompt.broken(format!(
            "`logits.topk_ids` names token {raw}, which is not a vocabulary id"
        )))
    }
}

fn check_finite(prompt: &Prompt<'_>, name: &str, values: &[f32]) -> Result<(), FigureError> {
    match values.iter().position(|l| !l.is_finite()) {
        Some(bad) => Err(prompt.broken(format!("`{name}` holds a non-finite value at id {bad}"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::at;
    use crate::prompt::Prompt;
    use crate::testing::test_logits::{lse, order, position_logits};
    use crate::testing::test_traces::{trace_of, TOP_K};

    #[test]
    fn every_position_gets_exact_probabilities() {
        let trace = trace_of(&[10, 11, 12, 13]);
        let prompt = Prompt {
            name: "p".to_string(),
            trace: &trace,
        };
        for position in 0..4 {
            let row = position_logits(position, 4);
            let total = lse(&row);
            let expected: Vec<(u32, f64)> = order(&row)[..TOP_K]
                .iter()
                .map(|&i| (i as u32, (f64::from(row[i]) - total).exp()))
                .collect();
            let got = at(&prompt, position).unwrap();
            assert_eq!(got.candidates.len(), TOP_K);
            for (c, (id, p)) in got.candidates.iter().zip(&expected) {
                assert_eq!(c.id, *id, "position {position}");
                assert!((c.prob - p).abs() < 1e-4 * p.max(1e-3), "{} vs {p}", c.prob);
            }
            assert_eq!(got.all_logits.is_some(), position == 3);
        }
    }
}
