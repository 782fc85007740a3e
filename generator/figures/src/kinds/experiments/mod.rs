//! Experiments: what changes when the run is changed: parts of the model taken out
//! (`ablation`), activations of a clean run copied into a corrupted one (`patching`), and
//! two prompts side by side (`compare`); and what each part wrote into a logit
//! (`logit-attribution`), how much each prompt token mattered (`saliency`), and which tokens
//! carried information to the prediction (`flow`).

pub(super) mod ablation;
pub(super) mod compare;
pub(super) mod flow;
pub(super) mod logit_attribution;
pub(super) mod patching;
pub(super) mod saliency;

// The grid `ablation` and `patching` share, and the measures `compare` puts side by side.
mod compare_views;
mod effect_grid;
// The `target` option they share.
mod targets;

/// The kinds that draw an experiment's targets, each with what recorded them.
const DRAWN_BY: [(&str, (&str, &str)); 3] = [
    (ablation::KIND, targets::ABLATION),
    (logit_attribution::KIND, targets::ATTRIBUTION),
    (saliency::KIND, targets::ATTRIBUTION),
];

/// The prompt option whose targets the figure `kind` draws (`ablate`, `attribute`), if any.
pub fn option_of(kind: &str) -> Option<&'static str> {
    DRAWN_BY
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, (_, option))| *option)
}
