//! Colour ramps as CSS classes. A figure that colours cells by value sorts values into a
//! few bins; bin `i` of a ramp is drawn with class `<prefix><i>`, whose fill and stroke are
//! defined for light pages and again for dark ones, so a heatmap follows the page's theme.
//! Text drawn on a cell takes class `<prefix><i>t`, light or dark for contrast.
//!
//! An inline `<style>` applies to the whole page, so each ramp has its own class prefix:
//! two figures on one page that use different ramps cannot restyle each other, and two that
//! use the same ramp write identical rules.
//!
//! Each bin's colour is a CSS custom property of the page with the palette's colour as its
//! fallback (`fill:var(--figure-seq-3,#a3c9e5)`): a page may set `--figure-seq-0` … `-9` and
//! `--figure-div-0` … `-10` (light and dark), and a figure on its own (a downloaded SVG)
//! shows the palette it was drawn with.

use crate::colour::{Colour, DivergingPalette, SequentialPalette};

/// One colour per bin, for light and for dark pages, under a class prefix of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ramp {
    prefix: &'static str,
    /// The page's custom property for bin `i` is `--{property}-{i}`.
    property: &'static str,
    light: Vec<Colour>,
    dark: Vec<Colour>,
}

/// Style rules made only from colours and fixed class names, safe to embed as is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Css(String);

impl Css {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The rules of several sheets, one after the other.
    #[cfg_attr(not(feature = "own-kinds"), allow(dead_code))]
    pub fn joined(sheets: impl IntoIterator<Item = Css>) -> Css {
        Css(sheets.into_iter().map(|c| c.0).collect())
    }
}

/// Text on a cell darker than this is drawn white.
const DARK_CELL: f64 = 0.62;
/// Text on a cell lighter than this is drawn near-black.
const LIGHT_CELL: f64 = 0.7;

impl Ramp {
    /// Values from 0 to 1 (probabilities, attention weights) in ten bins of blue.
    pub fn unit() -> Ramp {
        Ramp::unit_in(SequentialPalette::default())
    }

    /// Values from −1 to 1 in eleven bins, blue below zero, red above, neutral at zero.
    pub fn signed() -> Ramp {
        Ramp::signed_in(DivergingPalette::default())
    }

    /// [`Ramp::unit`] in `palette`.
    pub fn unit_in(palette: SequentialPalette) -> Ramp {
        let at = |i: usize| (i as f64 + 0.5) / 10.0;
        let (light, dark) = (palette.light(), palette.dark());
        Ramp {
            prefix: "tbf-u",
            property: "figure-seq",
            light: (0..10).map(|i| light.at(at(i))).collect(),
            dark: (0..10).map(|i| dark.at(at(i))).collect(),
        }
    }

    /// [`Ramp::signed`] in `palette`.
    pub fn signed_in(palette: DivergingPalette) -> Ramp {
        let at = |i: usize| (i as f64 - 5.0) / 5.0;
        let (light, dark) = (palette.light(), palette.dark());
        Ramp {
            prefix: "tbf-v",
            property: "figure-div",
            light: (0..11).map(|i| light.map(at(i), 1.0)).collect(),
            dark: (0..11).map(|i| dark.map(at(i), 1.0)).collect(),
        }
    }

    /// The page's custom properties for every bin, light and dark: `(light, dark)` lists of
    /// `--figure-seq-0:#rrggbb;` declarations.
    pub fn page_properties(&self) -> (String, String) {
        let declare = |colours: &[Colour]| -> String {
            colours
                .iter()
                .enumerate()
                .map(|(i, c)| format!("--{}-{i}:{};", self.property, c.hex()))
                .collect()
        };
        (declare(&self.light), declare(&self.dark))
    }

    pub fn bins(&self) -> usize {
        self.light.len()
    }

    /// The class that colours bin `bin`.
    pub fn class(&self, bin: usize) -> String {
        format!("{}{bin}", self.prefix)
    }

    /// The class for text drawn on a cell of bin `bin`.
    pub fn text_class(&self, bin: usize) -> String {
        format!("{}{bin}t", self.prefix)
    }

