//! Escaping for SVG text and attribute values: whatever the input, it stays character
//! data. Markup characters become entities, and characters XML 1.0 cannot carry at all
//! (most C0 controls, U+FFFE, U+FFFF) become U+FFFD so a standalone `.svg` still parses.
//! The one decoder of those entities, for reading rendered pages and figures back, is here too.

/// Appends `text` escaped for element content.
pub fn escape_text(out: &mut String, text: &str) {
    escape(out, text, false);
}

/// Appends `value` escaped for a double- or single-quoted attribute value.
pub fn escape_attr(out: &mut String, value: &str) {
    escape(out, value, true);
}

fn escape(out: &mut String, input: &str, attribute: bool) {
    for c in input.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&#39;"),
            // Attribute value normalization would turn these into spaces; keep them.
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            c if !allowed_in_xml(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// Reads back the five entities HTML and SVG escaping write for markup characters and
/// quotes (`&amp;` last, so `&amp;lt;` stays `&lt;`); other entities are left as they are.
/// One pass, which reads the same as replacing each entity in turn with `&amp;` last.
pub fn unescape_html(text: &str) -> String {
    const ENTITIES: [(&str, char); 5] = [
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&quot;", '"'),
        ("&#39;", '\''),
        ("&amp;", '&'),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (c, len) = ENTITIES
            .iter()
            .find(|(entity, _)| tail.starts_with(entity))
            .map_or(('&', 1), |&(entity, c)| (c, entity.len()));
        out.push(c);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

fn allowed_in_xml(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    use super::{escape_attr, escape_text};

    /// `s` escaped as element text (also used by the property tests).
    pub(super) fn text(s: &str) -> String {
        let mut out = String::new();
        escape_text(&mut out, s);
        out
    }

    /// `s` escaped as an attribute value.
    pub(super) fn attr(s: &str) -> String {
        let mut out = String::new();
        escape_attr(&mut out, s);
        out
    }

    #[test]
    fn markup_in_text_stays_text() {
        assert_eq!(
            text("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(
            text("</svg><svg onload=x>"),
            "&lt;/svg&gt;&lt;svg onload=x&gt;"
        );
        assert_eq!(text("a & b &amp;"), "a &amp; b &amp;amp;");
        assert_eq!(text("]]> <!-- -->"), "]]&gt; &lt;!-- --&gt;");
    }

    #[test]
    fn quotes_cannot_close_an_attribute() {
        assert_eq!(
            attr(r#"x" onload="alert(1)"#),
            "x&quot; onload=&quot;alert(1)"
        );
        assert_eq!(attr("x' y='1"), "x&#39; y=&#39;1");
        assert!(!attr("\"'<>&").contains(['"', '\'', '<', '>']));
    }

    #[test]
    fn whitespace_survives_attribute_normalization() {
        assert_eq!(attr("a\nb\tc\rd"), "a&#10;b&#9;c&#13;d");
        assert_eq!(text("a\nb\tc"), "a\nb\tc");
    }

    #[test]
    fn characters_xml_cannot_carry_are_replaced() {
        assert_eq!(
            text("a\u{0}b\u{1b}c\u{FFFF}"),
            "a\u{FFFD}b\u{FFFD}c\u{FFFD}"
        );
        assert_eq!(text("café 日本 🙂"), "café 日本 🙂");
    }
}
