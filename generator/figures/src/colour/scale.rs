//! Sequential scales (for magnitudes such as probabilities) and diverging scales (for
//! signed values), each a list of colour-blind-safe anchor colours interpolated in Oklab.

use super::{Colour, Oklab};
use std::borrow::Cow;

/// Maps `t` in `[0, 1]` to a colour whose lightness changes monotonically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequential {
    stops: Cow<'static, [Colour]>,
}

impl Sequential {
    /// Pale to deep blue (ColorBrewer Blues anchors): low values fade into a light page.
    pub const BLUES: Sequential = Sequential {
        stops: Cow::Borrowed(&[
            Colour::from_hex(0xf7fbff),
            Colour::from_hex(0xc6dbef),
            Colour::from_hex(0x6baed6),
            Colour::from_hex(0x2171b5),
            Colour::from_hex(0x08306b),
        ]),
    };

    /// For dark pages: from near the page's own colour up to pale blue, so low values
    /// fade into the background as [`Sequential::BLUES`] does on a light page.
    pub const BLUES_DARK: Sequential = Sequential {
        stops: Cow::Borrowed(&[
            Colour::from_hex(0x1c2330),
            Colour::from_hex(0x1d3b62),
            Colour::from_hex(0x2b66aa),
            Colour::from_hex(0x5e9fe3),
            Colour::from_hex(0xc4e0ff),
        ]),
    };

    /// A scale through `stops`, from the lowest value's colour to the highest's.
    pub const fn new(stops: &'static [Colour]) -> Sequential {
        Sequential {
            stops: Cow::Borrowed(stops),
        }
    }

    /// The colour at `t`, clamped to `[0, 1]`; NaN counts as 0.
    pub fn at(&self, t: f64) -> Colour {
        interpolate(&self.stops, t)
    }

    /// The scale for dark pages: each anchor's hue with its lightness turned over (see
    /// [`for_dark_page`]), so low values fade into a dark page as they do into a light one.
    pub fn for_dark_pages(&self) -> Sequential {
        Sequential {
            stops: self.stops.iter().map(|&c| for_dark_page(c)).collect(),
        }
    }
}

/// Maps a signed value to one of two hues, with a neutral centre at zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diverging {
    /// From the most negative colour through the neutral centre to the most positive.
    stops: Cow<'static, [Colour]>,
}

impl Diverging {
    /// Blue (negative) to red (positive) through near-white (ColorBrewer RdBu anchors).
    pub const BLUE_RED: Diverging = Diverging {
        stops: Cow::Borrowed(&[
            Colour::from_hex(0x2166ac),
            Colour::from_hex(0x67a9cf),
            Colour::from_hex(0xd1e5f0),
            Colour::from_hex(0xf7f7f7),
            Colour::from_hex(0xfddbc7),
            Colour::from_hex(0xef8a62),
            Colour::from_hex(0xb2182b),
        ]),
    };

    /// For dark pages: the same hues brightening away from a dark neutral centre.
    pub const BLUE_RED_DARK: Diverging = Diverging {
        stops: Cow::Borrowed(&[
            Colour::from_hex(0x6aaaf2),
            Colour::from_hex(0x3a6fa8),
            Colour::from_hex(0x26384f),
            Colour::from_hex(0x25262b),
            Colour::from_hex(0x4f3029),
            Colour::from_hex(0xa4503b),
            Colour::from_hex(0xf2876a),
        ]),
    };

    /// The colour for `value` on a symmetric scale from `-limit` to `limit`.
    pub fn map(&self, value: f64, limit: f64) -> Colour {
        let t = if limit > 0.0 {
            0.5 + 0.5 * value / limit
        } else {
            0.5
        };
        interpolate(&self.stops, t)
    }

    /// A scale through `stops`, from the most negative value's colour to the most positive's.
    pub const fn new(stops: &'static [Colour]) -> Diverging {
        Diverging {
            stops: Cow::Borrowed(stops),
        }
    }

    /// The scale for dark pages: a dark neutral centre, the hues brightening away from it.
    pub fn for_dark_pages(&self) -> Diverging {
        Diverging {
            stops: self.stops.iter().map(|&c| for_dark_page(c)).collect(),
        }
    }
}

