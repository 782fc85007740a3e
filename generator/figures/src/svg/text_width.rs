//! Text width estimates for layout. SVG cannot measure text before it is shown, so
//! figures lay out with typical advance widths (Helvetica-like for sans, 0.6 em cells for
//! monospace) and leave a little slack; wide East Asian characters and emoji take two cells.

use unicode_width::UnicodeWidthChar;

/// The two font stacks the style sheet defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Font {
    /// The system UI font (`svg.tbf`'s default).
    Sans,
    /// The monospace stack (class `tbf-m`), used for token text.
    Mono,
}

/// Estimated advance width of `text` at `size` user units.
pub fn text_width(text: &str, font: Font, size: f64) -> f64 {
    let ems: f64 = text
        .chars()
        .map(|c| match font {
            Font::Mono => f64::from(cells(c)) * 0.6,
            Font::Sans => sans_em(c),
        })
        .sum();
    ems * size
}

/// Terminal-style cell count by Unicode's East Asian Width: 0 for combining marks, 2 for
/// wide characters and emoji, else 1 (control characters too).
fn cells(c: char) -> u8 {
    UnicodeWidthChar::width(c).map_or(1, |w| w as u8)
}

fn sans_em(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | '\'' | '|' | '!' | '.' | ',' | ':' | ';' => 0.24,
        'f' | 't' | 'I' | ' ' | '(' | ')' | '[' | ']' | '/' | '-' => 0.30,
        'r' => 0.34,
        'm' | 'M' => 0.85,
        'w' => 0.74,
        'W' => 0.95,
        '%' => 0.86,
        '0'..='9' => 0.56,
        'A'..='Z' => 0.68,
        'a'..='z' => 0.54,
        c if c.is_ascii() => 0.58,
        c => 0.6 * f64::from(cells(c)),
    }
}

#[cfg(test)]
mod tests {
    use super::{text_width, Font};

    #[test]
    fn monospace_is_a_fixed_cell_per_character() {
        assert!((text_width("abcd", Font::Mono, 10.0) - 24.0).abs() < 1e-9);
        assert!((text_width("iiii", Font::Mono, 10.0) - 24.0).abs() < 1e-9);
    }

    #[test]
    fn wide_characters_take_two_cells_and_combining_marks_none() {
        assert!((text_width("日本", Font::Mono, 10.0) - 24.0).abs() < 1e-9);
        assert!((text_width("e\u{301}", Font::Mono, 10.0) - 6.0).abs() < 1e-9);
    }

    #[test]
    fn sans_widths_follow_letter_shapes() {
        let narrow = text_width("iiii", Font::Sans, 10.0);
        let wide = text_width("mmmm", Font::Sans, 10.0);
        assert!(narrow < wide / 2.0);
        assert!(text_width("12.5%", Font::Sans, 14.0) > 30.0);
    }
}
