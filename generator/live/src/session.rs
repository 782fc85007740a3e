//! A live session: one model in memory (decoder-only or encoder-decoder), the prompts traced
//! so far, figures drawn from them.

use crate::error::LiveError;
use std::collections::BTreeMap;
use tracebook_figures::own::OwnKind;
use tracebook_figures::{Figure, FigureError, LiveCache, PageFigure, SharedScale, Traces};
use tracebook_model::{AnyModel, ModelBytes, ModelError, TensorRecorder, TraceRequest};
use tracebook_trace::{PromptSpec, Token, Trace, TraceOptions, TrainingSummary};

/// The site's model and the traces of the reader's prompts, by the prompt name they stand in for.
pub struct Session {
    model: AnyModel,
    options: TraceOptions,
    traces: BTreeMap<String, Trace>,
    /// Numbers figures with controls share (next-token, temperature, sampling on one prompt).
    cache: LiveCache,
}

impl Session {
    /// A session over `model`, tracing as the site's `[trace]` options say (precision, top_k),
    /// so a live trace holds the values a trace file of the site would.
    pub fn new(model: AnyModel, options: TraceOptions) -> Session {
        Session {
            model,
            options,
            traces: BTreeMap::new(),
            cache: LiveCache::default(),
        }
    }

    /// A session over a model whose files are in memory (see [`AnyModel::from_bytes`]).
    pub fn from_bytes(bytes: &ModelBytes, options: TraceOptions) -> Result<Session, LiveError> {
        Ok(Session::new(AnyModel::from_bytes(bytes)?, options))
    }

    pub fn model(&self) -> &AnyModel {
        &self.model
    }

    /// Gives the model the training summary the site's traces of it carry.
    pub fn set_training(&mut self, training: TrainingSummary) {
        self.model.set_training(training);
    }

    /// The most positions a prompt and what is written after it may take.
    pub fn context(&self) -> usize {
        self.model.context()
    }

    pub fn options(&self) -> &TraceOptions {
        &self.options
    }

    /// Trace the site's options from now on (traces made before keep theirs).
    pub fn set_options(&mut self, options: TraceOptions) {
        self.options = options;
    }

    /// Trace `prompt` under the name `name` (the site's prompt it stands in for, so the page's
    /// figure blocks draw it unchanged), replacing an earlier trace of that name. An empty
    /// or blank prompt is refused here, one too long for the model by the tracer; both in
    /// words for the reader who typed it.
    pub fn trace(&mut self, name: &str, prompt: &PromptSpec) -> Result<&Trace, LiveError> {
        // Messages for the reader, who typed the text: not the author's wording about
        // prompts, names and the `generate` option.
        if prompt.text.trim().is_empty() {
            return Err(LiveError::Prompt(
                "Type a few words in the box first, for example \"The robots will bring\".".into(),
            ));
        }
        prompt
            .options
            .validate()
            .map_err(|message| LiveError::Options {
                what: "the prompt's options",
                format: "generation settings",
                message,
            })?;
        let request = TraceRequest {
            name,
            prompt,
            options: self.options.clone(),
        };
        let traced = self.model.trace(&request).map_err(|e| match e {
            ModelError::TooLong {
                tokens,
                generate,
                limit,
                ..
            } => LiveError::Prompt(too_long(tokens, generate, limit)),
            other => other.into(),
        })?;
        self.traces.insert(name.to_string(), traced);
        Ok(&self.traces[name])
    }

    /// Each claim of `sources` (expressions as the page's claims write them, all about the
    /// prompt called `name`) asked of the trace of `name` made in this session: it holds, it
    /// does not, or it is about the author's prompt only (it names a literal position or a
    /// token the author expected, or the reader's text lacks a token it finds by text). With
    /// no trace of `name` yet, every claim is the author's.
    pub fn check_claims(&self, name: &str, sources: &[String]) -> Vec<crate::ClaimCheck> {
        let Some(trace) = self.traces.get(name) else {
            return (sources.iter())
                .map(|_| crate::ClaimCheck {
                    live: "author",
                    detail: format!("no text of yours was traced as `{name}`"),
                    why: Some("other"),
                    token: None,
                })
                .collect();
        };
        (sources.iter())
            .map(|source| crate::claims::check(trace, name, source))
            .collect()
    }

