//! What an author's template wrote, made a figure: well-formed SVG with a `viewBox`, a `<desc>`
//! for its alt text, and nothing that reaches out of the page (no script, no event handler, no
//! link or `url()` to anything but the figure itself); then given the frame every figure has
//! (the responsive, labelled root and the style sheet, with the ramps its cells used).

use crate::error::FigureError;
use crate::svg::{render_document, Canvas, Css, Element};
use std::io::Write;

/// The most bytes a template may write: a figure larger than this would weigh down its page.
pub const MAX_BYTES: usize = 512 * 1024;

/// A writer that refuses to grow past [`MAX_BYTES`], which stops a template's render there.
#[derive(Default)]
pub struct Capped(pub Vec<u8>);

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_BYTES {
            return Err(std::io::Error::other(format!(
                "the figure grew past {} KB",
                MAX_BYTES / 1024
            )));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The drawing a template wrote: its size, title, description and markup inside the root.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub title: Option<String>,
    pub desc: String,
    /// The root's children but `<title>` and `<desc>`, as written.
    pub inner: String,
}

/// Checks what template `path` wrote and takes it apart.
pub fn read(svg: &str, path: &str) -> Result<Drawing, FigureError> {
    let doc = roxmltree::Document::parse(svg).map_err(|e| {
        let pos = e.pos();
        let line = svg.lines().nth(pos.row as usize - 1).unwrap_or("").trim();
        FigureError::new(format!(
            "{path} wrote SVG that is not well formed, at line {} column {} of its output: {e}",
            pos.row, pos.col
        ))
        .with_hint(format!("that line of the output: {}", clip(line)))
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" {
        return Err(FigureError::new(format!(
            "{path} wrote a <{}> element; a figure is one <svg> element",
            root.tag_name().name()
        )));
    }
    let (width, height) = view_box(root.attribute("viewBox")).ok_or_else(|| {
        FigureError::new(format!(
            "{path}'s <svg> has no viewBox=\"0 0 WIDTH HEIGHT\""
        ))
        .with_hint("the figure's size in user units (CSS px at 1:1), e.g. viewBox=\"0 0 376 200\"")
    })?;
    for node in root.descendants().filter(|n| n.is_element()) {
        safe(&node, path)?;
    }
    let text_of = |name: &str| {
        (root.children())
            .find(|n| n.has_tag_name(name))
            .map(|n| n.text().unwrap_or("").trim().to_string())
    };
    let desc = text_of("desc").filter(|d| !d.is_empty()).ok_or_else(|| {
        FigureError::new(format!(
            "{path} wrote no <desc>: a figure says what it shows in words"
        ))
        .with_hint("write <desc>…</desc> inside the <svg>: it is the figure's alt text")
    })?;
    let rounded = rounded_geometry(&root, svg);
    let mut inner = String::new();
    for child in root.children() {
        if child.has_tag_name("title") || child.has_tag_name("desc") {
            continue;
        }
        inner.push_str(&with(svg, child.range(), &rounded));
    }
    Ok(Drawing {
        width,
        height,
        title: text_of("title"),
        desc,
        inner,
    })
}

/// The attributes that place and size what a figure draws, whose numbers are written with at
/// most two decimals, as the built-in kinds write theirs: a template's arithmetic on a
/// tensor's values then draws the same figure from a native and a browser run (whose values
/// may differ in their last digits), and a figure weighs less.
const GEOMETRY: &[&str] = &[
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "dx",
    "dy",
    "width",
    "height",
    "d",
    "points",
    "transform",
    "stroke-width",
];

/// The geometry attributes' values under `root` (of `svg`) that change when rounded: each
/// value's byte range and its rounded text, in document order.
fn rounded_geometry(root: &roxmltree::Node, svg: &str) -> Vec<(std::ops::Range<usize>, String)> {
    (root.descendants().filter(|n| n.is_element()))
        .flat_map(|node| node.attributes().collect::<Vec<_>>())
        .filter(|a| a.namespace().is_none() && GEOMETRY.contains(&a.name()))
        .filter_map(|a| {
            let range = a.range_value();
            let text = round_numbers(&svg[range.clone()]);
            (text != svg[range.clone()]).then_some((range, text))
        })
        .collect()
}

/// `svg[range]` with the `replacements` inside it made.
fn with(
    svg: &str,
    range: std::ops::Range<usize>,
    replacements: &[(std::ops::Range<usize>, String)],
) -> String {
    let mut out = String::new();
    let mut at = range.start;
    for (r, text) in replacements
        .iter()
        .filter(|(r, _)| range.contains(&r.start))
    {
        out.push_str(&svg[at..r.start]);
        out.push_str(text);
        at = r.end;
    }
    out.push_str(&svg[at..range.end]);
    out
}

/// Every decimal number in `value` with at most two decimals (`67.2278 -> 67.23`,
/// `1.50 -> 1.5`, `3.001 -> 3`); integers, exponents and everything else as written.
fn round_numbers(value: &str) -> String {
    let bytes = value.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut out = String::new();
    let (mut i, mut copied) = (0, 0);
    while i < bytes.len() {
        if !(digit(i) || (bytes[i] == b'.' && digit(i + 1))) {
            i += 1;
            continue;
        }
        let begin = i;
        while digit(i) {
            i += 1;
        }
        let mut decimals = 0;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            while digit(i) {
                i += 1;
                decimals += 1;
            }
        }
        let exponent = matches!(bytes.get(i), Some(b'e' | b'E'));
        let Ok(v) = value[begin..i].parse::<f64>() else {
            continue;
        };
        if decimals > 2 && !exponent {
            out.push_str(&value[copied..begin]);
            let text = format!("{v:.2}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            if text == "0" && out.ends_with('-') {
                out.pop();
            }
            out.push_str(text);
            copied = i;
        }
    }
    out.push_str(&value[copied..]);
    out
}

