//! Reading figures back in tests: the SVG parsed as XML (so every test also checks that
//! the output is well formed), the text of its `<text>` elements, and the cells of its
//! bin-coloured paths.

use roxmltree::{Document, Node};

/// Parses `svg`, failing the test if it is not well-formed XML with an `<svg>` root.
pub fn parse(svg: &str) -> Document<'_> {
    let doc = Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed: {e}\n{svg}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc
}

/// The text of a node and its descendants, as drawn: a `<title>` (the whole of a cut text,
/// shown on hover) is left out.
pub fn text_of(node: Node<'_, '_>) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .filter(|n| !n.ancestors().any(|a| a.has_tag_name("title")))
        .filter_map(|n| n.text())
        .collect()
}

/// The text of every `<text>` element, in document order.
pub fn all_texts(svg: &str) -> Vec<String> {
    let doc = parse(svg);
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(text_of)
        .collect()
}

/// The text of every `<text>` inside the first `<g>` whose class is `class`.
pub fn texts_in(svg: &str, class: &str) -> Vec<String> {
    groups_texts(svg, class)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no <g class=\"{class}\">"))
}

/// The text of every `<text>` inside the last `<g>` whose class is `class`.
pub fn texts_in_last(svg: &str, class: &str) -> Vec<String> {
    groups_texts(svg, class)
        .pop()
        .unwrap_or_else(|| panic!("no <g class=\"{class}\">"))
}

/// For every `<g>` whose class is `class`, the text of its `<text>` elements.
pub fn groups_texts(svg: &str, class: &str) -> Vec<Vec<String>> {
    let doc = parse(svg);
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some(class))
        .map(|group| {
            group
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .map(text_of)
                .collect()
        })
        .collect()
}

/// One cell of a bin-coloured path: its class and top-left corner.
#[derive(Debug, Clone, PartialEq)]
pub struct PathCell {
    pub class: String,
    pub x: f64,
    pub y: f64,
}

/// Every cell `width` wide drawn by a path whose class starts with `prefix`, sorted by
/// row then column, legend swatches left out. Paths are strokes `M x y h w` centred on the row (see `draw::Cells`).
pub fn cells(svg: &str, prefix: &str, width: f64) -> Vec<PathCell> {
    let doc = parse(svg);
    let mut out = Vec::new();
    for path in doc.descendants().filter(|n| n.has_tag_name("path")) {
        let Some(class) = path.attribute("class").filter(|c| c.starts_with(prefix)) else {
            continue;
        };
        // Legend swatches sit in a small-text group; they are not cells.
        let in_legend = path
            .ancestors()
            .any(|a| a.attribute("class").is_some_and(|c| c.contains("tbf-s")));
        // Closed shapes (backgrounds) are not cells.
        if in_legend || path.attribute("d").is_some_and(|d| d.contains('Z')) {
            continue;
        }
        let half: f64 = path
            .attribute("stroke-width")
            .unwrap()
            .parse::<f64>()
            .unwrap()
            / 2.0;
        for stroke in path.attribute("d").unwrap().split('M').skip(1) {
            let (xy, w) = stroke.split_once('h').unwrap();
            let (x, y) = xy.split_once(' ').unwrap();
            let (x, y, w): (f64, f64, f64) =
                (x.parse().unwrap(), y.parse().unwrap(), w.parse().unwrap());
            let n = (w / width).round() as usize;
            for i in 0..n {
                out.push(PathCell {
                    class: class.to_string(),
                    x: x + i as f64 * width,
                    y: y - half,
                });
            }
        }
    }
    out.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
    out
}

/// The `<desc>` text, which is also the figure's alt text.
pub fn desc(svg: &str) -> String {
    let doc = parse(svg);
    let node = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
    text_of(node)
}

/// The panel (`data-tb-panel`) a node is drawn in, if any.
pub fn panel_of(node: Node<'_, '_>) -> Option<String> {
    node.ancestors()
        .find_map(|a| a.attribute("data-tb-panel"))
        .map(str::to_string)
}