/// A light page's colour as a dark page shows the same value: the same hue, a little less
/// chroma, and the lightness turned over about the middle of the two pages' backgrounds
/// (`L' = 1.24 − L`: white becomes the dark page's own lightness, deep colours bright ones),
/// which is how the hand-tuned blue scales were made.
pub fn for_dark_page(colour: Colour) -> Colour {
    let lab = Oklab::from(colour);
    Colour::from(Oklab {
        l: (1.24 - lab.l).clamp(0.0, 1.0),
        a: lab.a * 0.9,
        b: lab.b * 0.9,
    })
}

fn interpolate(stops: &[Colour], t: f64) -> Colour {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let segments = stops.len() - 1;
    let position = t * segments as f64;
    let index = (position.floor() as usize).min(segments - 1);
    let local = position - index as f64;
    let from = Oklab::from(stops[index]);
    let to = Oklab::from(stops[index + 1]);
    Colour::from(from.mix(to, local))
}

#[cfg(test)]
mod tests {
    use super::{Diverging, Sequential};
    use crate::colour::Colour;

    fn lightness_steps(colour_at: impl Fn(f64) -> Colour) -> Vec<f64> {
        (0..=100)
            .map(|i| colour_at(f64::from(i) / 100.0).lightness())
            .collect()
    }

    #[test]
    fn the_light_scale_darkens_monotonically() {
        let blues = lightness_steps(|t| Sequential::BLUES.at(t));
        assert!(blues.windows(2).all(|w| w[1] <= w[0] + 1e-3), "{blues:?}");
    }

    #[test]
    fn dark_variants_brighten_away_from_a_dark_start() {
        let blues = lightness_steps(|t| Sequential::BLUES_DARK.at(t));
        assert!(blues.windows(2).all(|w| w[1] >= w[0] - 1e-3), "{blues:?}");
        assert!(blues[0] < 0.3 && blues[100] > 0.85);
        let scale = Diverging::BLUE_RED_DARK;
        let centre = scale.map(0.0, 1.0).lightness();
        assert!(centre < 0.3);
        for v in [0.25, 0.5, 1.0] {
            assert!(scale.map(v, 1.0).lightness() > centre);
            assert!(scale.map(-v, 1.0).lightness() > centre);
        }
    }

    #[test]
    fn sequential_ends_hit_their_anchors_and_clamp() {
        assert_eq!(Sequential::BLUES.at(0.0).hex(), "#f7fbff");
        assert_eq!(Sequential::BLUES.at(1.0).hex(), "#08306b");
        assert_eq!(Sequential::BLUES.at(-3.0), Sequential::BLUES.at(0.0));
        assert_eq!(Sequential::BLUES.at(7.0), Sequential::BLUES.at(1.0));
        assert_eq!(Sequential::BLUES.at(f64::NAN), Sequential::BLUES.at(0.0));
    }

    #[test]
    fn diverging_is_neutral_at_zero_and_darkens_both_ways() {
        let scale = Diverging::BLUE_RED;
        assert_eq!(scale.map(0.0, 2.0).hex(), "#f7f7f7");
        assert_eq!(scale.map(-2.0, 2.0).hex(), "#2166ac");
        assert_eq!(scale.map(2.0, 2.0).hex(), "#b2182b");
        let centre = scale.map(0.0, 1.0).lightness();
        for v in [0.25, 0.5, 1.0] {
            assert!(scale.map(v, 1.0).lightness() < centre);
            assert!(scale.map(-v, 1.0).lightness() < centre);
        }
        let neg = scale.map(-0.5, 1.0);
        let pos = scale.map(0.5, 1.0);
        assert!(neg.b > neg.r && pos.r > pos.b, "{neg:?} {pos:?}");
    }

    #[test]
    fn output_is_deterministic_hex() {
        let first: Vec<String> = (0..20)
            .map(|i| Sequential::BLUES_DARK.at(f64::from(i) / 19.0).hex())
            .collect();
        let again: Vec<String> = (0..20)
            .map(|i| Sequential::BLUES_DARK.at(f64::from(i) / 19.0).hex())
            .collect();
        assert_eq!(first, again);
        assert!(first.iter().all(|h| h.len() == 7 && h.starts_with('#')));
    }
}
