//! The style sheet embedded in every figure. Text and rules are drawn in `currentColor`
//! (with opacity for muted tones) so a figure follows the page's text colour in light and
//! dark themes; hues are fills over the background at partial opacity, which reads on
//! either. The accent is the page's `--figure-accent` custom property where the page sets
//! one, else the colour the figure was drawn with ([`ACCENT_LIGHT`], [`ACCENT_DARK`] unless a
//! theme restyled it).
//!
//! An inline `<style>` applies to the whole page, so every rule is scoped under `.tbf`
//! and every class is prefixed `tbf-`.

/// Category hues (Okabe and Ito's colour-blind-safe set), cycled by `tbf-c0`..`tbf-c5`.
pub const CATEGORY_COUNT: usize = 6;

/// The figures' accent on light pages, unless the page or a theme sets another.
pub const ACCENT_LIGHT: &str = "#2f6bd8";
/// The figures' accent on dark pages.
pub const ACCENT_DARK: &str = "#6f9ff0";

pub const STYLE: &str = concat!(
    "svg.tbf{height:auto;font:14px system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,sans-serif;",
    "--tbf-accent:var(--figure-accent,#2f6bd8)}",
    "@media (prefers-color-scheme:dark){svg.tbf{--tbf-accent:var(--figure-accent,#6f9ff0)}}",
    ".tbf text{fill:currentColor}",
    ".tbf .tbf-m{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,\"DejaVu Sans Mono\",\"Liberation Mono\",monospace}",
    ".tbf .tbf-s{font-size:12px}",
    ".tbf .tbf-b{font-weight:600;fill-opacity:1}",
    ".tbf .tbf-dim{fill-opacity:.62}",
    ".tbf .tbf-ws{fill-opacity:.38}",
    ".tbf .tbf-track{fill:currentColor;fill-opacity:.06}",
    ".tbf .tbf-bar{fill:var(--tbf-accent);fill-opacity:1}",
    ".tbf .tbf-bar2{fill:var(--tbf-accent);fill-opacity:.5}",
    ".tbf .tbf-tok{fill-opacity:.15;stroke-opacity:.6}",
    ".tbf .tbf-ax{fill:none;stroke:currentColor;stroke-opacity:.45}",
    ".tbf .tbf-o{fill:none;stroke:currentColor;stroke-opacity:.3}",
    ".tbf .tbf-grid{fill:none;stroke:currentColor;stroke-opacity:.12}",
    ".tbf .tbf-box{fill:currentColor;fill-opacity:.05;stroke:currentColor;stroke-opacity:.4}",
    ".tbf .tbf-line{fill:none;stroke:var(--tbf-accent);stroke-width:2}",
    ".tbf .tbf-mute{fill:currentColor;fill-opacity:.2}",
    ".tbf .tbf-head{fill:currentColor;fill-opacity:.45}",
    ".tbf .tbf-hist{fill:none;stroke:currentColor;stroke-opacity:.3}",
    ".tbf .tbf-dot{fill:var(--tbf-accent);stroke:none}",
    ".tbf .tbf-acc{fill:var(--tbf-accent)}",
    ".tbf .tbf-c0{fill:#0072b2;stroke:#0072b2}",
    ".tbf .tbf-c1{fill:#e69f00;stroke:#e69f00}",
    ".tbf .tbf-c2{fill:#009e73;stroke:#009e73}",
    ".tbf .tbf-c3{fill:#cc79a7;stroke:#cc79a7}",
    ".tbf .tbf-c4{fill:#56b4e9;stroke:#56b4e9}",
    ".tbf .tbf-c5{fill:#d55e00;stroke:#d55e00}",
);

#[cfg(test)]
mod tests {
    use super::{ACCENT_DARK, ACCENT_LIGHT, CATEGORY_COUNT, STYLE};

    #[test]
    fn the_accent_constants_are_the_style_sheets() {
        assert!(STYLE.contains(&format!(
            "--tbf-accent:var(--figure-accent,{ACCENT_LIGHT})}}"
        )));
        assert!(STYLE.contains(&format!(
            "--tbf-accent:var(--figure-accent,{ACCENT_DARK})}}}}"
        )));
    }

    #[test]
    fn every_rule_is_scoped_to_figures() {
        let rules = STYLE
            .split('}')
            .map(str::trim)
            .filter(|rule| !rule.is_empty() && !rule.starts_with("@media"));
        for rule in rules {
            assert!(
                rule.starts_with(".tbf ") || rule.starts_with("svg.tbf{"),
                "unscoped rule: {rule}"
            );
        }
    }

    #[test]
    fn text_is_never_hard_coded_black() {
        assert!(STYLE.contains(".tbf text{fill:currentColor}"));
        for black in ["#000", "black", "#111"] {
            assert!(!STYLE.contains(black), "{black} in the style sheet");
        }
    }

    #[test]
    fn every_category_hue_is_defined() {
        for i in 0..CATEGORY_COUNT {
            assert!(STYLE.contains(&format!(".tbf .tbf-c{i}{{fill:#")));
        }
        assert!(!STYLE.contains(&format!("tbf-c{CATEGORY_COUNT}")));
    }
}
