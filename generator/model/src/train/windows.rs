//! Which stretches of the corpus a step trains on and the validation loss is measured on.
//!
//! A window is `context + 1` tokens: the model reads the first `context` and is scored on
//! predicting each following one.

use super::rng::Rng;

/// The `batch` training windows of optimiser step `step`, at positions drawn from the seed
/// and the step alone.
pub fn train_batch(
    train: &[u32],
    context: usize,
    batch: usize,
    seed: u64,
    step: usize,
) -> Vec<&[u32]> {
    let window = context + 1;
    let starts = train.len() - window + 1;
    let mut rng = Rng::for_step(seed, step);
    (0..batch)
        .map(|_| {
            let start = rng.below(starts);
            &train[start..start + window]
        })
        .collect()
}

/// Up to `max` non-overlapping validation windows spread evenly over `val`.
pub fn validation(val: &[u32], context: usize, max: usize) -> Vec<&[u32]> {
    let window = context + 1;
    let available = val.len() / window;
    let n = available.min(max);
    (0..n)
        .map(|i| {
            let slot = i * available / n;
            &val[slot * window..(slot + 1) * window]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_windows_of_the_corpus_and_repeat_by_step() {
        let train: Vec<u32> = (0..1000).collect();
        let a = train_batch(&train, 16, 4, 9, 3);
        assert_eq!(a.len(), 4);
        for w in &a {
            assert_eq!(w.len(), 17);
            assert!(
                w.windows(2).all(|p| p[1] == p[0] + 1),
                "a contiguous stretch"
            );
        }
        assert_eq!(a, train_batch(&train, 16, 4, 9, 3));
        assert_ne!(a, train_batch(&train, 16, 4, 9, 4));
    }

    #[test]
    fn the_last_window_start_is_reachable_and_never_overruns() {
        let train: Vec<u32> = (0..5).collect();
        for step in 0..50 {
            let batch = train_batch(&train, 3, 2, 1, step);
            assert!(batch.iter().all(|w| w.len() == 4));
        }
    }

    #[test]
    fn validation_windows_do_not_overlap() {
        let val: Vec<u32> = (0..100).collect();
        let windows = validation(&val, 9, 3);
        assert_eq!(windows.len(), 3);
        assert_eq!(windows[0][0], 0);
        assert!(windows.windows(2).all(|p| p[1][0] > p[0][9]));
        assert_eq!(validation(&val, 9, 100).len(), 10);
    }
}
