//! The session as JavaScript sees it (wasm-bindgen): `new Live(...)`, `trace`, `figure`.
//!
//! Settings cross as JSON text and figure options as the block's TOML, exactly as the site
//! writes them, so this layer only converts and forwards; errors become exceptions whose
//! message is the session's (with its hint).

use crate::error::LiveError;
use crate::session::Session;
use tracebook_figures::PageFigure;
use tracebook_model::ModelBytes;
use tracebook_trace::{PromptOptions, PromptSpec, TraceOptions, TrainingSummary};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// Runs when the module is instantiated: a panic (a bug: every expected failure is an
/// error) is written to the console with its message and place, instead of only
/// "unreachable executed".
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!(
            "tracebook-live panicked (please report it): {info}"
        ))
    }));
}

/// A model loaded in the page and the reader's prompts traced with it.
#[wasm_bindgen]
pub struct Live {
    session: Session,
}

#[wasm_bindgen]
impl Live {
    /// Load the site's browser model: its id (as traces name it), the text of its
    /// config.json, the bytes of its model.safetensors and, if it has one, the text of its
    /// tokenizer.json (else GPT-2's built-in tokenizer). Traces use the default `[trace]`
    /// options until `set_trace_options`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        model_id: &str,
        config_json: &str,
        weights: &[u8],
        tokenizer_json: Option<String>,
    ) -> Result<Live, JsError> {
        let bytes = ModelBytes {
            id: model_id,
            config_json,
            weights,
            tokenizer_json: tokenizer_json.as_deref(),
            training: None,
        };
        let session = Session::from_bytes(&bytes, TraceOptions::default()).map_err(js)?;
        Ok(Live { session })
    }

    /// The site's `[trace]` options as JSON, e.g. `{"precision": "f32", "top_k": 20}`.
    pub fn set_trace_options(&mut self, options_json: &str) -> Result<(), JsError> {
        let options: TraceOptions = parse_json(options_json, "the trace options")?;
        self.session.set_options(options);
        Ok(())
    }

    /// The training summary the site's traces of this model carry (`meta.training`, JSON),
    /// for figures of the training run.
    pub fn set_training(&mut self, training_json: &str) -> Result<(), JsError> {
        let training: TrainingSummary = parse_json(training_json, "the training summary")?;
        self.session.set_training(training);
        Ok(())
    }

    /// Trace `text` as the prompt called `name`, with the prompt's generation options as
    /// JSON (`{"generate": 4, "temperature": 0.8, "seed": 1}`; empty for none).
    pub fn trace(&mut self, name: &str, text: &str, options_json: &str) -> Result<(), JsError> {
        let options: PromptOptions = if options_json.trim().is_empty() {
            PromptOptions::default()
        } else {
            parse_json(options_json, "the prompt's options")?
        };
        let prompt = PromptSpec {
            text: text.to_string(),
            options,
            model: None,
            model_name: None,
        };
        self.session.trace(name, &prompt).map_err(|e| match e {
            // Said to the reader who typed the text.
            LiveError::Prompt(_) => js(e),
            // The page's own settings or the model: the page shows the reader words of its
            // own and the author's message goes to the console.
            other => JsError::new(&format!("{AUTHOR}{other}")),
        })?;
        Ok(())
    }

    /// The SVG of figure `kind` drawn with `options_toml` (the figure block's body).
    pub fn figure(&self, kind: &str, options_toml: &str) -> Result<String, JsError> {
        Ok(self.session.figure(kind, options_toml).map_err(js)?.svg)
    }

    /// The figure with what the page shows around it, as JSON: `svg`, `alt`, `caption`,
    /// `models`, and `live` (the JSON text the figure's controls redraw from, or null).
    pub fn figure_json(&self, kind: &str, options_toml: &str) -> Result<String, JsError> {
        let figure = self.session.figure(kind, options_toml).map_err(js)?;
        let value = serde_json::json!({
            "svg": figure.svg,
            "alt": figure.alt,
            "caption": figure.caption,
            "models": figure.models,
            "live": live_json(&figure),
        });
        Ok(value.to_string())
    }

    /// Redraw a page's figures for the prompts traced in this session: `figures_json` is the
    /// page's list of figures as the site wrote it (`PageFigure`s). Returns a JSON array with,
    /// per figure, `{"id", "svg", "alt", "caption", "models", "live", "set_aside"}` (the
    /// author's options the reader's text could not take) or `{"id", "error"}` (the author's
    /// message: the page shows the reader words of its own).
    pub fn draw_page(&self, figures_json: &str) -> Result<String, JsError> {
        let figures: Vec<PageFigure> = parse_json(figures_json, "the page's figures")?;
        let drawn = self.session.draw_page(&figures);
        let out: Vec<serde_json::Value> = figures
            .iter()
            .zip(drawn)
            .map(|(page, drawn)| match drawn {
                Ok(crate::Redrawn { figure, set_aside }) => serde_json::json!({
                    "id": page.id,
                    "svg": figure.svg,
                    "alt": figure.alt,
                    "caption": figure.caption,
                    "models": figure.models,
                    "live": live_json(&figure),
                    "set_aside": set_aside,
                }),
                Err(error) => serde_json::json!({ "id": page.id, "error": error.to_string() }),
            })
            .collect();
        Ok(serde_json::Value::Array(out).to_string())
    }

    /// The page's claims about prompt `name` (a JSON array of their expressions) asked of the
    /// reader's trace of it: a JSON array with, per claim, `{"live": "holds" | "fails" |
    /// "author", "detail"}` (see `Session::check_claims`).
    pub fn check_claims(&self, name: &str, sources_json: &str) -> Result<String, JsError> {
        let sources: Vec<String> = parse_json(sources_json, "the page's claims")?;
        let checks = self.session.check_claims(name, &sources);
        Ok(serde_json::to_string(&checks).expect("strings serialize"))
    }

    /// One traced forward pass over token `ids`, nothing kept: for timing (see
    /// `Session::forward`). Returns how many tensors were recorded.
    pub fn forward(&self, ids: Vec<u32>) -> Result<u32, JsError> {
        let recorded = self.session.forward(&ids).map_err(js)?;
        Ok(recorded as u32)
    }

    /// The token ids of `text` (special tokens read as such if `special`).
    pub fn tokenize(&self, text: &str, special: bool) -> Result<Vec<u32>, JsError> {
        let tokens = self.session.tokenize(text, special).map_err(js)?;
        Ok(tokens.iter().map(|t| t.id).collect())
    }

    /// The trace of prompt `name` as a trace file holds it (for checks against native traces).
    pub fn trace_json(&self, name: &str) -> Option<String> {
        self.session.trace_of(name).map(|t| t.to_json())
    }

    /// The model's context length: a prompt and its generated tokens fit in it.
    pub fn context(&self) -> usize {
        self.session.context()
    }
}

/// Starts a message meant for the site's author, not the reader (tracebook-live.js).
const AUTHOR: &str = "tracebook-live, for the site's author: ";

fn parse_json<T: serde::de::DeserializeOwned>(
    text: &str,
    what: &'static str,
) -> Result<T, JsError> {
    serde_json::from_str(text).map_err(|e| {
        js(LiveError::Options {
            what,
            format: "JSON",
            message: e.to_string(),
        })
    })
}

fn js(error: LiveError) -> JsError {
    JsError::new(&error.to_string())
}

/// The figure's live JSON with the panels a page would load from a file (`deferred`) in it
/// as `panels`: in the browser the session has them at hand.
fn live_json(figure: &tracebook_figures::Figure) -> Option<String> {
    match &figure.deferred {
        Some(panels) => figure.live_with("panels", panels),
        None => figure.live.clone(),
    }
}
