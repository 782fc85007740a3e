//! Reads `id`, `href` and `src` attribute values out of generated HTML, for link checking.

use tracebook_figures::unescape_html;

/// One attribute of a start tag: its name, decoded value, and where the raw value starts.
#[derive(Debug, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub value: String,
    pub offset: usize,
}

/// Every attribute of every start tag of `html`, in order, values with the HTML entities for
/// `&`, quotes and `<>` decoded. Text is not markup: `&lt;a href="x"&gt;` in a code span has
/// no attribute, and neither do comments or the contents of `<script>` and `<style>`.
pub fn attributes(html: &str) -> Vec<Attribute> {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(lt) = html[at..].find('<').map(|i| at + i) {
        let rest = &html[lt + 1..];
        if rest.starts_with("!--") {
            at = html[lt..].find("-->").map_or(html.len(), |i| lt + i + 3);
            continue;
        }
        if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            // An end tag, a doctype or a stray `<`: no attributes.
            at = lt + 1;
            continue;
        }
        let name_end = lt
            + 1
            + rest
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '-')
                .unwrap_or(rest.len());
        let tag = html[lt + 1..name_end].to_ascii_lowercase();
        at = tag_attributes(html, bytes, name_end, &mut out);
        if matches!(tag.as_str(), "script" | "style") {
            let close = format!("</{tag}");
            at = bytes[at..]
                .windows(close.len())
                .position(|w| w.eq_ignore_ascii_case(close.as_bytes()))
                .map_or(html.len(), |i| at + i);
        }
    }
    out
}

/// Reads the attributes of a start tag from `at` (just after its name) to its `>`; returns the
/// position after the tag.
fn tag_attributes(html: &str, bytes: &[u8], mut at: usize, out: &mut Vec<Attribute>) -> usize {
    loop {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= bytes.len() || bytes[at] == b'>' {
            return (at + 1).min(html.len());
        }
        let start = at;
        while at < bytes.len() && !bytes[at].is_ascii_whitespace() && !b"=>/".contains(&bytes[at]) {
            at += 1;
        }
        let name = html[start..at].to_string();
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if bytes.get(at) != Some(&b'=') {
            if at == start {
                at += 1;
            }
            continue;
        }
        at += 1;
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let (value_start, value_end, next) = match bytes.get(at) {
            Some(&q) if q == b'"' || q == b'\'' => {
                let end = html[at + 1..]
                    .find(q as char)
                    .map_or(html.len(), |i| at + 1 + i);
                (at + 1, end, (end + 1).min(html.len()))
            }
            _ => {
                let end = html[at..]
                    .find(|c: char| c.is_ascii_whitespace() || c == '>')
                    .map_or(html.len(), |i| at + i);
                (at, end, end)
            }
        };
        out.push(Attribute {
            name,
            value: unescape_html(&html[value_start..value_end]),
            offset: value_start,
        });
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute_values(html: &str, name: &str) -> Vec<String> {
        attributes(html)
            .into_iter()
            .filter(|a| a.name.eq_ignore_ascii_case(name))
            .map(|a| a.value)
            .collect()
    }

    #[test]
    fn finds_attribute_values_in_tags_only() {
        let html = r#"<h2 id="intro">x</h2><a href='b.html#x'>valid="no"</a><img src="a&amp;b.png"><p>id="text"</p>"#;
        assert_eq!(attribute_values(html, "id"), ["intro"]);
        assert_eq!(attribute_values(html, "href"), ["b.html#x"]);
        assert_eq!(attribute_values(html, "src"), ["a&b.png"]);
    }

    #[test]
    fn escaped_text_comments_and_scripts_hold_no_attributes() {
        let html = r#"<p><code>&lt;a href="page.html"&gt;</code></p><pre><code>&lt;a href="o.html"&gt;</code></pre><!-- <a href="c.html"> --><script>let s = '<a href="s.html">';</script><a class=x href=u.html>u</a>"#;
        assert_eq!(attribute_values(html, "href"), ["u.html"]);
        let attrs = attributes(r#"<img alt='a b' src="x.png">"#);
        assert_eq!(attrs[1].name, "src");
        assert_eq!(attrs[1].offset, 20);
    }
}
