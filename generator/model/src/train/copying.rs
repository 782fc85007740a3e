//! The copy loss logged at each evaluation: how well the model predicts the second copy of a
//! stretch of random tokens said twice, which only copying from the context can predict. It
//! falls from about ln(vocabulary) to near 0 when the model learns to copy (induction heads).
//! Beside it, the two heads that copying is made of: the best previous-token head and the best
//! induction head, scored on the same sequences.

use super::loss::cross_entropy;
use super::rng::Rng;
use crate::recorder::{NoRecorder, Recorder};
use crate::transformer::Transformer;
use candle_core::Tensor;

/// Random stretches per evaluation, and their length (shorter where the context is).
const STRETCHES: usize = 8;
const LENGTH: usize = 40;

/// The evaluation's fixed sequences: `STRETCHES` times a stretch of random ids (uniform over
/// every id but the last, end-of-text) followed by the same stretch, at most `context` long.
pub fn windows(vocab: usize, context: usize, seed: u64) -> Vec<Vec<u32>> {
    let length = LENGTH.min(context / 2);
    if vocab < 2 || length < 2 {
        return Vec::new();
    }
    let mut rng = Rng::new(seed ^ 0x636f_7079_2121);
    (0..STRETCHES)
        .map(|_| {
            let stretch: Vec<u32> = (0..length).map(|_| rng.below(vocab - 1) as u32).collect();
            [stretch.clone(), stretch].concat()
        })
        .collect()
}

/// Mean loss (nats per token) on each sequence's second copy after its first token (the first
/// cannot be predicted by copying); `None` without sequences.
pub fn loss(model: &Transformer, sequences: &[Vec<u32>]) -> crate::Result<Option<f64>> {
    if sequences.is_empty() {
        return Ok(None);
    }
    let mut total = 0f64;
    for ids in sequences {
        let length = ids.len() / 2;
        let logits = model.forward(&ids[..ids.len() - 1], &mut NoRecorder)?;
        let second = logits.narrow(0, length, length - 1)?;
        total += cross_entropy(&second, &ids[length + 1..])? as f64;
    }
    Ok(Some(total / sequences.len() as f64))
}

/// The best head's score on each of the two attention patterns copying needs, on sequences
/// from [`windows`]: `previous`, the mean attention from each token to the one before it (a
/// previous-token head; the tokens are random, so only position can tell it where to look);
/// `induction`, the mean attention from each token of the second copy to the token after
/// its first occurrence (an induction head). Each is the largest over every layer's heads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadScores {
    pub previous: f64,
    pub induction: f64,
}

/// Keeps each layer's attention pattern, `[heads, T, T]`.
#[derive(Default)]
struct Patterns(Vec<Vec<Vec<Vec<f32>>>>);

impl Recorder for Patterns {
    fn enabled(&self) -> bool {
        true
    }
    fn record(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        if name.ends_with(".attn.pattern") {
            let t = tensor.to_dtype(candle_core::DType::F32)?;
            let t = if t.rank() == 4 { t.squeeze(0)? } else { t };
            self.0.push(t.to_vec3::<f32>()?);
        }
        Ok(())
    }
}

/// [`HeadScores`] of `model` on `sequences`; `None` without sequences.
pub fn head_scores(
    model: &Transformer,
    sequences: &[Vec<u32>],
) -> crate::Result<Option<HeadScores>> {
    let mut runs = Vec::new();
    for ids in sequences {
        let mut patterns = Patterns::default();
        model.forward(ids, &mut patterns)?;
        runs.push(patterns.0);
    }
    Ok(scores(&runs))
}

/// [`HeadScores`] from each sequence's patterns, `[layer][head][query][key]`, of sequences
/// that say a stretch twice.
fn scores(runs: &[Vec<Vec<Vec<Vec<f32>>>>]) -> Option<HeadScores> {
    let mut previous: Vec<f64> = Vec::new();
    let mut induction: Vec<f64> = Vec::new();
    for layers in runs {
        let heads = layers.iter().flatten();
        for (k, rows) in heads.enumerate() {
            let t = rows.len();
            let length = t / 2;
            if previous.len() <= k {
                previous.push(0.0);
                induction.push(0.0);
            }
            previous[k] += (1..t).map(|q| rows[q][q - 1] as f64).sum::<f64>() / (t - 1) as f64;
            // The token at length + i is the token at i; the one after that is at i + 1.
            induction[k] += (0..length - 1)
                .map(|i| rows[length + i][i + 1] as f64)
                .sum::<f64>()
                / (length - 1) as f64;
        }
    }
    let n = runs.len() as f64;
    let best = |sums: &[f64]| sums.iter().map(|s| s / n).reduce(f64::max);
    Some(HeadScores {
        previous: best(&previous)?,
        induction: best(&induction)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_say_a_random_stretch_twice_within_the_context() {
        let w = windows(100, 128, 3);
        assert_eq!(w.len(), STRETCHES);
        for s in &w {
            assert_eq!(s.len(), 80);
            assert_eq!(s[..40], s[40..]);
            assert!(s.iter().all(|&t| t < 99));
        }
        assert_ne!(w[0], w[1]);
        assert_eq!(windows(100, 32, 3)[0].len(), 32);
        assert!(windows(100, 2, 3).is_empty());
    }

    /// A `t × t` causal pattern putting all of each query's attention on `key(query)`.
    fn pattern(t: usize, key: impl Fn(usize) -> usize) -> Vec<Vec<f32>> {
        (0..t)
            .map(|q| {
                (0..t)
                    .map(|k| if k == key(q) { 1.0 } else { 0.0 })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn head_scores_find_the_previous_token_and_the_induction_head() {
        let t = 8; // a stretch of 4, said twice
        let first = pattern(t, |_| 0);
        let previous = pattern(t, |q| q.saturating_sub(1));
        let induction = pattern(t, |q| if q >= 4 { q - 4 + 1 } else { 0 });
        let runs = vec![vec![vec![first.clone(), previous], vec![first, induction]]];
        let s = scores(&runs).unwrap();
        assert_eq!(s.previous, 1.0);
        assert_eq!(s.induction, 1.0);
        // Attention on the first token only: no previous-token head (bar the query at 1) and
        // no induction head.
        let flat = vec![vec![vec![pattern(t, |_| 0)]]];
        let s = scores(&flat).unwrap();
        assert!((s.previous - 1.0 / 7.0).abs() < 1e-12, "{s:?}");
        assert_eq!(s.induction, 0.0);
        assert_eq!(scores(&[]), None);
    }
}
