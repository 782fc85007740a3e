//! How a claim's numbers are written in verdicts: integers as integers, others with four
//! significant digits (as inline values show tensor entries).

/// `4`, `0.6213`, `-12.35`, `0.5` (no trailing zeros).
pub fn number(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let text = crate::resolve::inline::significant(x, 4);
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}
