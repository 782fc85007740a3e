//! Seeded randomness for training: initial weights and batch positions, reproducible anywhere.

use tracebook_trace::SplitMix64;

/// A SplitMix64 stream with the few distributions training needs.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    /// The stream for the batch of optimiser step `step`: a function of the seed and the step
    /// alone, so a resumed run draws the very batches the uninterrupted run would have.
    pub fn for_step(seed: u64, step: usize) -> Rng {
        let mut mixer = SplitMix64::new(seed ^ 0x6261_7463_6865_7321);
        let base = mixer.next_u64();
        Rng(SplitMix64::new(base.wrapping_add(
            (step as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
        )))
    }

    /// Uniform in `0..n` (n > 0), by rejection so every value is equally likely.
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.0.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in (0, 1], never zero, for the logarithm of Box–Muller.
    fn unit_open(&mut self) -> f64 {
        ((self.0.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller, one value per call).
    pub fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.unit_open(), self.unit_open());
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_has_unit_variance_and_zero_mean() {
        let mut rng = Rng::new(7);
        let xs: Vec<f64> = (0..20000).map(|_| rng.normal()).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(mean.abs() < 0.03, "mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
    }

    #[test]
    fn step_streams_differ_and_repeat() {
        let draw = |step| Rng::for_step(3, step).below(1_000_000);
        assert_eq!(draw(5), draw(5));
        assert_ne!(draw(5), draw(6));
        assert_ne!(Rng::for_step(4, 5).below(1_000_000), draw(5));
    }
}
