//! Whether a trace still matches what the site asks for, and if not, why.

use crate::meta::TraceOptions;
use crate::model_name::{model_label, same_model_id};
use crate::prompt::PromptSpec;
use crate::trace::Trace;

/// What a site expects of a prompt's trace.
#[derive(Clone, Copy, Debug)]
pub struct Expected<'a> {
    /// The model id the site names.
    pub model_id: &'a str,
    pub prompt: &'a PromptSpec,
    pub options: &'a TraceOptions,
    /// The sha256 of the weights; Some only when the weights are on this machine (elsewhere
    /// the sha256 recorded in the trace is trusted).
    pub weights_sha256: Option<&'a str>,
}

impl Trace {
    /// Why this trace no longer matches `expected`, every reason joined by "; ";
    /// None when it is up to date.
    pub fn stale_reason(&self, expected: &Expected) -> Option<String> {
        let meta = &self.meta;
        let mut reasons = Vec::new();
        // The weights decide where they are on this machine, however the folder's path is
        // written or wherever it moved; elsewhere the folder's (or hub id's) last name.
        match expected.weights_sha256 {
            Some(sha) if !sha.eq_ignore_ascii_case(&meta.model.weights_sha256) => {
                reasons.push(if same_model_id(&meta.model.id, expected.model_id) {
                    format!(
                        "the weights of model {} changed (sha256 {} in the trace, {} on this \
                         machine)",
                        model_label(expected.model_id),
                        short_hash(&meta.model.weights_sha256),
                        short_hash(sha)
                    )
                } else {
                    format!(
                        "made by model {}, but this prompt uses {} (other weights)",
                        model_label(&meta.model.id),
                        model_label(expected.model_id)
                    )
                })
            }
            None if !same_model_id(&meta.model.id, expected.model_id) => reasons.push(format!(
                "made by model {}, but this prompt uses {}",
                model_label(&meta.model.id),
                model_label(expected.model_id)
            )),
            _ => {}
        }
        if meta.prompt.text != expected.prompt.text {
            reasons.push(format!(
                "the prompt text changed (was {:?}, now {:?})",
                clip(&meta.prompt.text),
                clip(&expected.prompt.text)
            ));
        }
        let (was, now) = (&meta.prompt.options, &expected.prompt.options);
        if was != now {
            reasons.push(format!(
                "the prompt options changed (was {}, now {})",
                was.describe(),
                now.describe()
            ));
        }
        if meta.options.precision != expected.options.precision {
            reasons.push(format!(
                "made with precision {}, the site asks {}",
                meta.options.precision, expected.options.precision
            ));
        }
        if meta.options.top_k != expected.options.top_k {
            reasons.push(format!(
                "made with top_k {}, the site asks {}",
                meta.options.top_k, expected.options.top_k
            ));
        }
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }
}

/// The first 12 hex digits, enough to tell two hashes apart in a message.
fn short_hash(sha: &str) -> String {
    let short: String = sha.chars().take(12).collect();
    if short.len() < sha.len() {
        format!("{short}…")
    } else {
        short
    }
}

/// A prompt text cut to 40 characters for a message.
fn clip(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        return text.to_string();
    }
    let head: String = text.chars().take(MAX).collect();
    format!("{head}…")
}
