//! The copy loss logged at each evaluation: how well the model predicts the second copy of a
//! stretch of random tokens said twice, which only copying from the context can predict. It
//! falls from about ln(vocabulary) to near 0 when the model learns to copy (induction heads).

use super::loss::cross_entropy;
use super::rng::Rng;
use crate::recorder::NoRecorder;
use crate::transformer::Transformer;

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
}
