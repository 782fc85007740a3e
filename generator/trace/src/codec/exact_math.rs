//! `exp`, `tanh` and GELU with the same bits on every machine: built from IEEE-754 binary64
//! `+ − × ÷` and conversions only, which Rust never fuses or reorders, so the native build, the
//! browser module and a reader in another language that follows `docs/trace-format.md` agree
//! bit for bit. The platform's `exp` may differ in the last bit between libm implementations
//! (glibc, musl, the wasm `libm` port), and a derived tensor must decode to one value.
//!
//! Each function computes in f64 and rounds once to f32; the f64 result is within a few units
//! of the last f64 place, so the f32 result is the correctly rounded one except when the exact
//! value lies within ~1e-15 relative of a rounding boundary.

/// `e^x` in f64, from `+ − × ÷` only: `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2`, then `e^r` by
/// its Taylor series to degree 13 (truncation below 2⁻⁶⁰ on that interval), then `× 2^n`
/// through the exponent bits.
pub fn exp64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.78 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    // ln 2 split so that n·LN2_HI is exact for |n| < 2^11.
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
    const LOG2_E: f64 = std::f64::consts::LOG2_E;
    let n = (x * LOG2_E).round();
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // Horner from the highest degree: 1 + r(1 + r/2(1 + r/3(...))).
    let mut p = 1.0;
    for k in (1..=13).rev() {
        p = 1.0 + p * r / f64::from(k);
    }
    scale_by_power_of_two(p, n as i32)
}

/// `v · 2^n` for `v` in [0.5, 2] and `n` in the range `exp64` produces, exactly (two steps, so
/// that results in the subnormal range are rounded once, by the last multiplication).
fn scale_by_power_of_two(v: f64, n: i32) -> f64 {
    let half = n / 2;
    let power = |e: i32| f64::from_bits(((1023 + e) as u64) << 52);
    v * power(half) * power(n - half)
}

/// `e^x` rounded to f32.
pub fn exp(x: f32) -> f32 {
    exp64(f64::from(x)) as f32
}

/// `tanh(u)` in f64 from `exp64`: `sign(u)·(1 − e^{−2|u|})/(1 + e^{−2|u|})`.
pub fn tanh64(u: f64) -> f64 {
    if u.is_nan() {
        return u;
    }
    let e = exp64(-2.0 * u.abs());
    ((1.0 - e) / (1.0 + e)).copysign(u)
}

/// GPT-2's `gelu_new`, `0.5·a·(1 + tanh(u))` with `u = √(2/π)·(a + 0.044715·a³)`, computed in
/// f64 as the equal `a / (1 + e^(−2u))` (which keeps its precision where `1 + tanh(u)`
/// cancels, for large negative `a`) and rounded to f32. The other tanh-approximation GELUs
/// of `transformers` differ from it only in how their constants are written, below f32
/// rounding.
pub fn gelu_tanh(a: f32) -> f32 {
    const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
    let a = f64::from(a);
    let u = SQRT_2_OVER_PI * (a + 0.044_715 * (a * a * a));
    (a / (1.0 + exp64(-2.0 * u))) as f32
}

/// SiLU, `a·σ(a)`, computed in f64 as `a / (1 + e^(−a))` and rounded to f32.
pub fn silu(a: f32) -> f32 {
    let a = f64::from(a);
    (a / (1.0 + exp64(-a))) as f32
}

/// The probability `e^(logit − lse)` of a candidate whose logit and its position's log-sum-exp
/// a trace holds: the subtraction in f32, as readers of traces do it, then [`exp`]. Every
/// probability tracebook prints comes from this one function or from a derived tensor that
/// uses it, so two of them for the same candidate print alike.
pub fn prob(logit: f32, lse: f32) -> f32 {
    exp(logit - lse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_two_f64_ulps_of_the_platform_one() {
        let mut worst = 0.0f64;
        for i in -20_000..=20_000 {
            let x = f64::from(i) / 250.0 + 0.000_123 * f64::from(i % 7);
            let (ours, std) = (exp64(x), x.exp());
            worst = worst.max(((ours - std) / std).abs());
        }
        assert!(worst <= 4.0 * f64::EPSILON, "relative error {worst:e}");
        assert_eq!(exp64(0.0), 1.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-1000.0), 0.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(1000.0), f32::INFINITY);
        assert!(exp(f32::NAN).is_nan());
        // Subnormal f64 results are rounded once.
        assert!((exp64(-740.0) - (-740.0f64).exp()).abs() <= 4.9e-324);
    }

    #[test]
    fn exp_rounds_to_the_f32_nearest_the_exact_value_nearly_always() {
        let mut differ = 0;
        for i in -100_000..=100_000 {
            let x = i as f32 / 1000.0;
            // The platform's f64 exp rounded to f32: correctly rounded but for near-ties.
            if exp(x) != f64::from(x).exp() as f32 {
                differ += 1;
            }
        }
        assert!(differ <= 2, "{differ} of 200,001 values differ");
    }

    #[test]
    fn tanh_and_gelu_match_the_platform_within_f32_rounding() {
        for i in -8000..=8000 {
            let a = i as f32 / 800.0;
            let u = 0.797_884_560_802_865_4 * (f64::from(a) + 0.044_715 * f64::from(a).powi(3));
            assert!((tanh64(u) - u.tanh()).abs() <= 4.0 * f64::EPSILON, "{u}");
            let exact = f64::from(a) / (1.0 + (-2.0 * u).exp());
            let ours = f64::from(gelu_tanh(a));
            assert!(
                (ours - exact).abs() <= f64::from(f32::EPSILON) * exact.abs(),
                "{a}: {ours} vs {exact}"
            );
            let textbook = 0.5 * f64::from(a) * (1.0 + u.tanh());
            assert!(
                (ours - textbook).abs() <= 1e-7 * textbook.abs() + 1e-12,
                "{a}"
            );
        }
        assert_eq!(gelu_tanh(0.0), 0.0);
        assert_eq!(gelu_tanh(1e6), 1e6);
        assert_eq!(gelu_tanh(-1e6), 0.0);
        assert_eq!(tanh64(-0.0).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn a_probability_is_exp_of_the_f32_difference() {
        assert_eq!(prob(2.0, 2.0), 1.0);
        assert_eq!(prob(-3.5, 1.25), exp(-4.75));
    }
}
