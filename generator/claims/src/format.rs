//! How a claim's numbers are written in verdicts: integers as integers, others with four
//! significant digits (as inline values show tensor entries); below a millionth in exponent
//! form (`5.207e-28`, not twenty-seven zeros).

/// `4`, `0.6213`, `-12.35`, `0.5` (no trailing zeros).
pub fn number(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let text = significant(x, 4);
        let (mantissa, exponent) = text
            .split_once('e')
            .map_or((text.as_str(), None), |(m, e)| (m, Some(e)));
        let mantissa = if mantissa.contains('.') {
            mantissa.trim_end_matches('0').trim_end_matches('.')
        } else {
            mantissa
        };
        match exponent {
            Some(e) => format!("{mantissa}e{e}"),
            None => mantissa.to_string(),
        }
    }
}

/// Below this magnitude a number is written in exponent form.
const TINY: f64 = 1e-6;

/// `x` with `digits` significant digits, never `-0`; in exponent form (`5.207e-28`) only when
/// it is below a millionth, where the zeros would outnumber the digits.
pub fn significant(x: f64, digits: i32) -> String {
    if x != 0.0 && x.is_finite() && x.abs() < TINY {
        return format!("{x:.prec$e}", prec = (digits - 1).max(0) as usize);
    }
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
        assert_eq!(significant(5.2071e-28, 4), "5.207e-28");
        assert_eq!(significant(-1.2e-7, 2), "-1.2e-7");
        assert_eq!(significant(0.0000012345, 3), "0.00000123");
    }

    #[test]
    fn a_verdict_writes_a_tiny_number_compactly() {
        assert_eq!(number(5.2071e-28), "5.207e-28");
        assert_eq!(number(1.2e-27), "1.2e-27");
        assert_eq!(number(0.000_123), "0.000123");
    }
}
