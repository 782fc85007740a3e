//! Colour ramps as CSS classes. A figure that colours cells by value sorts values into a
//! few bins; bin `i` of a ramp is drawn with class `<prefix><i>`, whose fill and stroke are
//! defined for light pages and again for dark ones, so a heatmap follows the page's theme.
//! Text drawn on a cell takes class `<prefix><i>t`, light or dark for contrast.
//!
//! An inline `<style>` applies to the whole page, so each ramp has its own class prefix:
//! two figures on one page that use different ramps cannot restyle each other, and two that
//! use the same ramp write identical rules.

use crate::colour::{Colour, Diverging, Sequential};

/// One colour per bin, for light and for dark pages, under a class prefix of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ramp {
    prefix: &'static str,
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
}

/// Text on a cell darker than this is drawn white.
const DARK_CELL: f64 = 0.62;
/// Text on a cell lighter than this is drawn near-black.
const LIGHT_CELL: f64 = 0.7;

impl Ramp {
    /// Values from 0 to 1 (probabilities, attention weights) in ten bins of blue.
    pub fn unit() -> Ramp {
        let at = |i: usize| (i as f64 + 0.5) / 10.0;
        Ramp {
            prefix: "tbf-u",
            light: (0..10).map(|i| Sequential::BLUES.at(at(i))).collect(),
            dark: (0..10).map(|i| Sequential::BLUES_DARK.at(at(i))).collect(),
        }
    }

    /// Values from −1 to 1 in eleven bins, blue below zero, red above, neutral at zero.
    pub fn signed() -> Ramp {
        let at = |i: usize| (i as f64 - 5.0) / 5.0;
        Ramp {
            prefix: "tbf-v",
            light: (0..11)
                .map(|i| Diverging::BLUE_RED.map(at(i), 1.0))
                .collect(),
            dark: (0..11)
                .map(|i| Diverging::BLUE_RED_DARK.map(at(i), 1.0))
                .collect(),
        }
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
            light.push_str(&format!(".tbf .{class}{{fill:{0};stroke:{0}}}", l.hex()));
            dark.push_str(&format!(".tbf .{class}{{fill:{0};stroke:{0}}}", d.hex()));
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
            let rule = format!(".tbf .{}{{fill:#", ramp.class(i));
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
