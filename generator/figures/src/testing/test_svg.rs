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
