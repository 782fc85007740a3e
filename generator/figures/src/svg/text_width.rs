//! Text width estimates for layout. SVG cannot measure text before it is shown, so
//! figures lay out with typical advance widths (Helvetica-like for sans, 0.6 em cells for
//! monospace) and leave a little slack; wide East Asian characters and emoji take two cells.

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

/// Terminal-style cell count: 0 for combining marks, 2 for wide characters, else 1.
fn cells(c: char) -> u8 {
    let u = u32::from(c);
    if matches!(u, 0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F | 0x20D0..=0x20FF) {
        0
    } else if is_wide(u) {
        2
    } else {
        1
    }
}

fn is_wide(u: u32) -> bool {
    matches!(u,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD)
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
