//! The palettes a site may choose by name (`[theme]` in tracebook.toml). Every one is
//! colour-blind-safe: the sequential ones are single hues whose lightness changes
//! monotonically, the diverging ones ColorBrewer's schemes marked safe for colour-blind
//! readers, whose two arms also differ in lightness from a light centre. Anchors are
//! ColorBrewer's (Cynthia Brewer, Apache-2.0-style licence); dark variants are derived by
//! [`super::scale::for_dark_page`] except for the default blues, which are hand-tuned.

use super::{Colour, Diverging, Sequential};

const fn hexes<const N: usize>(values: [u32; N]) -> [Colour; N] {
    let mut out = [Colour { r: 0, g: 0, b: 0 }; N];
    let mut i = 0;
    while i < N {
        out[i] = Colour::from_hex(values[i]);
        i += 1;
    }
    out
}

/// A sequential palette (magnitudes: probabilities, attention weights, norms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SequentialPalette {
    #[default]
    Blues,
    Greens,
    Purples,
    Oranges,
    Greys,
}

/// A diverging palette (signed values), named negative-first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DivergingPalette {
    #[default]
    BlueRed,
    PurpleOrange,
    BrownTeal,
    PinkGreen,
}

const GREENS: [Colour; 5] = hexes([0xf7fcf5, 0xc7e9c0, 0x74c476, 0x238b45, 0x00441b]);
const PURPLES: [Colour; 5] = hexes([0xfcfbfd, 0xdadaeb, 0x9e9ac8, 0x6a51a3, 0x3f007d]);
const ORANGES: [Colour; 5] = hexes([0xfff5eb, 0xfdd0a2, 0xfd8d3c, 0xd94801, 0x7f2704]);
const GREYS: [Colour; 5] = hexes([0xffffff, 0xd9d9d9, 0x969696, 0x525252, 0x000000]);
const PURPLE_ORANGE: [Colour; 7] = hexes([
    0x542788, 0x998ec3, 0xd8daeb, 0xf7f7f7, 0xfee0b6, 0xf1a340, 0xb35806,
]);
const BROWN_TEAL: [Colour; 7] = hexes([
    0x8c510a, 0xd8b365, 0xf6e8c3, 0xf5f5f5, 0xc7eae5, 0x5ab4ac, 0x01665e,
]);
const PINK_GREEN: [Colour; 7] = hexes([
    0xc51b7d, 0xe9a3c9, 0xfde0ef, 0xf7f7f7, 0xe6f5d0, 0xa1d76a, 0x4d9221,
]);

impl SequentialPalette {
    pub const ALL: [SequentialPalette; 5] = [
        SequentialPalette::Blues,
        SequentialPalette::Greens,
        SequentialPalette::Purples,
        SequentialPalette::Oranges,
        SequentialPalette::Greys,
    ];

    /// Its name in tracebook.toml.
    pub fn name(self) -> &'static str {
        match self {
            SequentialPalette::Blues => "blues",
            SequentialPalette::Greens => "greens",
            SequentialPalette::Purples => "purples",
            SequentialPalette::Oranges => "oranges",
            SequentialPalette::Greys => "greys",
        }
    }

    pub fn from_name(name: &str) -> Option<SequentialPalette> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// For light pages: from near white (low) to a deep hue (high).
    pub fn light(self) -> Sequential {
        match self {
            SequentialPalette::Blues => Sequential::BLUES,
            SequentialPalette::Greens => Sequential::new(&GREENS),
            SequentialPalette::Purples => Sequential::new(&PURPLES),
            SequentialPalette::Oranges => Sequential::new(&ORANGES),
            SequentialPalette::Greys => Sequential::new(&GREYS),
        }
    }

    /// For dark pages: from near the page's colour (low) to a bright hue (high).
    pub fn dark(self) -> Sequential {
        match self {
            SequentialPalette::Blues => Sequential::BLUES_DARK,
            other => other.light().for_dark_pages(),
        }
    }
}

impl DivergingPalette {
    pub const ALL: [DivergingPalette; 4] = [
        DivergingPalette::BlueRed,
        DivergingPalette::PurpleOrange,
        DivergingPalette::BrownTeal,
        DivergingPalette::PinkGreen,
    ];

