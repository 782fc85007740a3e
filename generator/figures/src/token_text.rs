//! Token text made visible: GPT-2 tokens carry their leading space, and some are newlines
//! or control bytes, none of which show up as drawn text. Whitespace and controls become
//! marker glyphs drawn faintly, so " the" reads as "·the" and "\n" as "⏎". Text cut to
//! fit ends in "…" and carries a `<title>` with the whole of it, which browsers show on
//! hover: nothing is cut silently.

use crate::svg::{text_width, Element, Font};

/// The marker for a space.
pub const SPACE: char = '·';
/// The marker for a newline.
pub const NEWLINE: char = '⏎';

/// A run of shown text: literal characters, or markers standing for invisible ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub text: String,
    pub marker: bool,
}

/// A token's text as drawn: literal and marker runs, cut with "…" to fit a width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub pieces: Vec<Piece>,
    /// The whole text, markers and all, when it was cut.
    pub full: Option<String>,
}

impl Shown {
    /// `raw` with markers for invisible characters, cut to `max_width` in `font` at `size`.
    pub fn fit(raw: &str, max_width: f64, font: Font, size: f64) -> Shown {
        let full = text_width(&visible(raw), font, size);
        let budget = if full <= max_width {
            f64::INFINITY
        } else {
            max_width - text_width("…", font, size)
        };
        let mut pieces: Vec<Piece> = Vec::new();
        let mut used = 0.0;
        for c in raw.chars() {
            let (shown, marker) = marker_for(c).map_or((c, false), |m| (m, true));
            let mut buf = [0u8; 4];
            used += text_width(shown.encode_utf8(&mut buf), font, size);
            if used > budget {
                push(&mut pieces, '…', false);
                return Shown {
                    pieces,
                    full: Some(visible(raw)),
                };
            }
            push(&mut pieces, shown, marker);
        }
        Shown { pieces, full: None }
    }

    /// `text` as it is, one literal piece: for labels that are not token text.
    pub fn plain(text: impl Into<String>) -> Shown {
        Shown {
            pieces: vec![Piece {
                text: text.into(),
                marker: false,
            }],
            full: None,
        }
    }

    /// The shown text as one string.
    pub fn text(&self) -> String {
        self.pieces.iter().map(|p| p.text.as_str()).collect()
    }

    /// Appends the shown text to a `<text>` element, markers in a faint `tspan` so they
    /// read as annotations rather than characters; a token that is only markers (a space,
    /// a newline) shows them less faintly, as they are all there is to see.
    pub fn append_to(&self, element: Element) -> Element {
        let mut element = match &self.full {
            Some(full) => with_title(element, full),
            None => element,
        };
        let only_markers = self.pieces.iter().all(|p| p.marker);
        let class = if only_markers { "tbf-dim" } else { "tbf-ws" };
        for piece in &self.pieces {
            element = if piece.marker {
                element.child(Element::new("tspan").class(class).text(piece.text.clone()))
            } else {
                element.text(piece.text.clone())
            };
        }
        element
    }
}

/// `raw` with markers in place of invisible characters.
pub fn visible(raw: &str) -> String {
    raw.chars().map(|c| marker_for(c).unwrap_or(c)).collect()
}

/// `element` with a `<title>` child holding `full`: the whole of a text drawn cut.
pub fn with_title(element: Element, full: &str) -> Element {
    element.child(Element::new("title").text(full))
}

/// `element` with `<title>` `full` if `shown` is not all of it.
pub fn titled(element: Element, shown: &str, full: &str) -> Element {
    if shown == full {
        element
    } else {
        with_title(element, full)
    }
}

