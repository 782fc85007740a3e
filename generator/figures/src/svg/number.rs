//! Fixed float formatting for SVG output: few decimals, no trailing zeros, never `-0`,
//! so the same figure always serializes to the same (small) bytes.

use std::fmt::Write;

/// Writes `value` rounded to `decimals` places, trimming trailing zeros and the dot.
///
/// Non-finite values cannot be drawn; they are written as `0` so the document stays
/// well formed (kinds check their data for NaN before drawing).
pub fn write_number(out: &mut String, value: f64, decimals: usize) {
    if !value.is_finite() {
        out.push('0');
        return;
    }
    let start = out.len();
    let _ = write!(out, "{value:.decimals$}");
    if decimals > 0 {
        let trimmed = out[start..]
            .trim_end_matches('0')
            .trim_end_matches('.')
            .len();
        out.truncate(start + trimmed);
    }
    if &out[start..] == "-0" {
        out.truncate(start);
        out.push('0');
    }
}

/// [`write_number`] into a fresh string.
pub fn number(value: f64, decimals: usize) -> String {
    let mut out = String::new();
    write_number(&mut out, value, decimals);
    out
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn trims_trailing_zeros_and_dot() {
        assert_eq!(number(12.0, 2), "12");
        assert_eq!(number(12.5, 2), "12.5");
        assert_eq!(number(12.345, 2), "12.35");
        assert_eq!(number(0.1 + 0.2, 3), "0.3");
        assert_eq!(number(100.0, 0), "100");
    }

    #[test]
    fn never_writes_negative_zero() {
        assert_eq!(number(-0.0, 2), "0");
        assert_eq!(number(-0.001, 2), "0");
        assert_eq!(number(-0.4, 0), "0");
        assert_eq!(number(-0.6, 0), "-1");
    }

    #[test]
    fn non_finite_values_become_zero() {
        assert_eq!(number(f64::NAN, 2), "0");
        assert_eq!(number(f64::INFINITY, 2), "0");
    }

    #[test]
    fn large_values_keep_their_integer_digits() {
        assert_eq!(number(50257.0, 1), "50257");
        assert_eq!(number(1e7 + 0.75, 1), "10000000.8");
    }
}