/// The numbers printed in the value cells (`tbf-v…t`) of panel `panel` (`None`: a figure
/// without pickers), row by row, left to right.
pub fn cell_values(svg: &str, panel: Option<&str>) -> Vec<String> {
    let doc = parse(svg);
    let mut out: Vec<(f64, f64, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && panel_of(*n).as_deref() == panel)
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.starts_with("tbf-v") && c.ends_with('t'))
        })
        .map(|n| {
            let at = |a: &str| n.attribute(a).unwrap().parse::<f64>().unwrap();
            (at("y"), at("x"), text_of(n))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    out.into_iter().map(|v| v.2).collect()
}

/// Where one line of a `<text>` is drawn across the page, by the layout's width estimate
/// ([`crate::svg::text_width`]) in its font and size.
#[derive(Debug, Clone, PartialEq)]
pub struct TextSpan {
    pub text: String,
    pub left: f64,
    pub right: f64,
    /// The line's baseline, before any turn.
    pub y: f64,
}

/// The attribute `name` of `node` or of its nearest ancestor that has one.
fn inherited<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.ancestors().find_map(|a| a.attribute(name))
}

fn has_class(node: Node<'_, '_>, class: &str) -> bool {
    node.ancestors().any(|a| {
        a.attribute("class")
            .is_some_and(|c| c.split(' ').any(|c| c == class))
    })
}

/// How far glyphs reach above their baseline and below it, in ems (DejaVu's capitals and
/// descenders).
const GLYPH_ASCENT: f64 = 0.73;
const GLYPH_DESCENT: f64 = 0.24;

/// How far across every line of text reaches: each `<text>` (and each `<tspan>` of it that
/// starts a line of its own, with its own `x`), from its anchor by its estimated width, in
/// monospace under `tbf-m`, at its `font-size` (12 under `tbf-s`, else the sheet's 14),
/// turned by its `rotate(…)` (its glyphs' height too) and squeezed to its `textLength`.
pub fn text_spans(svg: &str) -> Vec<TextSpan> {
    use crate::svg::{text_width, Font};
    let doc = parse(svg);
    let mut out = Vec::new();
    for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let font = if has_class(node, "tbf-m") {
            Font::Mono
        } else {
            Font::Sans
        };
        let size = inherited(node, "font-size")
            .map(|s| s.parse::<f64>().unwrap())
            .unwrap_or(if has_class(node, "tbf-s") { 12.0 } else { 14.0 });
        let number = |n: Node<'_, '_>, name: &str| -> Option<f64> {
            n.attribute(name).map(|v| v.parse().unwrap())
        };
        let (x, y) = (
            number(node, "x").unwrap_or(0.0),
            number(node, "y").unwrap_or(0.0),
        );
        let lines: Vec<(f64, f64, String)> = if node
            .children()
            .any(|c| c.has_tag_name("tspan") && c.attribute("x").is_some())
        {
            let mut baseline = y;
            node.children()
                .filter(|c| c.has_tag_name("tspan"))
                .map(|c| {
                    baseline += number(c, "dy").unwrap_or(0.0);
                    (number(c, "x").unwrap_or(x), baseline, text_of(c))
                })
                .collect()
        } else {
            vec![(x, y, text_of(node))]
        };
        // rotate(angle cx cy) about the text's own anchor, the only turn figures draw.
        let angle = node
            .attribute("transform")
            .and_then(|t| t.strip_prefix("rotate("))
            .and_then(|t| t.split([' ', ')']).next())
            .map_or(0.0, |a| a.parse::<f64>().unwrap());
        let (cos, sin) = (angle.to_radians().cos(), angle.to_radians().sin());
        let anchor = inherited(node, "text-anchor").unwrap_or("start");
        for (x, y, line) in lines {
            let line = line.trim_end().to_string();
            if line.is_empty() {
                continue;
            }
            let width = number(node, "textLength").unwrap_or_else(|| text_width(&line, font, size));
            let (from, to) = match anchor {
                "end" => (-width, 0.0),
                "middle" => (-width / 2.0, width / 2.0),
                _ => (0.0, width),
            };
            // The glyphs' box, from above the capitals to below the descenders, turned.
            let across: Vec<f64> = [from, to]
                .into_iter()
                .flat_map(|along| {
                    [-GLYPH_ASCENT, GLYPH_DESCENT].map(|up| x + along * cos - up * size * sin)
                })
                .collect();
            out.push(TextSpan {
                text: line,
                left: across.iter().copied().fold(f64::INFINITY, f64::min),
                right: across.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                y,
            });
        }
    }
    out
}

/// The lines of text (see [`text_spans`]) that reach past the left or right edge of the
/// drawing's viewBox.
pub fn texts_outside(svg: &str) -> Vec<TextSpan> {
    let doc = parse(svg);
    let view_box: Vec<f64> = doc
        .root_element()
        .attribute("viewBox")
        .unwrap()
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    let (left, right) = (view_box[0], view_box[0] + view_box[2]);
    text_spans(svg)
        .into_iter()
        .filter(|s| s.left < left - 0.05 || s.right > right + 0.05)
        .collect()
}
