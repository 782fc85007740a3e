//! The picture a link preview shows (OpenGraph and Twitter cards): the page's first figure,
//! drawn to a 1200 × 630 PNG at build time with resvg, on white, with the system's fonts (where
//! a machine has none, the figure's text is left out, never the figure).

use std::sync::{Arc, OnceLock};

/// The preview's size, the one link previews crop to.
pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 630;
const MARGIN: f32 = 40.0;

/// Draws previews; the system fonts are loaded once, on first use, and shared by every page.
#[derive(Default)]
pub struct Painter {
    options: OnceLock<resvg::usvg::Options<'static>>,
}

impl Painter {
    fn options(&self) -> &resvg::usvg::Options<'static> {
        self.options.get_or_init(|| {
            let mut options = resvg::usvg::Options::default();
            let fonts = Arc::make_mut(&mut options.fontdb);
            fonts.load_system_fonts();
            // The generic families (what `sans-serif` means) default to Windows and macOS
            // names; point them at a family this machine has.
            let families: std::collections::BTreeSet<String> = fonts
                .faces()
                .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
                .collect();
            let pick =
                |choices: &[&'static str]| choices.iter().copied().find(|f| families.contains(*f));
            let sans = pick(&["DejaVu Sans", "Liberation Sans", "Noto Sans", "Arial"]);
            let mono = pick(&["DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono"]);
            let serif = pick(&["DejaVu Serif", "Liberation Serif", "Noto Serif"]);
            if let Some(family) = sans {
                fonts.set_sans_serif_family(family);
            }
            if let Some(family) = mono {
                fonts.set_monospace_family(family);
            }
            if let Some(family) = serif {
                fonts.set_serif_family(family);
            }
            options
        })
    }

    /// The PNG of a standalone figure SVG, or None if it cannot be drawn.
    pub fn png(&self, svg: &str) -> Option<Vec<u8>> {
        let tree = resvg::usvg::Tree::from_str(&for_raster(svg), self.options()).ok()?;
        let size = tree.size();
        let mut pixmap = resvg::tiny_skia::Pixmap::new(WIDTH, HEIGHT)?;
        pixmap.fill(resvg::tiny_skia::Color::WHITE);
        let room_w = WIDTH as f32 - 2.0 * MARGIN;
        let room_h = HEIGHT as f32 - 2.0 * MARGIN;
        let scale = (room_w / size.width()).min(room_h / size.height());
        let x = (WIDTH as f32 - size.width() * scale) / 2.0;
        let y = (HEIGHT as f32 - size.height() * scale) / 2.0;
        let transform = resvg::tiny_skia::Transform::from_row(scale, 0.0, 0.0, scale, x, y);
        resvg::render(&tree, transform, &mut pixmap.as_mut());
        pixmap.encode_png().ok()
    }
}

/// The figure as a rasterizer without a page sees it: a size from its viewBox (not "100%"),
/// the light colours: the dark-mode rules removed, and CSS custom properties (which resvg
/// does not read) resolved to the values the figure carries: `var(--x,fallback)` to its
/// fallback (no page sets `--x` here), `var(--x)` to the figure's own `--x:value`.
fn for_raster(svg: &str) -> String {
    let mut out = without_media_rules(&svg.replacen(" width=\"100%\"", "", 1));
    while let Some(start) = out.find("var(--") {
        let Some(close) = out[start..].find(')').map(|i| start + i) else {
            break;
        };
        let inside = &out[start + 4..close];
        let value = match inside.split_once(',') {
            Some((_, fallback)) => fallback.trim().to_string(),
            None => declared(&out, inside).unwrap_or_else(|| "currentColor".into()),
        };
        out.replace_range(start..=close, &value);
    }
    out
}

/// The value declared for the custom property `name` (`--tbf-accent:#2f6bd8`), resolving a
/// fallback in it.
fn declared(css: &str, name: &str) -> Option<String> {
    let at = css.find(&format!("{name}:"))? + name.len() + 1;
    let value = &css[at..at + css[at..].find([';', '}'])?];
    let value = match value.strip_prefix("var(") {
        Some(inner) => inner.split_once(',')?.1.trim_end_matches(')').trim(),
        None => value.trim(),
    };
    Some(value.to_string())
}

/// `css` without its `@media` blocks.
fn without_media_rules(css: &str) -> String {
    let mut out = css.to_string();
    while let Some(start) = out.find("@media") {
        let Some(open) = out[start..].find('{').map(|i| start + i) else {
            break;
        };
        let mut depth = 0;
        let mut end = None;
        for (i, c) in out[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        out.replace_range(start..end, "");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_becomes_a_png_of_the_preview_size() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 200 100\" width=\"100%\">\
                   <style>svg{--tbf-accent:#2f6bd8}@media (prefers-color-scheme:dark){svg{--tbf-accent:#fff}}\
                   .bar{fill:var(--tbf-accent)}</style><rect class=\"bar\" x=\"0\" y=\"0\" width=\"100\" height=\"100\"/></svg>";
        assert!(!for_raster(svg).contains("@media"));
        let png = Painter::default().png(svg).expect("drawn");
        assert_eq!(&png[1..4], b"PNG");
        let image = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!((image.width(), image.height()), (WIDTH, HEIGHT));
        // The bar is the accent colour, not black (the custom property was resolved).
        let centre = image.pixel(WIDTH / 2 - 100, HEIGHT / 2).unwrap();
        assert_eq!(
            (centre.red(), centre.green(), centre.blue()),
            (0x2f, 0x6b, 0xd8)
        );
        assert!(Painter::default().png("not svg").is_none());
    }

    #[test]
    fn custom_properties_resolve_to_the_colours_the_figure_carries() {
        let svg = "<svg viewBox=\"0 0 10 10\"><style>svg.tbf{--tbf-accent:var(--figure-accent,#b5472d)}\
                   @media (prefers-color-scheme:dark){svg.tbf{--tbf-accent:var(--figure-accent,#ffaa88)}}\
                   .tbf .bar{fill:var(--tbf-accent)}.tbf .tbf-u3{fill:var(--figure-seq-3,#74c476);stroke:var(--figure-seq-3,#74c476)}</style></svg>";
        let raster = for_raster(svg);
        assert!(!raster.contains("var("), "{raster}");
        assert!(raster.contains(".tbf .bar{fill:#b5472d}"), "{raster}");
        assert!(raster.contains("fill:#74c476;stroke:#74c476"), "{raster}");
        assert!(
            !raster.contains("#ffaa88"),
            "the dark colours are gone: {raster}"
        );
    }
}
