//! The learning rate of each step: linear warmup, then cosine decay to the minimum.

use super::settings::Settings;

/// The learning rate for optimiser step `step` (0-based).
pub fn learning_rate(settings: &Settings, step: usize) -> f64 {
    let (peak, floor) = (settings.learning_rate, settings.min_learning_rate);
    if step < settings.warmup {
        return peak * (step + 1) as f64 / settings.warmup as f64;
    }
    let decay_steps = settings.steps.saturating_sub(settings.warmup).max(1);
    let progress = ((step - settings.warmup) as f64 / decay_steps as f64).min(1.0);
    floor + 0.5 * (peak - floor) * (1.0 + (std::f64::consts::PI * progress).cos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::settings::Architecture;

    #[test]
    fn warms_up_then_decays_to_the_floor() {
        let mut s = Settings::small(Architecture::gpt2(1, 1, 8, 8));
        (s.steps, s.warmup, s.learning_rate, s.min_learning_rate) = (110, 10, 1.0, 0.1);
        assert!((learning_rate(&s, 0) - 0.1).abs() < 1e-12);
        assert!((learning_rate(&s, 9) - 1.0).abs() < 1e-12);
        assert!((learning_rate(&s, 10) - 1.0).abs() < 1e-12);
        assert!((learning_rate(&s, 60) - 0.55).abs() < 1e-12);
        assert!((learning_rate(&s, 109) - 0.1).abs() < 1e-3);
        let lrs: Vec<f64> = (10..110).map(|i| learning_rate(&s, i)).collect();
        assert!(lrs.windows(2).all(|w| w[1] <= w[0]));
    }
}
