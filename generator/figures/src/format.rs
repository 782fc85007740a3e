//! Numbers as readers see them in figures and alt text: true minus signs, percentages
//! that line up in a column, attention weights without a leading zero, thousands
//! separators, and a few significant digits for activations of any size.

/// A signed number with a true minus sign: "−3.2", "4.1"; never "−0.0".
pub fn signed(value: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, value.abs());
    if value < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        format!("−{text}")
    } else {
        text
    }
}

/// A change with its sign, "+" included: "+1.3", "−5.2", "0.0".
pub fn change(value: f64, decimals: usize) -> String {
    let text = signed(value, decimals);
    if value > 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        format!("+{text}")
    } else {
        text
    }
}

/// About three significant digits whatever the magnitude: "1,234", "56.7", "−2.35", "0.042".
pub fn short(value: f64) -> String {
    let magnitude = value.abs();
    if !magnitude.is_finite() {
        return if value.is_nan() {
            "NaN"
        } else if value < 0.0 {
            "−∞"
        } else {
            "∞"
        }
        .into();
    }
    if magnitude >= 1e9 {
        return scientific(value);
    }
    if magnitude >= 1000.0 {
        let text = thousands(magnitude.round() as usize);
        return if value < 0.0 {
            format!("−{text}")
        } else {
            text
        };
    }
    // Decide by the magnitude as it will round, so 0.99999 reads "1.00", not "1.000".
    let decimals = if magnitude >= 99.95 {
        0
    } else if magnitude >= 9.995 {
        1
    } else if !(0.0005..0.9995).contains(&magnitude) {
        2
    } else {
        3
    };
    signed(value, decimals)
}

/// `6.0 × 10²⁹`: two significant digits and a power of ten, for values too large to write
/// out (a random model's perplexity).
pub fn scientific(value: f64) -> String {
    let exponent = value.abs().log10().floor() as i32;
    let mut mantissa = value / 10f64.powi(exponent);
    let mut exponent = exponent;
    if format!("{:.1}", mantissa.abs()) == "10.0" {
        mantissa /= 10.0;
        exponent += 1;
    }
    const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let power: String = exponent
        .to_string()
        .chars()
        .map(|c| c.to_digit(10).map_or('⁻', |d| SUPERSCRIPT[d as usize]))
        .collect();
    format!("{} × 10{power}", signed(mantissa, 1))
}

/// An attention weight in a cell: ".41", "1", "0".
pub fn weight(value: f64) -> String {
    let text = format!("{value:.2}");
    match text.as_str() {
        "1.00" => "1".to_string(),
        "0.00" => "0".to_string(),
        _ => text.trim_start_matches('0').to_string(),
    }
}

/// A probability as a percentage (one decimal, two below 1%): the trace crate's, which the
/// claims' verdicts use too.
pub use tracebook_trace::percent;

/// 50257 → "50,257".
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// [`short`], but a power of ten for magnitudes under 0.01 ("3.2 × 10⁻⁶"), so small
/// numbers keep their digits.
pub fn small(value: f64) -> String {
    if value != 0.0 && value.abs() < 0.01 {
        scientific(value)
    } else {
        short(value)
    }
}

/// A size in bytes with binary units: "640 bytes", "32 KiB", "1.50 GiB".
pub fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let (mut value, mut unit) = (n, 0);
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    let text = if value.fract() == 0.0 {
        thousands(value as usize)
    } else {
        short(value)
    };
    format!("{text} {}", UNITS[unit])
}

/// A parameter count as people say it: "124.4M", "38.6M", "2.4K", "768".
pub fn count(n: usize) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.2}B", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1}M", n / 1e6)
    } else if n >= 1e4 {
        format!("{:.1}K", n / 1e3)
    } else {
        thousands(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::{bytes, change, count, short, signed, small, thousands, weight};

    #[test]
    fn changes_carry_their_sign() {
        assert_eq!(change(1.26, 1), "+1.3");
        assert_eq!(change(-1.26, 1), "−1.3");
        assert_eq!(change(0.01, 1), "0.0");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(small(3.16e-6), "3.2 × 10⁻⁶");
        assert_eq!(small(0.25), "0.250");
        assert_eq!(bytes(640.0), "640 bytes");
        assert_eq!(bytes(32_768.0), "32 KiB");
        assert_eq!(bytes(128.0 * 1024.0 * 1024.0), "128 MiB");
        assert_eq!(bytes(1.5 * 1024.0 * 1024.0 * 1024.0), "1.50 GiB");
    }

    #[test]
    fn signed_numbers_use_a_true_minus_and_no_negative_zero() {
        assert_eq!(signed(-3.21, 1), "−3.2");
        assert_eq!(signed(4.06, 1), "4.1");
        assert_eq!(signed(-0.01, 1), "0.0");
    }

    #[test]
    fn short_keeps_about_three_significant_digits() {
        assert_eq!(short(1234.4), "1,234");
        assert_eq!(short(-2345.0), "−2,345");
        assert_eq!(short(123.4), "123");
        assert_eq!(short(56.74), "56.7");
        assert_eq!(short(-2.345), "−2.35");
        assert_eq!(short(0.0421), "0.042");
        assert_eq!(short(0.0), "0.00");
        assert_eq!(short(0.99999), "1.00");
        assert_eq!(short(-0.0000001), "0.00");
        assert_eq!(short(99.97), "100");
    }

    #[test]
    fn numbers_too_large_to_write_out_get_a_power_of_ten() {
        // A random model's perplexity: exp(68) is about 3.4 × 10²⁹, not u64::MAX.
        assert_eq!(short(68f64.exp()), "3.4 × 10²⁹");
        assert_eq!(short(999_999_999.0), "999,999,999");
        assert_eq!(short(9.96e9), "1.0 × 10¹⁰");
        assert_eq!(short(-2.5e12), "−2.5 × 10¹²");
        assert_eq!(short(f64::INFINITY), "∞");
    }

    #[test]
    fn weights_drop_the_leading_zero() {
        assert_eq!(weight(0.414), ".41");
        assert_eq!(weight(0.999), "1");
        assert_eq!(weight(0.001), "0");
    }

    /// Percentages are the trace crate's (`tracebook_trace::percent`, tested there).
    #[test]
    fn formats_counts() {
        assert_eq!(thousands(50247), "50,247");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(count(124_439_808), "124.4M");
        assert_eq!(count(2_359_296), "2.4M");
        assert_eq!(count(768), "768");
        assert_eq!(count(38_597), "38.6K");
    }
}
