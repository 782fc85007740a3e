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

/// How much wider than [`text_width`]'s estimate a wide system sans (DejaVu Sans, bold
/// included) may set text: layouts that must not run off the figure leave that much room.
pub const WIDE_FONT: f64 = 1.3;

/// How far glyphs reach below the baseline, as a share of their size (DejaVu's descenders):
/// a turned label's descenders reach this far sideways.
pub const DESCENT: f64 = 0.25;

/// The room to leave for `text` so that it fits in a wide system font too: its estimated
/// width times [`WIDE_FONT`].
pub fn wide_width(text: &str, font: Font, size: f64) -> f64 {
    text_width(text, font, size) * WIDE_FONT
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

/// `text` broken at spaces into lines of at most `max_width` (greedy, as a browser breaks a
/// paragraph); a word wider than that stays whole on a line of its own.
pub fn wrap(text: &str, max_width: f64, font: Font, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), font, size) <= max_width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
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
        // Maths signs: DejaVu Sans draws them 0.84 em wide, Helvetica 0.58.
        '=' | '+' | '<' | '>' | '×' | '−' | '÷' | '±' => 0.68,
        '0'..='9' => 0.56,
        'A'..='Z' => 0.68,
        'a'..='z' => 0.54,
        c if c.is_ascii() => 0.58,
        c => 0.6 * f64::from(cells(c)),
    }
}

#[cfg(test)]
mod tests {
    use super::{text_width, wrap, Font};

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        let lines = wrap("one two three four five six", 60.0, Font::Mono, 10.0);
        assert_eq!(lines, ["one two", "three four", "five six"]);
        for line in &lines {
            assert!(text_width(line, Font::Mono, 10.0) <= 60.0);
        }
        assert_eq!(
            wrap("unbreakable word", 30.0, Font::Mono, 10.0),
            ["unbreakable", "word"]
        );
        assert!(wrap("", 30.0, Font::Mono, 10.0).is_empty());
    }

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