/// The drawing inside the root every figure has: `kind` as its class (`tbf-own tbf-NAME`).
pub fn frame(drawing: Drawing, kind: &'static str, title: String, css: Css) -> String {
    let canvas = Canvas {
        kind,
        width: drawing.width,
        height: drawing.height,
        title: drawing.title.unwrap_or(title),
        desc: drawing.desc,
        css,
    };
    render_document(
        &canvas,
        vec![Element::new("g").checked_markup(drawing.inner)],
    )
}

/// `0 0 W H` with W and H positive.
fn view_box(value: Option<&str>) -> Option<(f64, f64)> {
    let parts: Vec<f64> = (value?.split([' ', ',']))
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    match parts[..] {
        [x, y, w, h] if x == 0.0 && y == 0.0 && w > 0.0 && h > 0.0 => Some((w, h)),
        _ => None,
    }
}

/// Refuses what would run code or fetch anything: a figure is drawn from its trace alone.
fn safe(node: &roxmltree::Node, path: &str) -> Result<(), FigureError> {
    let name = node.tag_name().name();
    let refuse = |what: String| {
        Err(FigureError::new(format!("{path} wrote {what}, which a figure may not hold"))
            .with_hint("a figure draws with shapes, text and the theme's classes only: no scripts, event handlers, embedded HTML or links out of the figure"))
    };
    if matches!(name, "script" | "foreignObject" | "iframe") {
        return refuse(format!("a <{name}> element"));
    }
    for attr in node.attributes() {
        let (key, value) = (attr.name(), attr.value());
        if key.starts_with("on") {
            return refuse(format!("an event handler ({key}=\"…\")"));
        }
        if key == "href" && !value.starts_with('#') {
            return refuse(format!(
                "a link out of the figure (href=\"{}\")",
                clip(value)
            ));
        }
        if reaches_out(value) {
            return refuse(format!(
                "a url() out of the figure ({key}=\"{}\")",
                clip(value)
            ));
        }
    }
    if name == "style"
        && node
            .text()
            .is_some_and(|t| reaches_out(t) || t.contains("@import"))
    {
        return refuse("a style sheet that loads something".into());
    }
    Ok(())
}