/// `text` as it is, cut with "…" to fit `max_width`: for running text such as a prompt,
/// where spaces read as spaces. Draw it with [`titled`], so the cut part can be read.
pub fn cut(text: &str, max_width: f64, font: Font, size: f64) -> String {
    if text_width(text, font, size) <= max_width {
        return text.to_string();
    }
    let budget = max_width - text_width("…", font, size);
    let mut out = String::new();
    for c in text.chars() {
        out.push(c);
        if text_width(&out, font, size) > budget {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// `element` with the text `full`, cut with "…" to fit `max_width` (and then titled).
pub fn fitted(element: Element, full: &str, max_width: f64, font: Font, size: f64) -> Element {
    let shown = cut(full, max_width, font, size);
    titled(element, &shown, full).text(shown)
}

/// The end of `text`, cut from the start with "…" to fit `max_width`: for a prompt whose
/// last words lead into what comes next. Draw it with [`titled`].
pub fn cut_start(text: &str, max_width: f64, font: Font, size: f64) -> String {
    if text_width(text, font, size) <= max_width {
        return text.to_string();
    }
    let mut used = text_width("…", font, size);
    let mut tail: Vec<char> = Vec::new();
    for c in text.chars().rev() {
        let mut buf = [0u8; 4];
        used += text_width(c.encode_utf8(&mut buf), font, size);
        if used > max_width {
            break;
        }
        tail.push(c);
    }
    tail.push('…');
    tail.into_iter().rev().collect()
}

/// Text on one line: newlines as "⏎", other runs of whitespace as one space.
pub fn one_line(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c == '\n' {
            out.push('⏎');
        } else if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn push(pieces: &mut Vec<Piece>, c: char, marker: bool) {
    match pieces.last_mut() {
        Some(last) if last.marker == marker => last.text.push(c),
        _ => pieces.push(Piece {
            text: c.to_string(),
            marker,
        }),
    }
}

fn marker_for(c: char) -> Option<char> {
    match c {
        '\n' => Some(NEWLINE),
        '\t' => Some('⇥'),
        '\r' => Some('␍'),
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + u32::from(c)),
        '\u{7f}' => Some('␡'),
        c if c.is_whitespace() => Some(SPACE),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{one_line, visible, Piece, Shown};
    use crate::svg::{Element, Font};

    fn piece(text: &str, marker: bool) -> Piece {
        Piece {
            text: text.to_string(),
            marker,
        }
    }

    fn shown(raw: &str) -> Vec<Piece> {
        Shown::fit(raw, 1000.0, Font::Mono, 10.0).pieces
    }

    #[test]
    fn leading_spaces_and_newlines_become_markers() {
        assert_eq!(shown(" the"), vec![piece("·", true), piece("the", false)]);
        assert_eq!(shown("\n\n"), vec![piece("⏎⏎", true)]);
        assert_eq!(
            shown("a b"),
            vec![piece("a", false), piece("·", true), piece("b", false)]
        );
        assert_eq!(visible("\tx\u{1b}\r\u{a0}"), "⇥x␛␍·");
    }

    #[test]
    fn running_text_is_cut_to_fit_with_spaces_kept() {
        assert_eq!(
            super::cut("The robots", 100.0, Font::Mono, 10.0),
            "The robots"
        );
        assert_eq!(
            super::cut("The robots will", 36.0, Font::Mono, 10.0),
            "The r…"
        );
    }

    #[test]
    fn one_line_keeps_newlines_visible_and_collapses_spaces() {
        assert_eq!(one_line("a\n\nb  \t c"), "a⏎⏎b c");
    }

    #[test]
    fn a_literal_middle_dot_is_not_a_marker() {
        assert_eq!(shown("·"), vec![piece("·", false)]);
    }

    #[test]
    fn ordinary_text_is_one_literal_piece() {
        assert_eq!(shown("robots"), vec![piece("robots", false)]);
        assert_eq!(shown("日本"), vec![piece("日本", false)]);
        assert!(shown("").is_empty());
    }

    #[test]
    fn fitting_keeps_short_text_and_marks_cuts() {
        // Monospace at size 10: 6 units a cell, wide characters two cells.
        let fit = |raw: &str, width: f64| Shown::fit(raw, width, Font::Mono, 10.0).text();
        assert_eq!(fit("robots", 36.0), "robots");
        assert_eq!(fit("robots", 24.0), "rob…");
        assert_eq!(fit(" robots", 24.0), "·ro…");
        assert_eq!(fit("日本語テキスト", 30.0), "日本…");
    }

    #[test]
    fn cut_text_keeps_the_whole_in_a_title() {
        let cut = Shown::fit(" internationalisation", 60.0, Font::Mono, 10.0);
        assert!(cut.text().ends_with('…'));
        assert_eq!(cut.full.as_deref(), Some("·internationalisation"));
        assert_eq!(
            cut.append_to(Element::new("text")).render(),
            "<text><title>·internationalisation</title><tspan class=\"tbf-ws\">·</tspan>internat…</text>"
        );
        assert_eq!(Shown::fit("robots", 60.0, Font::Mono, 10.0).full, None);
        let whole = super::fitted(Element::new("text"), "short", 100.0, Font::Mono, 10.0);
        assert_eq!(whole.render(), "<text>short</text>");
        let long = super::fitted(
            Element::new("text"),
            "The robots will",
            36.0,
            Font::Mono,
            10.0,
        );
        assert_eq!(
            long.render(),
            "<text><title>The robots will</title>The r…</text>"
        );
    }

    #[test]
    fn the_start_of_a_long_text_is_cut_to_keep_its_end() {
        assert_eq!(
            super::cut_start("robots", 100.0, Font::Mono, 10.0),
            "robots"
        );
        assert_eq!(
            super::cut_start("The robots will bring", 48.0, Font::Mono, 10.0),
            "…l bring"
        );
    }

    #[test]
    fn a_token_of_markers_only_is_drawn_less_faintly() {
        let text = Shown::fit("\n", 100.0, Font::Mono, 10.0).append_to(Element::new("text"));
        assert_eq!(
            text.render(),
            "<text><tspan class=\"tbf-dim\">⏎</tspan></text>"
        );
    }

    #[test]
    fn markers_are_drawn_faintly() {
        let text = Shown::fit(" hi\n", 100.0, Font::Mono, 10.0).append_to(Element::new("text"));
        assert_eq!(
            text.render(),
            "<text><tspan class=\"tbf-ws\">·</tspan>hi<tspan class=\"tbf-ws\">⏎</tspan></text>"
        );
    }
}
