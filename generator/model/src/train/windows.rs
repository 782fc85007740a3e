//! Which stretches of the corpus a step trains on and the validation loss is measured on.
//!
//! A window is `context + 1` tokens: the model reads the first `context` and is scored on
//! predicting each following one.

use super::rng::Rng;

/// What share of the training windows repeat a stretch, and of what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mix {
    /// Windows that say a stretch of the corpus twice: see [`repeated`].
    pub repeat: f64,
    /// Windows that say a stretch of random tokens twice: see [`random_repeated`].
    pub random: f64,
    /// Windows that say one short stretch of random tokens over and over: see [`cycled`].
    pub cycle: f64,
    /// Random tokens are drawn from ids `0..vocab - 1` (the last id is end-of-text).
    pub vocab: usize,
}

impl Mix {
    /// Plain corpus windows only.
    pub fn plain() -> Mix {
        Mix {
            repeat: 0.0,
            random: 0.0,
            cycle: 0.0,
            vocab: 0,
        }
    }
}

/// The `batch` training windows of optimiser step `step`, at positions drawn from the seed
/// and the step alone. The repeating windows of `mix` are chosen (and their random tokens
/// drawn) from streams of their own, so plain windows start where they would without them.
pub fn train_batch(
    train: &[u32],
    context: usize,
    batch: usize,
    seed: u64,
    step: usize,
    mix: &Mix,
) -> Vec<Vec<u32>> {
    let window = context + 1;
    let starts = train.len() - window + 1;
    let mut rng = Rng::for_step(seed, step);
    let mut repeats = Rng::for_step(seed ^ REPEAT_STREAM, step);
    let mut tokens = Rng::for_step(seed ^ RANDOM_STREAM, step);
    let repeating = mix.repeat + mix.random + mix.cycle > 0.0;
    (0..batch)
        .map(|_| {
            let start = rng.below(starts);
            let plain = &train[start..start + window];
            let draw = if repeating { repeats.unit() } else { 1.0 };
            if draw < mix.repeat {
                repeated(plain, &mut repeats)
            } else if draw < mix.repeat + mix.random && mix.vocab > 1 {
                random_repeated(plain, mix.vocab, &mut repeats, &mut tokens)
            } else if draw < mix.repeat + mix.random + mix.cycle && mix.vocab > 1 {
                cycled(window, mix.vocab, &mut repeats, &mut tokens)
            } else {
                plain.to_vec()
            }
        })
        .collect()
}

const REPEAT_STREAM: u64 = 0x7265_7065_6174_2121;
/// The random stretches' tokens come from a third stream of their own.
const RANDOM_STREAM: u64 = 0x7261_6e64_6f6d_2121;

/// How long a repeated stretch is: between an eighth and half of the window.
fn stretch_length(window: usize, rng: &mut Rng) -> usize {
    let shortest = (window / 8).max(1);
    shortest + rng.below(window / 2 - shortest + 1)
}

/// A window that says a stretch twice: the first `n` tokens of `plain`, the same `n` again,
/// then the text that followed the stretch, to the window's length. The second copy is
/// predictable only by looking back, which is what teaches a model to copy (the "induction
/// heads" of Olsson et al., 2022).
fn repeated(plain: &[u32], rng: &mut Rng) -> Vec<u32> {
    let window = plain.len();
    let n = stretch_length(window, rng);
    let mut out = Vec::with_capacity(window);
    out.extend_from_slice(&plain[..n]);
    out.extend_from_slice(&plain[..n]);
    out.extend_from_slice(&plain[n..window - n]);
    out
}

/// A window that says `n` random tokens (uniform over every id but the last, end-of-text)
/// twice, then goes on with the start of `plain`. Text a model already predicts well teaches
/// copying weakly; random tokens can be predicted only by copying, and cover every token a
/// reader's sentence can hold.
fn random_repeated(plain: &[u32], vocab: usize, rng: &mut Rng, tokens: &mut Rng) -> Vec<u32> {
    let window = plain.len();
    let n = stretch_length(window, rng);
    let stretch: Vec<u32> = (0..n).map(|_| tokens.below(vocab - 1) as u32).collect();
    let mut out = Vec::with_capacity(window);
    out.extend_from_slice(&stretch);
    out.extend_from_slice(&stretch);
    out.extend_from_slice(&plain[..window - 2 * n]);
    out
}