/// Whether `text` holds a `url(...)` to anything but a fragment of the figure (`url(#g)`).
fn reaches_out(text: &str) -> bool {
    text.match_indices("url(").any(|(at, _)| {
        let rest = text[at + 4..].trim_start_matches([' ', '"', '\'']);
        !rest.starts_with('#')
    })
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{read, round_numbers, Capped, MAX_BYTES};
    use std::io::Write;

    const OK: &str = "<svg viewBox=\"0 0 300 40\"><title>T</title><desc>Bars</desc><rect width=\"3\" height=\"4\"/></svg>";

    #[test]
    fn a_drawing_gives_its_size_words_and_markup() {
        let d = read(OK, "figures/x.svg").unwrap();
        assert_eq!((d.width, d.height), (300.0, 40.0));
        assert_eq!((d.title.as_deref(), d.desc.as_str()), (Some("T"), "Bars"));
        assert_eq!(d.inner, "<rect width=\"3\" height=\"4\"/>");
    }

    #[test]
    fn broken_or_unsafe_output_is_refused_with_where_and_why() {
        let e = read(
            "<svg viewBox=\"0 0 3 4\">\n<desc>a</desc>\n<g></svg>",
            "figures/x.svg",
        )
        .unwrap_err();
        assert!(e.message.contains("at line 3"), "{}", e.message);
        let e = read("<svg><desc>a</desc></svg>", "f").unwrap_err();
        assert!(e.message.contains("viewBox"), "{}", e.message);
        let e = read("<svg viewBox=\"0 0 3 4\"></svg>", "f").unwrap_err();
        assert!(e.message.contains("no <desc>"), "{}", e.message);
        for bad in [
            "<script>alert(1)</script>",
            "<rect onclick=\"x()\"/>",
            "<image href=\"https://example.com/a.png\"/>",
            "<rect style=\"fill:url(https://example.com/p)\"/>",
            "<style>@import 'https://example.com/s.css';</style>",
            "<foreignObject><div/></foreignObject>",
        ] {
            let svg = format!("<svg viewBox=\"0 0 3 4\"><desc>a</desc>{bad}</svg>");
            let e = read(&svg, "f").unwrap_err();
            assert!(e.message.contains("may not hold"), "{bad}: {}", e.message);
        }
        let fine = "<svg viewBox=\"0 0 3 4\"><desc>a</desc><use href=\"#g\"/><rect fill=\"url(#grad)\"/></svg>";
        assert!(read(fine, "f").is_ok());
    }

    #[test]
    fn the_writer_stops_at_its_limit() {
        let mut w = Capped::default();
        assert!(w.write(&vec![b'a'; MAX_BYTES]).is_ok());
        assert!(w.write(b"b").is_err());
    }

    #[test]
    fn geometry_is_written_with_two_decimals_and_nothing_else_changes() {
        assert_eq!(round_numbers("67.22780421568207"), "67.23");
        assert_eq!(
            round_numbers("M184 22v100.005h-3.14159"),
            "M184 22v100h-3.14"
        );
        assert_eq!(round_numbers("-0.0001"), "0");
        assert_eq!(
            round_numbers("1.50 2 .125 1e-7 1.23456e3"),
            "1.50 2 0.12 1e-7 1.23456e3"
        );
        assert_eq!(round_numbers("translate(10.126,é)"), "translate(10.13,é)");
        let svg = "<svg viewBox=\"0 0 10 10\"><desc>d 1.23456</desc><rect x=\"1.23456\" \
                   y=\"2\" class=\"c1.23456\"/><text x=\"0.5\">3.14159</text></svg>";
        let drawing = read(svg, "f").unwrap();
        assert_eq!(
            drawing.inner,
            "<rect x=\"1.23\" y=\"2\" class=\"c1.23456\"/><text x=\"0.5\">3.14159</text>"
        );
    }
}