    /// The trace of the prompt called `name`, if it was traced in this session.
    pub fn trace_of(&self, name: &str) -> Option<&Trace> {
        self.traces.get(name)
    }

    /// Draw a figure block of the page: `kind` and its TOML body, as `tracebook build` draws
    /// it (the block's `id`, which only names it for cross-references, is set aside as the
    /// site sets it aside).
    pub fn figure(&self, kind: &str, options_toml: &str) -> Result<Figure, LiveError> {
        let mut options = table(options_toml)?;
        // A role that names no position of this trace gives way to the kind's default.
        let _ = self.picks_by_role(&mut options);
        Ok(tracebook_figures::render(kind, &options, self)?)
    }

    /// Options written as roles (`token = 'pos(" it")'`) resolved on the trace of the
    /// figure's prompt in this session: the reader's. A role the reader's text cannot answer
    /// (no " it" in it) gives way to the figure's default (the last token), as a `word` does;
    /// returns the options set aside so.
    fn picks_by_role(&self, options: &mut toml::Table) -> Vec<String> {
        let mut set_aside = Vec::new();
        let Some(trace) = (options.get("prompt"))
            .and_then(|p| p.as_str())
            .and_then(|p| self.traces.get(p).map(|t| (p.to_string(), t)))
        else {
            return set_aside;
        };
        let (prompt, trace) = trace;
        while let Err((key, _)) = tracebook_claims::roles::resolve(options, trace, &prompt) {
            options.remove(key);
            set_aside.push(key.to_string());
        }
        set_aside
    }

    /// A page figure's options as the session draws them: its TOML, its roles resolved on
    /// the reader's trace, and the options set aside for it.
    fn prepared(&self, figure: &PageFigure) -> Result<(toml::Table, Vec<String>), LiveError> {
        let mut options = table(&figure.options)?;
        let set_aside = self.picks_by_role(&mut options);
        Ok((options, set_aside))
    }

    /// Redraw `figures` of a page (each drawn from one prompt traced in this session), as
    /// `tracebook build` drew them: a figure on a shared scale is drawn on the union of the
    /// build's domain for that scale and the domains of the figures redrawn here, so that a
    /// redraw of the author's own prompt gives the build's figure byte for byte. One result
    /// per figure, in order.
    ///
    /// A figure adapts to the reader's text as it would to any prompt: an option of the
    /// author's that the reader's text cannot take (a `word` it lacks, `values` in the cells of
    /// a sentence too long for them, a `token` past its end) is set aside and the figure drawn
    /// with the kind's default, and [`Redrawn::set_aside`] says which.
    pub fn draw_page(&self, figures: &[PageFigure]) -> Vec<Result<Redrawn, LiveError>> {
        let prepared: Vec<_> = figures.iter().map(|f| self.prepared(f)).collect();
        let mut unions: BTreeMap<&str, SharedScale> = BTreeMap::new();
        for (figure, prepared) in figures.iter().zip(&prepared) {
            let Some(scale) = &figure.scale else { continue };
            let union = unions
                .entry(scale.name.as_str())
                .or_insert_with(|| scale.clone());
            let own = (prepared.as_ref().ok())
                .and_then(|(options, _)| {
                    tracebook_figures::domain(&figure.kind, options, self).ok()
                })
                .flatten();
            if let Some(domain) = own.and_then(|d| union.domain.union(d)) {
                union.domain = domain;
            }
        }
        figures
            .iter()
            .zip(prepared)
            .map(|(figure, prepared)| {
                let (mut options, mut set_aside) = prepared?;
                let shared = figure.scale.as_ref().map(|s| &unions[s.name.as_str()]);
                // An author's kind, read as the site read it (its errors are the build's, so
                // one here is a page that changed under the reader).
                let own = (figure.own.as_ref())
                    .map(|source| OwnKind::from_source(&figure.kind, source))
                    .transpose()
                    .map_err(|e| LiveError::Figure(FigureError::new(e.message)))?;
                let draw = |options: &toml::Table| match (&own, shared) {
                    (Some(own), _) => own.render(options, self),
                    (None, Some(shared)) => {
                        tracebook_figures::render_shared(&figure.kind, options, self, shared)
                    }
                    (None, None) => tracebook_figures::render(&figure.kind, options, self),
                };
                loop {
                    match draw(&options) {
                        Err(e) if adaptable(&e, &options) => {
                            let key = e.key.unwrap_or_default();
                            options.remove(&key);
                            set_aside.push(key);
                        }
                        drawn => {
                            return Ok(Redrawn {
                                figure: drawn?,
                                set_aside,
                            })
                        }
                    }
                }
            })
            .collect()
    }

