//! Reads `id`, `href` and `src` attribute values out of generated HTML, for link checking.

use tracebook_figures::unescape_html;

/// Values of attribute `name` (`id`, `href`, `src`), HTML entities for `&`, quotes and `<>` decoded.
pub fn attribute_values(html: &str, name: &str) -> Vec<String> {
    let mut values = Vec::new();
    let bytes = html.as_bytes();
    let mut at = 0;
    while let Some(found) = html[at..].find(name).map(|i| at + i) {
        at = found + name.len();
        let before = found.checked_sub(1).map(|i| bytes[i]);
        if !before.is_some_and(|b| b.is_ascii_whitespace()) || bytes.get(at) != Some(&b'=') {
            continue;
        }
        let Some(&quote) = bytes.get(at + 1).filter(|q| **q == b'"' || **q == b'\'') else {
            continue;
        };
        let start = at + 2;
        if let Some(len) = html[start..].find(quote as char) {
            values.push(unescape_html(&html[start..start + len]));
            at = start + len;
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_attribute_values_in_tags_only() {
        let html = r#"<h2 id="intro">x</h2><a href='b.html#x'>valid="no"</a><img src="a&amp;b.png"><p>id="text"</p>"#;
        assert_eq!(attribute_values(html, "id"), ["intro"]);
        assert_eq!(attribute_values(html, "href"), ["b.html#x"]);
        assert_eq!(attribute_values(html, "src"), ["a&b.png"]);
    }
}
