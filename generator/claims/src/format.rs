//! How a claim's numbers are written in verdicts: integers as integers, others with four
//! significant digits (as inline values show tensor entries).

/// `4`, `0.6213`, `-12.35`, `0.5` (no trailing zeros).
pub fn number(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let text = significant(x, 4);
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}

/// `x` with `digits` significant digits, never in exponent form, never `-0`.
pub fn significant(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x.is_infinite() {
            format!("{}∞", if x < 0.0 { "-" } else { "" })
        } else {
            "0".into()
        };
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    let text = format!("{x:.decimals$}");
    // Rounding can carry into a new digit (9.996 → "10.00"); format again with one fewer.
    let text = if decimals > 0
        && text
            .trim_start_matches('-')
            .replace('.', "")
            .trim_start_matches('0')
            .len()
            > digits as usize
    {
        format!("{x:.prec$}", prec = decimals - 1)
    } else {
        text
    };
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        text.trim_start_matches('-').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(significant(0.123456, 4), "0.1235");
        assert_eq!(significant(-12.3456, 4), "-12.35");
        assert_eq!(significant(12345.6, 4), "12346");
        assert_eq!(significant(9.9996, 4), "10.00");
        assert_eq!(significant(0.000012345, 3), "0.0000123");
        assert_eq!(significant(-0.0, 4), "0");
    }
}
