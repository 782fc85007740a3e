//! Properties of [`super::html`]: no input string can produce markup, and the escaped text
//! reads back as the input.

use super::html;
use proptest::prelude::*;

/// The five entities `html` writes, decoded; None if `escaped` holds any other `&`.
fn unescape(escaped: &str) -> Option<String> {
    const ENTITIES: [(&str, char); 5] = [
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&quot;", '"'),
        ("&#39;", '\''),
    ];
    let mut out = String::new();
    let mut rest = escaped;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let (entity, c) = ENTITIES
            .iter()
            .find(|(entity, _)| rest[at..].starts_with(entity))?;
        out.push(*c);
        rest = &rest[at + entity.len()..];
    }
    out.push_str(rest);
    Some(out)
}

/// Strings dense in markup characters, entities and near-entities, besides any string.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "([<>&\"'/=;#x0-9a-z ]|&amp;|&lt;|&#39;|<script>|</p>|\u{0}|\u{feff}){0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn escaped_text_holds_no_markup(input in hostile()) {
        let out = html(&input);
        prop_assert!(!out.contains(['<', '>', '"', '\'']), "{out:?}");
        prop_assert_eq!(unescape(&out), Some(input));
    }

    #[test]
    fn escaping_is_applied_once_per_character(a in hostile(), b in hostile()) {
        // Escaping does not look across characters: the halves escape on their own.
        prop_assert_eq!(html(&format!("{a}{b}")), format!("{}{}", html(&a), html(&b)));
    }
}
