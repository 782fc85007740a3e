//! The traces a figure draws from: the site's, the reader's in live mode, the tests'
//! synthetic ones, each behind [`Traces`].

use crate::live::LiveCache;

/// The traces a figure can draw from, by prompt name.
pub trait Traces {
    /// The trace of the prompt called `prompt`, if there is one.
    fn get(&self, prompt: &str) -> Option<&tracebook_trace::Trace>;
    /// Every prompt name with a trace, for did-you-mean hints.
    fn names(&self) -> Vec<String>;
    /// Where figures that embed numbers for the page's controls keep what they computed,
    /// for the other figures of the same build; `None` computes every time.
    fn live_cache(&self) -> Option<&LiveCache> {
        None
    }
}
