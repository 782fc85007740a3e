//! Which stretches of the corpus a step trains on and the validation loss is measured on.
//!
//! A window is `context + 1` tokens: the model reads the first `context` and is scored on
//! predicting each following one.

use super::rng::Rng;

/// The `batch` training windows of optimiser step `step`, at positions drawn from the seed
/// and the step alone. A share `repeat_share` of them (drawn from a stream of their own, so a
/// share of 0 draws the same windows as before the option existed) repeat a stretch: see
/// [`repeated`].
pub fn train_batch(
    train: &[u32],
    context: usize,
    batch: usize,
    seed: u64,
    step: usize,
    repeat_share: f64,
) -> Vec<Vec<u32>> {
    let window = context + 1;
    let starts = train.len() - window + 1;
    let mut rng = Rng::for_step(seed, step);
    let mut repeats = Rng::for_step(seed ^ REPEAT_STREAM, step);
    (0..batch)
        .map(|_| {
            let start = rng.below(starts);
            let plain = &train[start..start + window];
            if repeat_share > 0.0 && repeats.unit() < repeat_share {
                repeated(plain, &mut repeats)
            } else {
                plain.to_vec()
            }
        })
        .collect()
}

const REPEAT_STREAM: u64 = 0x7265_7065_6174_2121;

/// A window that says a stretch twice: the first `n` tokens of `plain` (n drawn between an
/// eighth and half of the window), the same `n` again, then the text that followed the
/// stretch, to the window's length. The second copy is predictable only by looking back, which
/// is what teaches a model to copy (the "induction heads" of Olsson et al., 2022).
fn repeated(plain: &[u32], rng: &mut Rng) -> Vec<u32> {
    let window = plain.len();
    let shortest = (window / 8).max(1);
    let n = shortest + rng.below(window / 2 - shortest + 1);
    let mut out = Vec::with_capacity(window);
    out.extend_from_slice(&plain[..n]);
    out.extend_from_slice(&plain[..n]);
    out.extend_from_slice(&plain[n..window - n]);
    out
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
        let a = train_batch(&train, 16, 4, 9, 3, 0.0);
        assert_eq!(a.len(), 4);
        for w in &a {
            assert_eq!(w.len(), 17);
            assert!(
                w.windows(2).all(|p| p[1] == p[0] + 1),
                "a contiguous stretch"
            );
        }
        assert_eq!(a, train_batch(&train, 16, 4, 9, 3, 0.0));
        assert_ne!(a, train_batch(&train, 16, 4, 9, 4, 0.0));
    }

    #[test]
    fn the_last_window_start_is_reachable_and_never_overruns() {
        let train: Vec<u32> = (0..5).collect();
        for step in 0..50 {
            let batch = train_batch(&train, 3, 2, 1, step, 0.5);
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

    #[test]
    fn a_repeated_window_says_a_stretch_twice_then_goes_on() {
        let train: Vec<u32> = (0..10_000).collect();
        let batch = train_batch(&train, 64, 200, 5, 0, 0.25);
        let mut repeats = 0;
        for w in &batch {
            assert_eq!(w.len(), 65);
            if w.windows(2).all(|p| p[1] == p[0] + 1) {
                continue;
            }
            repeats += 1;
            let n = (1..w.len()).find(|&i| w[i] != w[i - 1] + 1).unwrap();
            assert!((8..=32).contains(&n), "stretch of {n}");
            assert_eq!(w[..n], w[n..2 * n], "the stretch, then the same again");
            assert!(
                w[2 * n - 1..].windows(2).skip(1).all(|p| p[1] == p[0] + 1)
                    && (2 * n == w.len() || w[2 * n] == w[n - 1] + 1),
                "then the text after the stretch"
            );
        }
        assert!((30..=70).contains(&repeats), "about a quarter: {repeats}");
        let plain: Vec<Vec<u32>> = train_batch(&train, 64, 200, 5, 0, 0.0);
        let windows_start = |b: &[Vec<u32>]| b.iter().map(|w| w[0]).collect::<Vec<_>>();
        assert_eq!(
            windows_start(&batch),
            windows_start(&plain),
            "the share leaves the windows' positions as they were"
        );
    }
}
