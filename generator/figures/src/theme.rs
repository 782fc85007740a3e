//! A site's theme for figures: its accent and its palettes (`[theme]` in tracebook.toml).
//!
//! Figures are drawn in the default theme; [`Theme::restyle`] rewrites a drawn figure's style
//! sheet into the site's, so the figure on the page, its downloadable SVG and its link-preview
//! image all show the same colours. The style sheet is generated, so the rewrite swaps exact
//! strings: the default accent's declarations and each default ramp's rules for the theme's.
//! [`Theme::page_css`] gives the same colours as the page's custom properties, which figures
//! drawn in the browser (live mode) pick up.

use crate::colour::{for_dark_page, Colour, DivergingPalette, Oklab, SequentialPalette};
use crate::svg::{Ramp, ACCENT_DARK, ACCENT_LIGHT};

/// The accent on light and on dark pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accent {
    pub light: Colour,
    pub dark: Colour,
}

impl Accent {
    /// `light`, with `dark` or, without it, a lighter colour of the same hue for dark pages.
    pub fn new(light: Colour, dark: Option<Colour>) -> Accent {
        let dark = dark.unwrap_or_else(|| {
            let lab = Oklab::from(light);
            if lab.l >= 0.72 {
                light
            } else {
                let turned = Oklab::from(for_dark_page(light));
                Colour::from(Oklab {
                    l: turned.l.clamp(0.72, 0.82),
                    ..turned
                })
            }
        });
        Accent { light, dark }
    }
}

/// What a site changes of the figures' colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Theme {
    /// None: the default blue.
    pub accent: Option<Accent>,
    pub sequential: SequentialPalette,
    pub diverging: DivergingPalette,
}

impl Theme {
    pub fn is_default(&self) -> bool {
        *self == Theme::default()
    }

    /// `markup` (one figure, or several panels) with every figure style sheet in this theme.
    pub fn restyle(&self, markup: &str) -> String {
        let mut out = markup.to_string();
        for (from, to) in self.swaps() {
            if from != to {
                out = out.replace(&from, &to);
            }
        }
        out
    }

    /// (default, themed) pairs of the generated style text.
    fn swaps(&self) -> Vec<(String, String)> {
        let accent = |value: &str| format!("--tbf-accent:var(--figure-accent,{value})");
        let mut swaps = vec![
            (
                Ramp::unit().css().as_str().to_string(),
                Ramp::unit_in(self.sequential).css().as_str().to_string(),
            ),
            (
                Ramp::signed().css().as_str().to_string(),
                Ramp::signed_in(self.diverging).css().as_str().to_string(),
            ),
        ];
        if let Some(a) = self.accent {
            swaps.push((accent(ACCENT_LIGHT), accent(&a.light.hex())));
            swaps.push((accent(ACCENT_DARK), accent(&a.dark.hex())));
        }
        swaps
    }

