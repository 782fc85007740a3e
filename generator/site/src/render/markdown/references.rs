//! A page's citations: once every `{{ cite KEY }}` of the body is read, the bibliography
//! formats them together; each value gets its words, and the page its references list.

use super::headings::TocEntry;
use crate::load::citations::{self, Citations};
use crate::load::words::Words;
use crate::resolve::inline::Value;

/// Fills in the page's citations; the items of its references list, when it cites anything.
pub fn place(values: &mut [Option<Value>], citations: &Citations) -> Option<String> {
    let Citations::Ready(bibliography) = citations else {
        return None;
    };
    let cites: Vec<Vec<String>> = values
        .iter()
        .filter_map(|v| match v {
            Some(Value::Cite { keys, .. }) => Some(keys.clone()),
            _ => None,
        })
        .collect();
    if cites.is_empty() {
        return None;
    }
    let page = bibliography.format_page(&cites);
    let slots = values.iter_mut().filter_map(|v| match v {
        Some(Value::Cite { text, html, .. }) => Some((text, html)),
        _ => None,
    });
    for ((text, html), cited) in slots.zip(page.cited) {
        *text = cited.text;
        *html = cited.html;
    }
    Some(page.items)
}

/// Appends the references list to `html` under a level-2 heading in the site's words, listed
/// in the contents; its id is `references` unless a heading of the page took it.
pub fn append(html: &mut String, toc: &mut Vec<TocEntry>, items: &str, words: &Words) {
    let taken = |id: &str| {
        toc.iter()
            .any(|e| e.id == id || e.children.iter().any(|c| c.id == id))
    };
    let id = std::iter::once("references".to_string())
        .chain((1..).map(|n| format!("references-{n}")))
        .find(|id| !taken(id))
        .expect("some id is free");
    let title = words.get("references");
    html.push_str(&citations::section(&id, title, items));
    toc.push(TocEntry {
        level: 2,
        id,
        title: title.to_string(),
        children: Vec::new(),
    });
}
