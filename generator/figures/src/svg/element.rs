//! A small SVG element builder. Element and attribute names are `&'static str`, so only
//! code can choose them; every value and text that comes from data is escaped on the way
//! in, so no input string can open or close markup.

use super::escape::{escape_attr, escape_text};
use super::number::write_number;

/// One SVG element with its attributes and children, written out with [`Element::render`].
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    name: &'static str,
    /// Attribute values, already escaped.
    attrs: Vec<(&'static str, String)>,
    children: Vec<Node>,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Element(Element),
    Text(String),
    /// Markup fixed at compile time (the embedded style sheet); never data.
    Static(&'static str),
    /// An author's kind's drawing, parsed as well-formed SVG and checked safe
    /// (`own::output`), its text already escaped by the template.
    #[cfg_attr(not(feature = "own-kinds"), allow(dead_code))]
    Checked(String),
}

/// A value that can be written into an attribute.
pub trait AttrValue {
    /// Appends the escaped value to `out`.
    fn write_attr(&self, out: &mut String);
}

impl AttrValue for &str {
    fn write_attr(&self, out: &mut String) {
        escape_attr(out, self);
    }
}

impl AttrValue for String {
    fn write_attr(&self, out: &mut String) {
        escape_attr(out, self);
    }
}

/// Lengths and coordinates in user units: one decimal, which is below what a screen shows.
impl AttrValue for f64 {
    fn write_attr(&self, out: &mut String) {
        write_number(out, *self, 1);
    }
}

impl AttrValue for usize {
    fn write_attr(&self, out: &mut String) {
        out.push_str(&self.to_string());
    }
}

impl Element {
    /// An element with no attributes and no children.
    pub fn new(name: &'static str) -> Self {
        Element {
            name,
            attrs: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Adds an attribute (later calls with the same name add a second one; do not).
    pub fn attr(mut self, name: &'static str, value: impl AttrValue) -> Self {
        let mut escaped = String::new();
        value.write_attr(&mut escaped);
        self.attrs.push((name, escaped));
        self
    }

    /// Adds a `class` attribute.
    pub fn class(self, classes: &str) -> Self {
        self.attr("class", classes)
    }

    /// Appends a child element.
    pub fn child(mut self, child: Element) -> Self {
        self.children.push(Node::Element(child));
        self
    }

    /// Appends a child element in place.
    pub fn push(&mut self, child: Element) {
        self.children.push(Node::Element(child));
    }

    /// Appends text content, escaped when written.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.children.push(Node::Text(text.into()));
        self
    }

    /// Appends markup that is fixed at compile time, written as is.
    pub fn static_markup(mut self, markup: &'static str) -> Self {
        self.children.push(Node::Static(markup));
        self
    }

    /// Appends an author's kind's drawing, which `own::output::read` parsed and checked.
    #[cfg_attr(not(feature = "own-kinds"), allow(dead_code))]
    pub(crate) fn checked_markup(mut self, markup: String) -> Self {
        self.children.push(Node::Checked(markup));
        self
    }

    /// Serializes the element and its children.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        out.push('<');
        out.push_str(self.name);
        for (name, value) in &self.attrs {
            out.push(' ');
            out.push_str(name);
            out.push_str("=\"");
            out.push_str(value);
            out.push('"');
        }
        if self.children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        // Line breaks between the children of containers keep snapshots reviewable;
        // inside <text> whitespace is significant, so none is added there.
        let container = matches!(self.name, "svg" | "g" | "defs");
        for child in &self.children {
            match child {
                Node::Element(element) => {
                    if container {
                        out.push('\n');
                    }
                    element.write(out);
                }
                Node::Text(text) => escape_text(out, text),
                Node::Static(markup) => out.push_str(markup),
                Node::Checked(markup) => out.push_str(markup),
            }
        }
        if container {
            out.push('\n');
        }
        out.push_str("</");
        out.push_str(self.name);
        out.push('>');
    }
}

#[cfg(test)]
mod tests {
    use super::Element;

    #[test]
    fn writes_attributes_in_order_and_self_closes_empty_elements() {
        let rect = Element::new("rect")
            .attr("x", 1.26)
            .attr("width", 10usize)
            .attr("opacity", "0.12")
            .class("bar");
        assert_eq!(
            rect.render(),
            r#"<rect x="1.3" width="10" opacity="0.12" class="bar"/>"#
        );
    }

    #[test]
    fn hostile_text_and_attributes_stay_inside_their_element() {
        let hostile = r#"</text></svg><script>alert("x")</script>&'"#;
        let svg = Element::new("svg")
            .child(Element::new("text").attr("data-x", hostile).text(hostile))
            .render();
        assert!(!svg.contains("<script"), "{svg}");
        assert_eq!(svg.matches("</svg>").count(), 1, "{svg}");
        assert_eq!(svg.matches("</text>").count(), 1, "{svg}");
        let start_tag = &svg[svg.find("<text").unwrap()..];
        let start_tag = &start_tag[..start_tag.find('>').unwrap()];
        assert_eq!(start_tag.matches('"').count(), 2, "{start_tag}");
        assert!(
            svg.contains("&lt;/text&gt;&lt;/svg&gt;&lt;script&gt;"),
            "{svg}"
        );
    }

    #[test]
    fn containers_break_lines_but_text_keeps_its_whitespace() {
        let g = Element::new("g").child(
            Element::new("text")
                .child(Element::new("tspan").text(" a"))
                .text("b "),
        );
        assert_eq!(g.render(), "<g>\n<text><tspan> a</tspan>b </text>\n</g>");
    }
}
