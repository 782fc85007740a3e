//! Colours and colour scales: an sRGB colour with deterministic hex output, Oklab
//! conversions, and sequential and diverging scales interpolated in Oklab so equal steps
//! in value look like equal steps in colour.

mod oklab;
mod palettes;
mod scale;

pub use oklab::Oklab;
pub use palettes::{DivergingPalette, SequentialPalette};
pub use scale::{for_dark_page, Diverging, Sequential};

/// An 8-bit sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Colour {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Colour {
    /// A colour from its `0xRRGGBB` value, for palettes written in code.
    pub const fn from_hex(rgb: u32) -> Self {
        Colour {
            r: (rgb >> 16) as u8,
            g: (rgb >> 8) as u8,
            b: rgb as u8,
        }
    }

    /// Lower-case `#rrggbb`, the form written into SVG.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }

    /// `#rrggbb` or `#rgb` (either case), as written in CSS and tracebook.toml.
    pub fn parse_hex(text: &str) -> Option<Colour> {
        let digits = text.strip_prefix('#')?;
        if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let value = u32::from_str_radix(digits, 16).ok()?;
        match digits.len() {
            6 => Some(Colour::from_hex(value)),
            3 => {
                let [r, g, b] = [value >> 8, (value >> 4) & 0xf, value & 0xf].map(|v| v * 17);
                Some(Colour::from_hex((r << 16) | (g << 8) | b))
            }
            _ => None,
        }
    }

    /// Perceived lightness (Oklab L, 0 = black, 1 = white).
    pub fn lightness(self) -> f64 {
        Oklab::from(self).l
    }
}

#[cfg(test)]
mod tests {
    use super::Colour;

    #[test]
    fn hex_round_trips_and_is_lower_case() {
        let colour = Colour::from_hex(0x2F6BD8);
        assert_eq!(
            colour,
            Colour {
                r: 0x2f,
                g: 0x6b,
                b: 0xd8
            }
        );
        assert_eq!(colour.hex(), "#2f6bd8");
        assert_eq!(Colour::from_hex(0x000000).hex(), "#000000");
    }

    #[test]
    fn lightness_orders_black_grey_white() {
        let black = Colour::from_hex(0x000000).lightness();
        let grey = Colour::from_hex(0x777777).lightness();
        let white = Colour::from_hex(0xffffff).lightness();
        assert!(black.abs() < 1e-6 && (white - 1.0).abs() < 1e-3);
        assert!(black < grey && grey < white);
    }
}
