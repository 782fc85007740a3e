//! Björn Ottosson's Oklab colour space: lightness `l` and opponent axes `a`, `b`, in which
//! straight-line interpolation gives perceptually even gradients.

use super::Colour;

/// A colour in Oklab coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Oklab {
    pub l: f64,
    pub a: f64,
    pub b: f64,
}

impl Oklab {
    /// The point a fraction `t` of the way from `self` to `other`.
    pub fn mix(self, other: Oklab, t: f64) -> Oklab {
        Oklab {
            l: self.l + (other.l - self.l) * t,
            a: self.a + (other.a - self.a) * t,
            b: self.b + (other.b - self.b) * t,
        }
    }
}

impl From<Colour> for Oklab {
    fn from(colour: Colour) -> Self {
        let [r, g, b] = [colour.r, colour.g, colour.b].map(|c| to_linear(f64::from(c) / 255.0));
        let l = (0.412_221_470_8 * r + 0.536_332_536_3 * g + 0.051_445_992_9 * b).cbrt();
        let m = (0.211_903_498_2 * r + 0.680_699_545_1 * g + 0.107_396_956_6 * b).cbrt();
        let s = (0.088_302_461_9 * r + 0.281_718_837_6 * g + 0.629_978_700_5 * b).cbrt();
        Oklab {
            l: 0.210_454_255_3 * l + 0.793_617_785 * m - 0.004_072_046_8 * s,
            a: 1.977_998_495_1 * l - 2.428_592_205 * m + 0.450_593_709_9 * s,
            b: 0.025_904_037_1 * l + 0.782_771_766_2 * m - 0.808_675_766 * s,
        }
    }
}

impl From<Oklab> for Colour {
    /// Out-of-gamut points are clipped per channel.
    fn from(lab: Oklab) -> Self {
        let l = (lab.l + 0.396_337_777_4 * lab.a + 0.215_803_757_3 * lab.b).powi(3);
        let m = (lab.l - 0.105_561_345_8 * lab.a - 0.063_854_172_8 * lab.b).powi(3);
        let s = (lab.l - 0.089_484_177_5 * lab.a - 1.291_485_548 * lab.b).powi(3);
        let r = 4.076_741_662_1 * l - 3.307_711_591_3 * m + 0.230_969_929_2 * s;
        let g = -1.268_438_004_6 * l + 2.609_757_401_1 * m - 0.341_319_396_5 * s;
        let b = -0.004_196_086_3 * l - 0.703_418_614_7 * m + 1.707_614_701 * s;
        let [r, g, b] = [r, g, b].map(|c| (from_linear(c).clamp(0.0, 1.0) * 255.0).round() as u8);
        Colour { r, g, b }
    }
}

fn to_linear(c: f64) -> f64 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn from_linear(c: f64) -> f64 {
    if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

#[cfg(test)]
mod tests {
    use super::Oklab;
    use crate::colour::Colour;

    #[test]
    fn round_trips_every_grey_and_some_hues() {
        let greys = (0..=255u32).map(|v| Colour::from_hex(v * 0x010101));
        let hues = [0xff0000, 0x00ff00, 0x0000ff, 0x2f6bd8, 0xe69f00].map(Colour::from_hex);
        for colour in greys.chain(hues) {
            assert_eq!(Colour::from(Oklab::from(colour)), colour);
        }
    }

    #[test]
    fn white_is_neutral_with_unit_lightness() {
        let white = Oklab::from(Colour::from_hex(0xffffff));
        assert!((white.l - 1.0).abs() < 1e-4);
        assert!(white.a.abs() < 1e-4 && white.b.abs() < 1e-4);
    }

    #[test]
    fn mix_ends_at_its_endpoints() {
        let a = Oklab::from(Colour::from_hex(0x0072b2));
        let b = Oklab::from(Colour::from_hex(0xd55e00));
        assert_eq!(Colour::from(a.mix(b, 0.0)), Colour::from_hex(0x0072b2));
        assert_eq!(Colour::from(a.mix(b, 1.0)), Colour::from_hex(0xd55e00));
    }
}
