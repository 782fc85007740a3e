//! Properties of SVG escaping: no input string can produce markup or end an attribute, the
//! result always parses as XML, and the parser reads back the input (with the characters
//! XML cannot carry replaced by U+FFFD).

use super::allowed_in_xml;
use super::tests::{attr, text};
use proptest::prelude::*;

/// What an XML parser should read back: the input, minus what XML cannot carry.
fn readable(s: &str) -> String {
    s.chars()
        .map(|c| if allowed_in_xml(c) { c } else { '\u{FFFD}' })
        .collect()
}

/// Every `&` starts one of the entities the escaper writes.
fn ampersands_are_entities(escaped: &str) -> bool {
    const ENTITIES: [&str; 8] = [
        "&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#10;", "&#13;", "&#9;",
    ];
    escaped
        .match_indices('&')
        .all(|(at, _)| ENTITIES.iter().any(|e| escaped[at..].starts_with(e)))
}

/// Strings dense in markup, quotes, whitespace and characters XML forbids.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "([<>&\"'/=;#x0-9a-z \n\r\t]|&amp;|]]>|<!--|</svg>|\u{0}|\u{1b}|\u{fffe}|\u{ffff}|\u{d7ff}|\u{e000}){0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn text_cannot_become_markup(input in hostile()) {
        let out = text(&input);
        prop_assert!(!out.contains(['<', '>']), "{out:?}");
        prop_assert!(ampersands_are_entities(&out), "{out:?}");
        prop_assert!(out.chars().all(allowed_in_xml), "{out:?}");
        let doc = format!("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>{out}</text></svg>");
        let parsed = roxmltree::Document::parse(&doc).map_err(|e| TestCaseError::fail(format!("{e}: {doc:?}")))?;
        let read = parsed.root_element().first_child().and_then(|t| t.text()).unwrap_or("");
        prop_assert_eq!(read, readable(&input));
    }

    #[test]
    fn attribute_values_cannot_end_early(input in hostile()) {
        let out = attr(&input);
        let expected = readable(&input);
        prop_assert!(!out.contains(['<', '>', '"', '\'', '\n', '\r', '\t']), "{out:?}");
        prop_assert!(ampersands_are_entities(&out), "{out:?}");
        for quote in ['"', '\''] {
            let doc = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" aria-label={quote}{out}{quote}/>");
            let parsed = roxmltree::Document::parse(&doc).map_err(|e| TestCaseError::fail(format!("{e}: {doc:?}")))?;
            let root = parsed.root_element();
            prop_assert_eq!(root.attributes().count(), 1);
            prop_assert_eq!(root.attribute("aria-label"), Some(expected.as_str()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The one-pass reader agrees with replacing each entity in turn, `&amp;` last, on strings
    /// dense in entities and their parts.
    #[test]
    fn unescaping_reads_each_entity_once(input in "(&|amp;|lt;|gt;|quot;|#39;|#10;|a|<)*") {
        let in_turn = input
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        prop_assert_eq!(super::unescape_html(&input), in_turn);
    }
}