    /// Its name in tracebook.toml: the negative arm's hue first.
    pub fn name(self) -> &'static str {
        match self {
            DivergingPalette::BlueRed => "blue-red",
            DivergingPalette::PurpleOrange => "purple-orange",
            DivergingPalette::BrownTeal => "brown-teal",
            DivergingPalette::PinkGreen => "pink-green",
        }
    }

    pub fn from_name(name: &str) -> Option<DivergingPalette> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// For light pages: deep hues at the ends, near white at zero.
    pub fn light(self) -> Diverging {
        match self {
            DivergingPalette::BlueRed => Diverging::BLUE_RED,
            DivergingPalette::PurpleOrange => Diverging::new(&PURPLE_ORANGE),
            DivergingPalette::BrownTeal => Diverging::new(&BROWN_TEAL),
            DivergingPalette::PinkGreen => Diverging::new(&PINK_GREEN),
        }
    }

    /// For dark pages: the page's colour at zero, bright hues at the ends.
    pub fn dark(self) -> Diverging {
        match self {
            DivergingPalette::BlueRed => Diverging::BLUE_RED_DARK,
            other => other.light().for_dark_pages(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lightness(colour_at: impl Fn(f64) -> Colour) -> Vec<f64> {
        (0..=50)
            .map(|i| colour_at(f64::from(i) / 50.0).lightness())
            .collect()
    }

    /// Lightness that changes monotonically is what keeps a scale readable for every kind of
    /// colour blindness (and in greyscale print): order never depends on telling hues apart.
    #[test]
    fn every_sequential_palette_changes_lightness_monotonically_on_both_pages() {
        for palette in SequentialPalette::ALL {
            let light = lightness(|t| palette.light().at(t));
            assert!(
                light.windows(2).all(|w| w[1] <= w[0] + 1e-3),
                "{palette:?} light"
            );
            assert!(
                light[0] > 0.95,
                "{palette:?} starts near a light page's white"
            );
            let dark = lightness(|t| palette.dark().at(t));
            assert!(
                dark.windows(2).all(|w| w[1] >= w[0] - 1e-3),
                "{palette:?} dark"
            );
            assert!(
                dark[0] < 0.32,
                "{palette:?} starts near a dark page: {}",
                dark[0]
            );
            assert!(dark[50] > 0.8, "{palette:?} ends bright on a dark page");
        }
    }

    #[test]
    fn every_diverging_palette_is_neutral_at_zero_and_grows_both_ways() {
        for palette in DivergingPalette::ALL {
            for (scale, light_page) in [(palette.light(), true), (palette.dark(), false)] {
                let centre = scale.map(0.0, 1.0);
                let centre_l = centre.lightness();
                let mut previous = (centre_l, centre_l);
                for v in [0.25, 0.5, 0.75, 1.0] {
                    let (neg, pos) = (
                        scale.map(-v, 1.0).lightness(),
                        scale.map(v, 1.0).lightness(),
                    );
                    if light_page {
                        assert!(neg < previous.0 && pos < previous.1, "{palette:?} at {v}");
                    } else {
                        assert!(
                            neg > previous.0 && pos > previous.1,
                            "{palette:?} dark at {v}"
                        );
                    }
                    previous = (neg, pos);
                }
                // The two arms are different hues: their ends are far apart in colour.
                let (a, b) = (scale.map(-1.0, 1.0), scale.map(1.0, 1.0));
                let distance = (i32::from(a.r) - i32::from(b.r)).abs()
                    + (i32::from(a.g) - i32::from(b.g)).abs()
                    + (i32::from(a.b) - i32::from(b.b)).abs();
                assert!(distance > 150, "{palette:?}: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for palette in SequentialPalette::ALL {
            assert_eq!(SequentialPalette::from_name(palette.name()), Some(palette));
        }
        for palette in DivergingPalette::ALL {
            assert_eq!(DivergingPalette::from_name(palette.name()), Some(palette));
        }
        assert_eq!(SequentialPalette::from_name("viridis"), None);
    }
}
