//! [`Figure`]: a rendered figure and what a page needs to present it.

use crate::prompt::Prompt;
use crate::svg::{render_document, Canvas, Element};

/// A rendered figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    /// A complete, self-contained `<svg>` element, to inline in a page or save as a file.
    pub svg: String,
    /// The block's `caption` option, as written.
    pub caption: Option<String>,
    /// What the figure shows, in words (also the SVG's `<desc>`).
    pub alt: String,
    /// The model the figure's trace came from, e.g. "openai-community/gpt2".
    pub model_id: String,
    /// For figures with controls: a JSON object of the numbers the page's script redraws
    /// the figure from (see `src/live.rs`); `None` for static figures.
    pub live: Option<String>,
}

impl Figure {
    /// Assembles a figure from its drawing.
    pub(crate) fn new(
        canvas: Canvas,
        body: Vec<Element>,
        caption: Option<String>,
        prompt: &Prompt<'_>,
    ) -> Figure {
        Figure {
            svg: render_document(&canvas, body),
            caption,
            alt: canvas.desc,
            model_id: prompt.trace.meta.model.id.clone(),
            live: None,
        }
    }

    /// Attaches the JSON object of the figure's controls.
    pub(crate) fn with_live(mut self, json: String) -> Figure {
        self.live = Some(json);
        self
    }
}
