//! How tracebook writes a probability as a percentage, wherever it prints one (figures, inline
//! values, claims' verdicts), so that one probability reads the same everywhere.

/// A probability as a percentage: one decimal, two below 1%, so a column of them lines up;
/// `0%`, `100%` and `<0.01%` at the ends.
pub fn percent(p: f64) -> String {
    let pct = p * 100.0;
    if p == 0.0 {
        "0%".to_string()
    } else if pct >= 99.95 {
        "100%".to_string()
    } else if pct >= 0.995 {
        format!("{pct:.1}%")
    } else if pct >= 0.005 {
        format!("{pct:.2}%")
    } else {
        "<0.01%".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn one_decimal_two_below_one_percent_and_the_ends() {
        assert_eq!(percent(0.1234), "12.3%");
        assert_eq!(percent(0.1248), "12.5%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.99999), "100%");
        assert_eq!(percent(0.0042), "0.42%");
        assert_eq!(percent(0.00512), "0.51%");
        assert_eq!(percent(0.05), "5.0%");
        assert_eq!(percent(0.00999), "1.0%");
        assert_eq!(percent(0.00001), "<0.01%");
        assert_eq!(percent(0.0000004), "<0.01%");
        assert_eq!(percent(0.0), "0%");
    }
}
