//! HTML escaping for text and attribute values (the same five characters for both).

/// `text` safe inside HTML text and double- or single-quoted attributes.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            super::html("<script>\"a\" & 'b'</svg>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/svg&gt;"
        );
    }
}
