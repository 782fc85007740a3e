//! The root `<svg>` of a figure: viewBox sizing that scales to its container, `role="img"`
//! with `<title>` and `<desc>` for screen readers, and the embedded style sheet.

use super::element::Element;
use super::palette::Css;
use super::style::STYLE;
use fnv::FnvHasher;
use std::hash::Hasher;

/// What a figure's root element needs besides its drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct Canvas {
    /// The figure kind, added as a class (`tbf-<kind>`) so a site can style one kind.
    pub kind: &'static str,
    /// Size of the drawing in user units; also the largest size it is shown at, in CSS pixels.
    pub width: f64,
    pub height: f64,
    /// Short accessible name, e.g. "Next-token probabilities".
    pub title: String,
    /// What the figure shows, in words; the same text is the figure's alt text.
    pub desc: String,
    /// Style rules this figure adds to the shared sheet (its colour ramp), if any.
    pub css: Css,
}

/// The smallest text a figure draws, in user units (CSS px at 1:1).
pub const MIN_TEXT_SIZE: f64 = 12.0;

/// The width figures are laid out for, in user units: at 1:1 it fits a 390 px phone (376 px
/// inside the figure's frame), so on a phone a figure neither shrinks its text below
/// [`MIN_TEXT_SIZE`] nor scrolls sideways.
pub const FIGURE_WIDTH: f64 = 376.0;

/// How much larger than 1:1 a figure may be shown on a wide screen (12 px text at 14.4 px).
pub const MAX_GROWTH: f64 = 1.2;

/// Serializes `body` inside a root `<svg>` built from `canvas`.
///
/// The root has no fixed size: `width="100%"` with the viewBox's aspect ratio, and a
/// `max-width` of [`MAX_GROWTH`] times its width so a figure is not blown up on a wide
/// screen. It is never shrunk either: figures draw text at [`MIN_TEXT_SIZE`] user units or
/// more, so a `min-width` of its own width keeps that text at 12 CSS px or more. Figures
/// are laid out [`FIGURE_WIDTH`] wide, which fits a phone; a wider one (a long beam tree)
/// scrolls sideways in a narrower container instead of shrinking out of reach. `<title>` and `<desc>`
/// are linked with `aria-labelledby`; their ids derive from the content, so they are
/// deterministic and differ between different figures inlined in one page.
pub fn render_document(canvas: &Canvas, body: Vec<Element>) -> String {
    let mut inner = Element::new("g");
    for element in body {
        inner.push(element);
    }
    let drawing = inner.render();
    let id = format!(
        "tbf{:012x}",
        fingerprint(canvas, &drawing) & 0xffff_ffff_ffff
    );
    let view_box = format!(
        "0 0 {} {}",
        super::number::number(canvas.width, 1),
        super::number::number(canvas.height, 1)
    );
    let width = super::number::number(canvas.width, 0);
    let widest = super::number::number(canvas.width * MAX_GROWTH, 0);
    let max_width = format!("max-width:{widest}px;min-width:{width}px");
    let root = Element::new("svg")
        .attr("xmlns", "http://www.w3.org/2000/svg")
        .attr("viewBox", view_box)
        .attr("width", "100%")
        .attr("style", max_width)
        .attr("role", "img")
        .attr("aria-labelledby", format!("{id}t {id}d"))
        .class(&format!("tbf tbf-{}", canvas.kind))
        .child(
            Element::new("title")
                .attr("id", format!("{id}t"))
                .text(canvas.title.clone()),
        )
        .child(
            Element::new("desc")
                .attr("id", format!("{id}d"))
                .text(canvas.desc.clone()),
        )
        .child(
            Element::new("style")
                .static_markup(STYLE)
                .text(canvas.css.as_str()),
        )
        .child(inner);
    let mut svg = root.render();
    svg.push('\n');
    svg
}

/// FNV-1a over everything that makes the figure what it is, each part ended by 0xff.
fn fingerprint(canvas: &Canvas, drawing: &str) -> u64 {
    let mut hasher = FnvHasher::default();
    for part in [canvas.kind, &canvas.title, &canvas.desc, drawing] {
        hasher.write(part.as_bytes());
        hasher.write_u8(0xff);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::{render_document, Canvas};
    use crate::svg::{Css, Element};

    fn canvas(title: &str) -> Canvas {
        Canvas {
            kind: "demo",
            width: 400.0,
            height: 120.5,
            title: title.to_string(),
            desc: "A <demo> & its \"description\"".to_string(),
            css: Css::default(),
        }
    }

    #[test]
    fn root_is_responsive_and_accessible() {
        let svg = render_document(&canvas("Demo"), vec![Element::new("rect")]);
        assert!(svg.starts_with(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 400 120.5\" width=\"100%\""
        ));
        assert!(svg.contains("style=\"max-width:480px;min-width:400px\""));
        assert!(!svg.contains("height=\""), "no fixed height: {svg}");
        assert!(svg.contains("role=\"img\""));
        assert!(svg.contains("class=\"tbf tbf-demo\""));
        assert!(svg.contains(">Demo</title>"));
        assert!(svg.contains(">A &lt;demo&gt; &amp; its \"description\"</desc>"));
        assert!(svg.ends_with("</svg>\n"));
    }

    #[test]
    fn label_ids_are_deterministic_and_differ_between_figures() {
        let ids = |svg: &str| {
            let start = svg.find("aria-labelledby=\"").unwrap() + 17;
            svg[start..start + 16].to_string()
        };
        let a = render_document(&canvas("A"), vec![]);
        let a_again = render_document(&canvas("A"), vec![]);
        let b = render_document(&canvas("B"), vec![]);
        assert_eq!(a, a_again);
        assert_ne!(ids(&a), ids(&b));
        let id = ids(&a);
        assert!(a.contains(&format!("<title id=\"{id}\">")), "{a}");
    }
}