/// A window that says `n` random tokens (4–16 in a window of 65; between a sixteenth and a
/// quarter of it) over and over until it is full. Every token after the first saying can be
/// predicted by copying, about three times as many as in [`random_repeated`]'s window, and
/// short stretches make the copy's offset small: in the pilots (docs/BENCHMARKS.md, [model])
/// a model copied from such windows within 0.3M tokens, where windows saying a stretch twice
/// taught no copying in 1.5M.
fn cycled(window: usize, vocab: usize, rng: &mut Rng, tokens: &mut Rng) -> Vec<u32> {
    let shortest = (window / 16).max(1);
    let n = shortest + rng.below((window / 4).max(shortest) - shortest + 1);
    let stretch: Vec<u32> = (0..n).map(|_| tokens.below(vocab - 1) as u32).collect();
    stretch.iter().copied().cycle().take(window).collect()
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

    fn share(repeat: f64, random: f64) -> Mix {
        Mix {
            repeat,
            random,
            cycle: 0.0,
            vocab: 50,
        }
    }

    #[test]
    fn batches_are_windows_of_the_corpus_and_repeat_by_step() {
        let train: Vec<u32> = (0..1000).collect();
        let a = train_batch(&train, 16, 4, 9, 3, &Mix::plain());
        assert_eq!(a.len(), 4);
        for w in &a {
            assert_eq!(w.len(), 17);
            assert!(
                w.windows(2).all(|p| p[1] == p[0] + 1),
                "a contiguous stretch"
            );
        }
        assert_eq!(a, train_batch(&train, 16, 4, 9, 3, &Mix::plain()));
        assert_ne!(a, train_batch(&train, 16, 4, 9, 4, &Mix::plain()));
    }

    #[test]
    fn the_last_window_start_is_reachable_and_never_overruns() {
        let train: Vec<u32> = (0..5).collect();
        for step in 0..50 {
            let batch = train_batch(&train, 3, 2, 1, step, &share(0.5, 0.3));
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
        let batch = train_batch(&train, 64, 200, 5, 0, &share(0.25, 0.0));
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
        let plain: Vec<Vec<u32>> = train_batch(&train, 64, 200, 5, 0, &Mix::plain());
        let windows_start = |b: &[Vec<u32>]| b.iter().map(|w| w[0]).collect::<Vec<_>>();
        assert_eq!(
            windows_start(&batch),
            windows_start(&plain),
            "the share leaves the windows' positions as they were"
        );
    }

    #[test]
    fn a_random_repeated_window_says_random_tokens_twice_then_text() {
        let train: Vec<u32> = (1000..11_000).collect();
        let with = train_batch(&train, 64, 400, 5, 2, &share(0.25, 0.25));
        let plain = train_batch(&train, 64, 400, 5, 2, &Mix::plain());
        let (mut random, mut text) = (0, 0);
        let mut seen = std::collections::HashSet::new();
        for (w, old) in with.iter().zip(&plain) {
            assert_eq!(w.len(), 65);
            if w[0] >= 1000 {
                assert_eq!(w[0], old[0], "the corpus windows start where plain ones do");
                text += 1;
                continue;
            }
            random += 1;
            let n = w.iter().position(|&t| t >= 1000).unwrap() / 2;
            assert!((8..=32).contains(&n), "stretch of {n}");
            assert!(w[..n].iter().all(|&t| t < 49), "ids below the last: {w:?}");
            assert_eq!(w[..n], w[n..2 * n]);
            assert!(w[2 * n..].windows(2).all(|p| p[1] == p[0] + 1), "then text");
            assert_eq!(w[2 * n], old[0], "from where the plain window starts");
            seen.extend(w[..n].iter().copied());
        }
        assert!((60..=140).contains(&random), "about a quarter: {random}");
        assert!(text > 200);
        assert_eq!(seen.len(), 49, "every id but end-of-text is drawn");
    }

    #[test]
    fn a_cycled_window_says_one_random_stretch_over_and_over() {
        let train: Vec<u32> = (1000..11_000).collect();
        let mix = Mix {
            cycle: 0.5,
            ..share(0.0, 0.0)
        };
        let with = train_batch(&train, 64, 400, 5, 2, &mix);
        let plain = train_batch(&train, 64, 400, 5, 2, &Mix::plain());
        let mut cycled = 0;
        for (w, old) in with.iter().zip(&plain) {
            assert_eq!(w.len(), 65);
            if w[0] >= 1000 {
                assert_eq!(w, old, "a corpus window as it was");
                continue;
            }
            cycled += 1;
            assert!(w.iter().all(|&t| t < 49), "random ids only: {w:?}");
            // The period: the first n after which the window repeats itself.
            let n = (1..w.len())
                .find(|&n| (n..w.len()).all(|i| w[i] == w[i - n]))
                .unwrap();
            assert!((4..=16).contains(&n), "stretch of {n}: {w:?}");
        }
        assert!((150..=250).contains(&cycled), "about half: {cycled}");
    }
}
