//! The baseline a trained model must beat: a bigram model (the next token given only the
//! previous one) counted on the training tokens and scored on the validation windows.
//!
//! Bigram counts are interpolated with add-one unigram frequencies; the interpolation weight
//! that scores best on the validation windows is kept, which gives the baseline its best shot.

use std::collections::HashMap;

/// Validation cross-entropy of the bigram model (nats per token) and its interpolation weight.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BigramBaseline {
    pub val_loss: f64,
    pub lambda: f64,
}

const LAMBDAS: [f64; 11] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];

/// Fit on `train`, score the next-token predictions inside each of `windows`.
pub fn baseline(train: &[u32], windows: &[&[u32]], vocab: usize) -> Option<BigramBaseline> {
    let mut unigram = vec![0u64; vocab];
    let mut follows: HashMap<u32, u64> = HashMap::new();
    let mut pairs: HashMap<(u32, u32), u64> = HashMap::new();
    for &t in train {
        unigram[t as usize] += 1;
    }
    for p in train.windows(2) {
        *follows.entry(p[0]).or_default() += 1;
        *pairs.entry((p[0], p[1])).or_default() += 1;
    }
    let total = train.len() as f64 + vocab as f64;
    let scored: Vec<(f64, f64)> = windows
        .iter()
        .flat_map(|w| w.windows(2))
        .map(|p| {
            let uni = (unigram[p[1] as usize] as f64 + 1.0) / total;
            let bi = match follows.get(&p[0]) {
                Some(&n) => pairs.get(&(p[0], p[1])).copied().unwrap_or(0) as f64 / n as f64,
                None => uni,
            };
            (bi, uni)
        })
        .collect();
    if scored.is_empty() {
        return None;
    }
    LAMBDAS
        .iter()
        .map(|&lambda| {
            let nll: f64 = scored
                .iter()
                .map(|(bi, uni)| -(lambda * bi + (1.0 - lambda) * uni).ln())
                .sum();
            BigramBaseline {
                val_loss: nll / scored.len() as f64,
                lambda,
            }
        })
        .min_by(|a, b| a.val_loss.total_cmp(&b.val_loss))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deterministic_sequence_is_nearly_free_to_predict() {
        let train: Vec<u32> = (0..2000).map(|i| i % 5).collect();
        let val: Vec<u32> = (0..20).map(|i| i % 5).collect();
        let b = baseline(&train, &[&val], 50).unwrap();
        assert!(b.val_loss < 0.05, "{b:?}");
        assert_eq!(b.lambda, 0.99);
    }

    #[test]
    fn unseen_contexts_fall_back_to_unigram_frequencies() {
        let train = [1u32, 1, 1, 2];
        let b = baseline(&train, &[&[7, 1]], 10).unwrap();
        // p(1) = (3 + 1) / (4 + 10) whatever the weight, since 7 never occurs.
        assert!((b.val_loss - -(4.0f64 / 14.0).ln()).abs() < 1e-12);
    }
}