    /// The page's custom properties for this theme, light and dark: the accent (`--accent`
    /// for links and controls, `--figure-accent` for figures, `--token-bg` a tint of it) and
    /// every palette bin
    /// (`--figure-seq-N`, `--figure-div-N`). Empty for the default theme.
    pub fn page_css(&self) -> String {
        if self.is_default() {
            return String::new();
        }
        let (mut light, mut dark) = (String::new(), String::new());
        if let Some(a) = self.accent {
            // Token chips and the current page's sidebar entry: a tint of the accent on the
            // built-in theme's backgrounds (`--bg`), as its own blue tint is of its blue.
            let tint = |accent: Colour, page: u32, t: f64| {
                let page = Oklab::from(Colour::from_hex(page));
                Colour::from(page.mix(Oklab::from(accent), t)).hex()
            };
            light.push_str(&format!(
                "--accent:{0};--figure-accent:{0};--token-bg:{1};",
                a.light.hex(),
                tint(a.light, 0xfdfcfa, 0.12)
            ));
            dark.push_str(&format!(
                "--accent:{0};--figure-accent:{0};--token-bg:{1};",
                a.dark.hex(),
                tint(a.dark, 0x16171a, 0.25)
            ));
        }
        for ramp in [
            Ramp::unit_in(self.sequential),
            Ramp::signed_in(self.diverging),
        ] {
            let (l, d) = ramp.page_properties();
            light.push_str(&l);
            dark.push_str(&d);
        }
        format!(":root{{{light}}}@media (prefers-color-scheme:dark){{:root{{{dark}}}}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::{Canvas, Element};

    fn figure(css: crate::svg::Css) -> String {
        let canvas = Canvas {
            kind: "demo",
            width: 100.0,
            height: 50.0,
            title: "T".into(),
            desc: "D".into(),
            css,
        };
        crate::svg::render_document(&canvas, vec![Element::new("rect").class("tbf-u3")])
    }

    #[test]
    fn the_default_theme_changes_nothing() {
        let svg = figure(Ramp::unit().css());
        assert_eq!(Theme::default().restyle(&svg), svg);
        assert_eq!(Theme::default().page_css(), "");
    }

    #[test]
    fn a_theme_recolours_the_accent_and_the_ramps_it_names() {
        let theme = Theme {
            accent: Some(Accent::new(Colour::from_hex(0xb5472d), None)),
            sequential: SequentialPalette::Greens,
            diverging: DivergingPalette::PurpleOrange,
        };
        let unit = figure(Ramp::unit().css());
        let themed = theme.restyle(&unit);
        assert_eq!(
            themed,
            figure(Ramp::unit_in(SequentialPalette::Greens).css())
                .replace(
                    "--tbf-accent:var(--figure-accent,#2f6bd8)",
                    "--tbf-accent:var(--figure-accent,#b5472d)"
                )
                .replace(
                    &format!("--tbf-accent:var(--figure-accent,{ACCENT_DARK})"),
                    &format!(
                        "--tbf-accent:var(--figure-accent,{})",
                        theme.accent.unwrap().dark.hex()
                    )
                )
        );
        assert!(!themed.contains(ACCENT_LIGHT) && !themed.contains(ACCENT_DARK));
        // ColorBrewer Greens, not Blues: bin 9 is a deep green.
        let green = Ramp::unit_in(SequentialPalette::Greens).css();
        assert!(themed.contains(green.as_str()));
        let signed = theme.restyle(&figure(Ramp::signed().css()));
        assert!(signed.contains(
            Ramp::signed_in(DivergingPalette::PurpleOrange)
                .css()
                .as_str()
        ));
        // A figure's text, ids and drawing are untouched.
        assert_eq!(
            themed.len() - themed.find("</style>").unwrap(),
            unit.len() - unit.find("</style>").unwrap()
        );
    }

    #[test]
    fn a_dark_accent_is_derived_light_enough_for_a_dark_page() {
        let accent = Accent::new(Colour::from_hex(0xb5472d), None);
        assert!(accent.dark.lightness() >= 0.71, "{}", accent.dark.hex());
        assert!(
            accent.dark.r > accent.dark.b,
            "keeps its hue: {}",
            accent.dark.hex()
        );
        let given = Accent::new(Colour::from_hex(0xb5472d), Some(Colour::from_hex(0xffaa88)));
        assert_eq!(given.dark.hex(), "#ffaa88");
    }

    #[test]
    fn page_css_declares_every_bin_for_both_schemes() {
        let theme = Theme {
            accent: None,
            sequential: SequentialPalette::Oranges,
            diverging: DivergingPalette::default(),
        };
        let css = theme.page_css();
        let (light, dark) = css
            .split_once("@media (prefers-color-scheme:dark)")
            .unwrap();
        for i in 0..10 {
            assert!(light.contains(&format!("--figure-seq-{i}:#")));
            assert!(dark.contains(&format!("--figure-seq-{i}:#")));
        }
        for i in 0..11 {
            assert!(light.contains(&format!("--figure-div-{i}:#")));
        }
        assert!(!css.contains("--accent"), "no accent was asked for");
        let accented = Theme {
            accent: Some(Accent::new(Colour::from_hex(0x0f7b6c), None)),
            ..Theme::default()
        }
        .page_css();
        let tint = accented.split("--token-bg:").nth(1).unwrap();
        let tint = Colour::parse_hex(&tint[..7]).unwrap();
        assert!(
            tint.lightness() > 0.9 && tint.g > tint.r,
            "a pale green: {}",
            tint.hex()
        );
        assert!(!css.contains(['<', '>', '&']));
    }
}
