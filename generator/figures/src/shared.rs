//! Shared colour scales: figures on one page that name the same `scale` colour their values
//! over one domain, so a colour means the same number in each. A figure reports the domain
//! of its own values ([`Domain`]); the site unions them per name and renders each figure
//! with the union ([`SharedScale`]), whose legend then says the scale is shared.

/// The values a figure's colours span.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Domain {
    /// Fractions from 0 to 1 (attention weights, probabilities): the same for every figure.
    Unit,
    /// Signed values on a diverging scale centred on zero, saturating at ±`limit`.
    Signed { limit: f64 },
    /// Positive lengths on a log scale from `lo` to `hi`.
    Log { lo: f64, hi: f64 },
}

impl Domain {
    /// The domain that covers both, or `None` when they colour different things (a
    /// diverging scale cannot share with a 0-to-1 one).
    pub fn union(self, other: Domain) -> Option<Domain> {
        match (self, other) {
            (Domain::Unit, Domain::Unit) => Some(Domain::Unit),
            (Domain::Signed { limit: a }, Domain::Signed { limit: b }) => {
                Some(Domain::Signed { limit: a.max(b) })
            }
            (Domain::Log { lo: a, hi: b }, Domain::Log { lo: c, hi: d }) => Some(Domain::Log {
                lo: a.min(c),
                hi: b.max(d),
            }),
            _ => None,
        }
    }

    /// What this domain colours, for an error that mixes two: "values from 0 to 1".
    pub fn what(self) -> &'static str {
        match self {
            Domain::Unit => "values from 0 to 1 (weights, probabilities)",
            Domain::Signed { .. } => "signed values on a diverging scale around 0",
            Domain::Log { .. } => "lengths on a log scale",
        }
    }
}

/// A scale several figures of a page share: its name, the union of their domains, and how
/// many figures use it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SharedScale {
    /// The `scale` name the figures give.
    pub name: String,
    /// The union of every sharing figure's [`Domain`].
    pub domain: Domain,
    /// How many figures share it, this one included.
    pub figures: usize,
}

impl SharedScale {
    /// The legend's line: "colour scale shared with 2 other figures (scale "attn")".
    pub(crate) fn note(&self) -> String {
        let others = self.figures.saturating_sub(1);
        let noun = if others == 1 { "figure" } else { "figures" };
        format!(
            "colour scale shared with {others} other {noun} (scale \"{}\")",
            self.name
        )
    }
}

/// The limit of a diverging scale: the shared one when there is one, else `own`.
pub(crate) fn signed_limit(shared: Option<&SharedScale>, own: f64) -> f64 {
    match shared.map(|s| s.domain) {
        Some(Domain::Signed { limit }) => limit,
        _ => own,
    }
}

/// The range of a log scale: the shared one when there is one, else `own`.
pub(crate) fn log_range(shared: Option<&SharedScale>, own: (f64, f64)) -> (f64, f64) {
    match shared.map(|s| s.domain) {
        Some(Domain::Log { lo, hi }) => (lo, hi),
        _ => own,
    }
}

/// The legend's line for `shared`, if any.
pub(crate) fn note(shared: Option<&SharedScale>) -> Option<String> {
    shared.map(SharedScale::note)
}

#[cfg(test)]
mod tests {
    use super::{log_range, signed_limit, Domain, SharedScale};

    #[test]
    fn unions_widen_to_cover_both_and_refuse_mixed_kinds() {
        let a = Domain::Signed { limit: 2.0 };
        let b = Domain::Signed { limit: 3.5 };
        assert_eq!(a.union(b), Some(Domain::Signed { limit: 3.5 }));
        let log = Domain::Log { lo: 1.0, hi: 5.0 }.union(Domain::Log { lo: 0.5, hi: 4.0 });
        assert_eq!(log, Some(Domain::Log { lo: 0.5, hi: 5.0 }));
        assert_eq!(Domain::Unit.union(Domain::Unit), Some(Domain::Unit));
        assert_eq!(Domain::Unit.union(a), None);
    }

    #[test]
    fn the_shared_domain_overrides_the_figures_own() {
        let shared = SharedScale {
            name: "attn".to_string(),
            domain: Domain::Signed { limit: 4.0 },
            figures: 3,
        };
        assert_eq!(signed_limit(Some(&shared), 1.0), 4.0);
        assert_eq!(signed_limit(None, 1.0), 1.0);
        assert_eq!(log_range(Some(&shared), (1.0, 2.0)), (1.0, 2.0));
        assert_eq!(
            shared.note(),
            "colour scale shared with 2 other figures (scale \"attn\")"
        );
        let two = SharedScale {
            figures: 2,
            ..shared
        };
        assert_eq!(
            two.note(),
            "colour scale shared with 1 other figure (scale \"attn\")"
        );
    }
}

/// A figure block of a page as the page hands it to its live session (`tracebook-live`):
/// written by the site into the page for each figure a reader may redraw for their own
/// prompt, read by the session that redraws it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PageFigure {
    /// The `<figure>` element's id on the page.
    pub id: String,
    pub kind: String,
    /// The block's TOML body, as written (without `id`).
    pub options: String,
    /// The one prompt the figure is drawn from.
    pub prompt: String,
    /// The shared scale the build drew it on, if it names one: a redraw for the reader's
    /// prompt unions this domain with the redrawn figures' own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<SharedScale>,
    /// The rules by which it picks a position in a reader's text, as the caption states them
    /// (`token: pos(" it")`, `token: -4`: negative positions count from the end).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub picks: Vec<String>,
    /// For a kind of the author's own (`figures/NAME.svg`), its template and declaration, so
    /// that the live session draws it as the build did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<OwnSource>,
}

/// An author's figure kind as the site read it: `figures/NAME.svg` and, if there is one,
/// `figures/NAME.toml`, with the paths messages name.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OwnSource {
    pub path: String,
    pub template: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<(String, String)>,
}
