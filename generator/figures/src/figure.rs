//! [`Figure`]: a rendered figure and what a page needs to present it.

use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::svg::{render_document, Canvas, Element};

/// A rendered figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// A complete, self-contained `<svg>` element, to inline in a page or save as a file.
    pub svg: String,
    /// The block's `caption` option, as written.
    pub caption: Option<String>,
    /// What the figure shows, in words (also the SVG's `<desc>`).
    pub alt: String,
    /// The models the figure's traces came from, as readers are shown them (the site's
    /// name for each, else its folder's name or hub id), e.g. ["GPT-2 small"]; two for a
    /// `compare` of one prompt on two models.
    pub models: Vec<String>,
    /// How the drawing relates to that model, for the caption.
    pub source: Source,
    /// For figures with controls: a JSON object of the numbers the page's script redraws
    /// the figure from (see `src/live.rs`); `None` for static figures.
    pub live: Option<String>,
    /// Panels for the figure's pickers that are not in `svg` (too many for a page): a JSON
    /// object of each panel's key to its hidden `<g data-tb-panel>` markup. A page writes them
    /// to a file named in the live JSON's `src`; the browser module puts them in `panels`.
    pub deferred: Option<String>,
    /// What a reader can check among the numbers the figure prints (its hidden panels'
    /// included); not drawn (see `relations.rs`).
    pub relations: Vec<Relation>,
}

/// Where a figure's numbers come from, so its caption can say so truthfully.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Tensors recorded by running the model on the prompt (almost every kind).
    Traced,
    /// Only the model's sizes, from the trace's config (`architecture`).
    Config,
    /// Computed by the figure itself, for the model's width (`sinusoidal`).
    Computed,
    /// The training log the trace carries (`training`).
    TrainingLog,
}

impl Source {
    /// The caption's sentence for `models` (already escaped as HTML), e.g.
    /// "Traced with <code>openai-community/gpt2</code>."
    pub fn sentence(self, models: &[String]) -> String {
        let model = models
            .iter()
            .map(|m| format!("{m}</code>"))
            .collect::<Vec<_>>()
            .join(" and <code>");
        let model = model.strip_suffix("</code>").unwrap_or(&model);
        match self {
            Source::Traced => format!("Traced with <code>{model}</code>."),
            Source::Config => format!("Sizes from the config of <code>{model}</code>."),
            Source::Computed => {
                format!("Computed, not traced, at the width of <code>{model}</code>.")
            }
            Source::TrainingLog => format!("From the training log of <code>{model}</code>."),
        }
    }
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
            models: vec![prompt.trace.meta.model.shown()],
            source: Source::Traced,
            live: None,
            deferred: None,
            relations: Vec::new(),
        }
    }

    /// Says where the numbers come from when it is not a traced run.
    pub(crate) fn with_source(mut self, source: Source) -> Figure {
        self.source = source;
        self
    }

    /// Credits the model of `prompt` too, when it is another one.
    pub(crate) fn also_from(mut self, prompt: &Prompt<'_>) -> Figure {
        let shown = prompt.trace.meta.model.shown();
        if !self.models.contains(&shown) {
            self.models.push(shown);
        }
        self
    }

    /// Attaches the JSON object of the figure's controls.
    pub(crate) fn with_deferred(mut self, deferred: Option<String>) -> Figure {
        self.deferred = deferred;
        self
    }

    /// The live JSON with `key` set to `value` (raw JSON) in front of its other keys.
    pub fn live_with(&self, key: &str, value: &str) -> Option<String> {
        let live = self.live.as_deref()?;
        let rest = live.strip_prefix('{')?;
        Some(format!("{{\"{key}\":{value},{rest}"))
    }

    /// Declares the relations among the numbers the figure prints.
    pub(crate) fn with_relations(mut self, relations: Vec<Relation>) -> Figure {
        self.relations.extend(relations);
        self
    }

    pub(crate) fn with_live(mut self, json: String) -> Figure {
        self.live = Some(json);
        self
    }

    /// [`Figure::with_live`] where there is a picker's JSON.
    pub(crate) fn with_live_if(mut self, json: Option<String>) -> Figure {
        self.live = json.or(self.live);
        self
    }
}