    /// One traced forward pass over `ids` (every tensor recorded, then dropped), for timing it
    /// against the native one (`tracebook dev bench-forward`); returns how many tensors were
    /// recorded.
    pub fn forward(&self, ids: &[u32]) -> Result<usize, LiveError> {
        let AnyModel::Decoder(model) = &self.model else {
            return Err(LiveError::Prompt(
                "the forward pass is timed on decoder-only models".into(),
            ));
        };
        // Checked here: candle panics on no tokens, and a panic ends a WebAssembly module.
        let config = &model.config;
        if ids.is_empty() || ids.len() > config.n_positions() {
            return Err(LiveError::Prompt(format!(
                "a forward pass takes 1 to {} tokens, not {}",
                config.n_positions(),
                ids.len()
            )));
        }
        if let Some(id) = ids.iter().find(|&&id| id as usize >= config.vocab_size()) {
            return Err(LiveError::Prompt(format!(
                "token id {id} is not in the model's vocabulary of {}",
                config.vocab_size()
            )));
        }
        let mut recorder = TensorRecorder::default();
        model.net.forward(ids, &mut recorder)?;
        Ok(recorder.tensors.len())
    }

    /// The tokens the model sees for `text` (with special tokens read as such if `special`).
    pub fn tokenize(&self, text: &str, special: bool) -> Result<Vec<Token>, LiveError> {
        Ok(self.model.tokenize(text, special)?)
    }
}

/// A figure redrawn for the reader's text, and the options of the author's it set aside.
#[derive(Debug, Clone, PartialEq)]
pub struct Redrawn {
    pub figure: Figure,
    /// Options the reader's text could not take, drawn with the kind's default instead.
    pub set_aside: Vec<String>,
}

/// Whether a figure's error is about an option of the author's that the reader's text cannot
/// take, which the figure can do without: one that picks or shows something of the prompt.
/// Not the prompt itself, nor what the figure is of (a layer, a head, the kind's stage).
fn adaptable(error: &tracebook_figures::FigureError, options: &toml::Table) -> bool {
    const OF_THE_TEXT: [&str; 6] = ["word", "values", "token", "position", "tokens", "query"];
    error
        .key
        .as_deref()
        .is_some_and(|key| OF_THE_TEXT.contains(&key) && options.contains_key(key))
}

/// A figure block's TOML body as options, without the `id` that only names it for
/// cross-references (the site sets it aside too).
/// The tracer's "too long", said to the reader who typed the text.
fn too_long(tokens: usize, generate: usize, limit: usize) -> String {
    let room = limit.saturating_sub(generate);
    let continued = if generate > 0 {
        format!(" (the figures continue your text by {generate} more)")
    } else {
        String::new()
    };
    format!(
        "Your text is {tokens} tokens long, and this model reads at most {room} tokens \
         here{continued}: try a shorter text."
    )
}

fn table(options_toml: &str) -> Result<toml::Table, LiveError> {
    let mut options: toml::Table =
        toml::from_str(options_toml).map_err(|e| LiveError::Options {
            what: "the figure's options",
            format: "TOML",
            message: e.message().trim().to_string(),
        })?;
    options.remove("id");
    Ok(options)
}

/// Figures see the prompts traced in this session.
impl Traces for Session {
    fn get(&self, prompt: &str) -> Option<&Trace> {
        self.traces.get(prompt)
    }

    fn names(&self) -> Vec<String> {
        self.traces.keys().cloned().collect()
    }

    fn live_cache(&self) -> Option<&LiveCache> {
        Some(&self.cache)
    }
}
