//! One page's citations formatted together (so a style can number them or tell "2019a" from
//! "2019b"), as HTML: each cited work links to its entry in the page's references list, and
//! the list holds only the works the page cites, in the style's order.

use super::Bibliography;
use crate::base::escape;
use hayagriva::citationberg::{FontStyle, FontVariant, FontWeight, TextDecoration, VerticalAlign};
use hayagriva::{
    BibliographyDriver, BibliographyRequest, BufWriteFormat, CitationItem, CitationRequest,
    ElemChild, ElemChildren, ElemMeta, Formatted,
};

/// One in-text citation: what it reads as plain text, and as HTML with links.
#[derive(Debug, Clone, PartialEq)]
pub struct Cited {
    pub text: String,
    pub html: String,
}

/// A page's in-text citations, in the order given, and its list of references.
#[derive(Debug, Clone, PartialEq)]
pub struct PageReferences {
    pub cited: Vec<Cited>,
    /// The list's `<li>` items.
    pub items: String,
}

/// The element id of an entry in a references list.
pub fn anchor(key: &str) -> String {
    format!("ref-{key}")
}

impl Bibliography {
    /// Formats a page's citations: the keys of each, in page order, every key in the
    /// bibliography (unknown keys were reported when the cite was read).
    pub fn format_page(&self, citations: &[Vec<String>]) -> PageReferences {
        let mut driver = BibliographyDriver::new();
        for keys in citations {
            let items = keys
                .iter()
                .filter_map(|k| self.library.get(k))
                .map(CitationItem::with_entry)
                .collect();
            driver.citation(CitationRequest::new(
                items,
                &self.style,
                Some(self.locale.clone()),
                &self.locales,
                None,
            ));
        }
        let rendered = driver.finish(BibliographyRequest::new(
            &self.style,
            Some(self.locale.clone()),
            &self.locales,
        ));
        let cited = rendered
            .citations
            .iter()
            .zip(citations)
            .map(|(citation, keys)| in_text(&citation.citation, keys))
            .collect();
        let mut items = String::new();
        for item in rendered.bibliography.iter().flat_map(|b| &b.items) {
            items.push_str(&format!("<li id=\"{}\">", escape::html(&anchor(&item.key))));
            if let Some(first) = &item.first_field {
                items.push_str("<span class=\"tb-reference-label\">");
                write_child(first, None, &mut items);
                items.push_str("</span> ");
            }
            let mut entry = String::new();
            write_children(&item.content, None, &mut entry);
            items.push_str(&without_dangling_delimiters(&entry));
            items.push_str("</li>\n");
        }
        PageReferences { cited, items }
    }
}

/// An entry without a delimiter left before a closing bracket: hayagriva (0.10) keeps the
/// comma of APA's "(2020, May 4)" when an entry has a year alone, giving "(2020,)".
fn without_dangling_delimiters(entry: &str) -> String {
    let mut out = entry.to_string();
    for dangling in [", )", ",)", ", ]", ",]"] {
        out = out.replace(dangling, &dangling[dangling.len() - 1..]);
    }
    out
}

/// The references list of a page: a heading (with `id`, as the page's other headings have)
/// and the entries.
pub fn section(id: &str, title: &str, items: &str) -> String {
    let id = escape::html(id);
    format!(
        "<section class=\"tb-references\" aria-labelledby=\"{id}\">\n\
         <h2 id=\"{id}\">{}<a class=\"tb-anchor\" href=\"#{id}\" aria-hidden=\"true\" tabindex=\"-1\">#</a></h2>\n\
         <ul class=\"tb-references-list\">\n{items}</ul>\n</section>\n",
        escape::html(title)
    )
}

/// An in-text citation: each work it names links to its entry (a style that merges the
/// works into one piece, as "[1–3]", links the whole to the first).
fn in_text(children: &ElemChildren, keys: &[String]) -> Cited {
    let mut text = String::new();
    let _ = children.write_buf(&mut text, BufWriteFormat::Plain);
    let mut inner = String::new();
    write_children(children, Some(keys), &mut inner);
    let linked_per_work = has_entry_meta(children);
    let html = match keys.first() {
        Some(first) if !linked_per_work => format!(
            "<a class=\"tb-cite\" href=\"#{}\">{inner}</a>",
            escape::html(&anchor(first))
        ),
        _ => format!("<span class=\"tb-cite\">{inner}</span>"),
    };
    Cited { text, html }
}

fn has_entry_meta(children: &ElemChildren) -> bool {
    children.0.iter().any(|c| match c {
        ElemChild::Elem(e) => {
            matches!(e.meta, Some(ElemMeta::Entry(_))) || has_entry_meta(&e.children)
        }
        _ => false,
    })
}

/// HTML of formatted CSL output; `keys` (in a citation) turn each work's piece into a link.
fn write_children(children: &ElemChildren, keys: Option<&[String]>, out: &mut String) {
    for child in &children.0 {
        write_child(child, keys, out);
    }
}

fn write_child(child: &ElemChild, keys: Option<&[String]>, out: &mut String) {
    match child {
        ElemChild::Text(formatted) => write_formatted(formatted, out),
        ElemChild::Elem(elem) => {
            let key = match (&elem.meta, keys) {
                (Some(ElemMeta::Entry(i)), Some(keys)) => keys.get(*i),
                _ => None,
            };
            match key {
                Some(key) => {
                    out.push_str(&format!("<a href=\"#{}\">", escape::html(&anchor(key))));
                    write_children(&elem.children, None, out);
                    out.push_str("</a>");
                }
                None => write_children(&elem.children, keys, out),
            }
        }
        ElemChild::Markup(text) => out.push_str(&escape::html(text)),
        // Inside a citation the work already links to its entry; links do not nest.
        ElemChild::Link { text, .. } if keys.is_some() => write_formatted(text, out),
        ElemChild::Link { text, url } => {
            out.push_str(&format!("<a href=\"{}\">", escape::html(url)));
            write_formatted(text, out);
            out.push_str("</a>");
        }
        ElemChild::Transparent { .. } => {}
    }
}

/// Text in its CSL formatting, as HTML elements rather than inline styles.
fn write_formatted(formatted: &Formatted, out: &mut String) {
    let f = &formatted.formatting;
    let mut close = Vec::new();
    let mut open = |tag: &'static str, html: &str| {
        out.push_str(html);
        close.push(tag);
    };
    if f.font_style == FontStyle::Italic {
        open("</i>", "<i>");
    }
    if f.font_weight == FontWeight::Bold {
        open("</b>", "<b>");
    }
    if f.font_variant == FontVariant::SmallCaps {
        open("</span>", "<span class=\"tb-small-caps\">");
    }
    if f.text_decoration == TextDecoration::Underline {
        open("</u>", "<u>");
    }
    match f.vertical_align {
        VerticalAlign::Sup => open("</sup>", "<sup>"),
        VerticalAlign::Sub => open("</sub>", "<sub>"),
        _ => {}
    }
    out.push_str(&escape::html(&formatted.text));
    for tag in close.iter().rev() {
        out.push_str(tag);
    }
}

#[cfg(test)]
mod tests;