    /// The bin of `t` in `[0, 1]` (clamped) for [`Ramp::unit`].
    pub fn bin_of_unit(&self, t: f64) -> usize {
        let bins = self.bins();
        ((t.clamp(0.0, 1.0) * bins as f64) as usize).min(bins - 1)
    }

    /// The bin of `v` in `[-1, 1]` (clamped) for [`Ramp::signed`]: the nearest bin centre.
    pub fn bin_of_signed(&self, v: f64) -> usize {
        let half = (self.bins() / 2) as f64;
        (v.clamp(-1.0, 1.0) * half + half).round() as usize
    }

    /// The fill, stroke and text rules of every bin, for both themes.
    pub fn css(&self) -> Css {
        let mut light = String::new();
        let mut dark = String::new();
        for (i, (l, d)) in self.light.iter().zip(&self.dark).enumerate() {
            let (class, text) = (self.class(i), self.text_class(i));
            let property = format!("--{}-{i}", self.property);
            let rule = |c: &Colour| {
                format!(
                    ".tbf .{class}{{fill:var({property},{0});stroke:var({property},{0})}}",
                    c.hex()
                )
            };
            light.push_str(&rule(l));
            dark.push_str(&rule(d));
            let light_text = (l.lightness() < DARK_CELL).then_some("#fff");
            let dark_text = (d.lightness() > LIGHT_CELL).then_some("#15161a");
            if let Some(fill) = light_text {
                light.push_str(&format!(".tbf .{text}{{fill:{fill}}}"));
            }
            match (dark_text, light_text) {
                (Some(fill), _) => dark.push_str(&format!(".tbf .{text}{{fill:{fill}}}")),
                (None, Some(_)) => dark.push_str(&format!(".tbf .{text}{{fill:currentColor}}")),
                (None, None) => {}
            }
        }
        Css(format!(
            "{light}@media (prefers-color-scheme:dark){{{dark}}}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::Ramp;

    #[test]
    fn unit_values_fall_into_tenths() {
        let ramp = Ramp::unit();
        assert_eq!(ramp.bin_of_unit(0.0), 0);
        assert_eq!(ramp.bin_of_unit(0.099), 0);
        assert_eq!(ramp.bin_of_unit(0.1), 1);
        assert_eq!(ramp.bin_of_unit(0.95), 9);
        assert_eq!(ramp.bin_of_unit(1.0), 9);
        assert_eq!(ramp.bin_of_unit(7.0), 9);
    }

    #[test]
    fn signed_values_centre_on_the_neutral_bin() {
        let ramp = Ramp::signed();
        assert_eq!(ramp.bins(), 11);
        assert_eq!(ramp.bin_of_signed(0.0), 5);
        assert_eq!(ramp.bin_of_signed(-1.0), 0);
        assert_eq!(ramp.bin_of_signed(1.0), 10);
        assert_eq!(ramp.bin_of_signed(0.04), 5);
        assert_eq!(ramp.bin_of_signed(-0.5), 3);
    }

    #[test]
    fn ramps_use_their_own_classes() {
        let (unit, signed) = (Ramp::unit(), Ramp::signed());
        assert_ne!(unit.class(0), signed.class(0));
        let unit_css = unit.css();
        assert!(!unit_css.as_str().contains(&signed.class(0)));
    }

    #[test]
    fn css_defines_every_bin_for_both_themes_with_readable_text() {
        let ramp = Ramp::unit();
        let css = ramp.css();
        let css = css.as_str();
        let (light, dark) = css
            .split_once("@media (prefers-color-scheme:dark){")
            .unwrap();
        for i in 0..10 {
            let rule = format!(".tbf .{}{{fill:var(--figure-seq-{i},#", ramp.class(i));
            assert_eq!(light.matches(&rule).count(), 1);
            assert_eq!(dark.matches(&rule).count(), 1);
        }
        // Deep blue cells take white text on light pages; pale cells keep the page's text.
        assert!(light.contains(".tbf .tbf-u9t{fill:#fff}"));
        assert!(!light.contains(".tbf-u0t"));
        // On dark pages the bright end takes dark text, and the white text is undone.
        assert!(dark.contains(".tbf .tbf-u9t{fill:#15161a}"));
        assert!(!css.contains(['<', '>', '&']));
    }
}
