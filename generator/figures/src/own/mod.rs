//! Figure kinds of the author's own: `figures/NAME.svg` in the site's folder is a tera
//! template (the engine of the site's page templates) that writes one `<svg>`, and
//! `figures/NAME.toml` beside it declares its options (`declare.rs`). A block
//! ```` ```figure NAME ```` draws it like a built-in kind: its options checked, its prompts'
//! traces read through the same names claims use (`functions.rs`), and its output checked and
//! framed as every figure is (`output.rs`), so numbering, captions, downloads, theming and
//! accessibility are the built-ins'.
//!
//! A template sees `prompt` (its name, text, tokens and model), `prompts` (every prompt the
//! block names, for a kind that draws several) and `options` (the block's, defaults filled),
//! and calls `value`, `tensor`, `fill`, `ink`, `text_width`, `num` and `percent`. Its output
//! is escaped by default (a hostile token text stays text), it reads nothing but the figure's
//! traces, and a render that writes too much or runs too long is stopped with a message.

mod declare;
mod functions;
mod output;

pub use declare::{Declaration, Declared, Prompts, Type};

use crate::error::FigureError;
use crate::figure::{Figure, Source};
use crate::svg::Ramp;
use crate::traces::Traces;
use functions::Shared;
use serde::Serialize;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;
use tera::{Context, Tera};
use tracebook_trace::suggest::did_you_mean;
use tracebook_trace::Trace;

/// How long a template may take to draw one figure before it is stopped (natively; in the
/// browser the page's worker is the guard).
pub const MAX_TIME: Duration = Duration::from_secs(20);

/// An author's figure kind, read and its template compiled.
#[derive(Debug, Clone)]
pub struct OwnKind {
    /// The block's kind: the template's file name without `.svg`.
    pub name: String,
    /// Where it was read from, for messages: `figures/NAME.svg`.
    pub path: String,
    pub source: String,
    pub declaration: Declaration,
    /// The declaration's file and text, as read (`None` for a kind without options).
    pub declaration_source: Option<(String, String)>,
    /// How long one figure may take to draw ([`MAX_TIME`]).
    pub limit: Duration,
}

/// A kind that cannot be read: its file, where in it (a byte range), and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct KindError {
    pub file: String,
    pub range: Option<Range<usize>>,
    pub message: String,
    pub hint: Option<String>,
}

impl OwnKind {
    /// Reads the kind `name` from its template (at `path`) and its declaration (at
    /// `declaration_path`, `None` for a kind without options), compiling the template once so
    /// that a syntax error is reported before any figure is drawn.
    pub fn new(
        name: &str,
        (path, source): (&str, &str),
        declaration: Option<(&str, &str)>,
    ) -> Result<OwnKind, KindError> {
        if crate::kinds().contains(&name) {
            return Err(KindError {
                file: path.to_string(),
                range: None,
                message: format!("`{name}` is a built-in figure kind"),
                hint: Some("give your kind another file name".into()),
            });
        }
        let valid = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        if name.is_empty() || !name.chars().all(valid) {
            return Err(KindError {
                file: path.to_string(),
                range: None,
                message: format!("`{name}` cannot name a figure kind"),
                hint: Some("use lowercase letters, digits and `-` (`neuron-strip.svg`)".into()),
            });
        }
        let declaration_text = declaration;
        let declaration = match declaration {
            None => Declaration::default(),
            Some((file, text)) => {
                Declaration::parse(text).map_err(|(range, message)| KindError {
                    file: file.to_string(),
                    range,
                    message,
                    hint: Some(
                        "options are declared as [options.NAME] with type = \"integer\", \
                         \"number\", \"string\" or \"boolean\" and an optional default, min, \
                         max, choices and help"
                            .into(),
                    ),
                })?
            }
        };
        let kind = OwnKind {
            name: name.to_string(),
            path: path.to_string(),
            source: source.to_string(),
            declaration,
            declaration_source: declaration_text.map(|(f, t)| (f.to_string(), t.to_string())),
            limit: MAX_TIME,
        };
        kind.engine(&Shared::new(Vec::new()))
            .map_err(|e| kind.template_error(&e))?;
        Ok(kind)
    }

    /// The kind as the site read it, for a page's live session to draw it again.
    pub fn source(&self) -> crate::OwnSource {
        crate::OwnSource {
            path: self.path.clone(),
            template: self.source.clone(),
            declaration: self.declaration_source.clone(),
        }
    }

    /// The kind a page's live session was handed, read as the site read it.
    pub fn from_source(name: &str, source: &crate::OwnSource) -> Result<OwnKind, KindError> {
        let declaration = (source.declaration.as_ref()).map(|(f, t)| (f.as_str(), t.as_str()));
        OwnKind::new(name, (&source.path, &source.template), declaration)
    }

    /// A tera instance with this template and the functions reading `shared`.
    fn engine(&self, shared: &Arc<Shared>) -> Result<Tera, tera::Error> {
        let mut tera = Tera::default();
        tera.autoescape_on(vec![".svg"]);
        functions::register(&mut tera, shared);
        tera.add_raw_template(&self.path, &self.source)?;
        Ok(tera)
    }

    /// Draws the kind with a block's `options` from `traces`.
    pub fn render(
        &self,
        options: &toml::Table,
        traces: &dyn Traces,
    ) -> Result<Figure, FigureError> {
        let own_options = self.declaration.options(options)?;
        let caption = caption(options)?;
        let names = self.prompt_names(options, traces)?;
        let prompts: Vec<(String, Trace)> = (names.iter())
            .map(|n| (n.clone(), traces.get(n).expect("checked above").clone()))
            .collect();
        let described: Vec<PromptView> =
            prompts.iter().map(|(n, t)| PromptView::of(n, t)).collect();
        let mut context = Context::new();
        context.insert("prompt", &described[0]);
        context.insert("prompts", &described);
        context.insert("options", &own_options);
        let shared = Shared::new(prompts.clone());
        let tera = self.engine(&shared).map_err(|e| self.figure_error(&e))?;
        let written = run(tera, self.path.clone(), context, self.limit).map_err(|e| match e {
            Stopped::Tera(e) => self.figure_error(&e),
            Stopped::Time => FigureError::new(format!(
                "{} was stopped after {} s: a figure this slow to draw has loops too large",
                self.path,
                self.limit.as_secs_f64()
            ))
            .with_hint("loop over what the figure shows (its tokens, a slice of a tensor), not over whole tensors"),
        })?;
        let drawing = output::read(&written, &self.path)?;
        let ramps = shared.ramps.lock().expect("no panic holds it");
        let css = crate::svg::Css::joined(ramps.values().map(Ramp::css));
        let title = self
            .declaration
            .title
            .clone()
            .unwrap_or_else(|| self.name.clone());
        let svg = output::frame(drawing.clone(), "own", title, css).replacen(
            "class=\"tbf tbf-own\"",
            &format!("class=\"tbf tbf-own tbf-own-{}\"", self.name),
            1,
        );
        Ok(figure(svg, caption, drawing.desc, &prompts))
    }

    /// The prompts the block names (`prompt`, or `prompts` for a kind of several), each with
    /// a trace.
    fn prompt_names(
        &self,
        options: &toml::Table,
        traces: &dyn Traces,
    ) -> Result<Vec<String>, FigureError> {
        let (key, names) = match self.declaration.prompts {
            Prompts::One => match options.get("prompt") {
                Some(toml::Value::String(p)) => ("prompt", vec![p.clone()]),
                _ => {
                    return Err(FigureError::new("a figure needs `prompt = \"NAME\"`")
                        .with_hint(format!("the site's prompts: {}", traces.names().join(", "))))
                }
            },
            Prompts::Several => match options.get("prompts") {
                Some(toml::Value::Array(list)) if !list.is_empty() => {
                    let names: Option<Vec<String>> =
                        list.iter().map(|v| v.as_str().map(String::from)).collect();
                    let names = names.ok_or_else(|| {
                        FigureError::at("prompts", "`prompts` is a list of prompt names")
                    })?;
                    ("prompts", names)
                }
                _ => {
                    return Err(FigureError::new(
                        "this kind draws several prompts: give `prompts = [\"a\", \"b\"]`",
                    ))
                }
            },
        };
        for name in &names {
            if traces.get(name).is_none() {
                let known = traces.names();
                let hint = did_you_mean(name, known.iter().map(String::as_str))
                    .unwrap_or_else(|| "run `tracebook trace` to trace the site's prompts".into());
                return Err(
                    FigureError::at(key, format!("no trace of prompt \"{name}\"")).with_hint(hint),
                );
            }
        }
        Ok(names)
    }

    /// A tera error while compiling or rendering, at the template's line and column.
    fn template_error(&self, e: &tera::Error) -> KindError {
        let (range, message) = report(e);
        KindError {
            file: self.path.clone(),
            range,
            message,
            hint: Some("see the template syntax at https://keats.github.io/tera/docs/".into()),
        }
    }

    /// A rendering error, said at the block (the site points at its line) and placed in the
    /// template by line and column.
    fn figure_error(&self, e: &tera::Error) -> FigureError {
        let (range, message) = report(e);
        let place = match range {
            Some(r) => {
                let (line, col) = line_col(&self.source, r.start);
                format!("{}:{line}:{col}", self.path)
            }
            None => self.path.clone(),
        };
        FigureError::new(format!("{place}: {message}"))
    }
}

/// The block's `caption`, a string if given.
fn caption(options: &toml::Table) -> Result<Option<String>, FigureError> {
    match options.get("caption") {
        None => Ok(None),
        Some(toml::Value::String(c)) => Ok(Some(c.clone())),
        Some(other) => Err(FigureError::at(
            "caption",
            format!("`caption` is a string, not {}", other.type_str()),
        )),
    }
}

/// The figure of a drawn `svg`, crediting the models of its `prompts`.
fn figure(
    svg: String,
    caption: Option<String>,
    alt: String,
    prompts: &[(String, Trace)],
) -> Figure {
    let mut models = Vec::new();
    for (_, trace) in prompts {
        let shown = trace.meta.model.shown();
        if !models.contains(&shown) {
            models.push(shown);
        }
    }
    Figure {
        svg,
        caption,
        alt,
        models,
        source: Source::Traced,
        live: None,
        deferred: None,
        relations: Vec::new(),
    }
}

/// A tera error's byte range in its template, if it has one, and its message.
fn report(e: &tera::Error) -> (Option<Range<usize>>, String) {
    match e.kind() {
        tera::ErrorKind::SyntaxError(r) => (
            Some(r.span().range.clone()),
            format!("template syntax error: {}", r.message()),
        ),
        tera::ErrorKind::RenderingError(r) => {
            (Some(r.span().range.clone()), r.message().to_string())
        }
        _ => {
            let mut message = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                message = format!("{message}: {s}");
                source = s.source();
            }
            // Tera's check of the filters and functions a template names writes its own
            // report, placed in the template already.
            let message = message
                .strip_prefix("error: ")
                .unwrap_or(&message)
                .to_string();
            (None, message)
        }
    }
}

/// 1-based line and column of byte `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Why a render stopped.
enum Stopped {
    Tera(tera::Error),
    Time,
}

/// Renders the template, natively on a thread of its own so that a render past [`MAX_TIME`]
/// is abandoned with a message rather than hanging the build.
#[cfg(not(target_arch = "wasm32"))]
fn run(tera: Tera, path: String, context: Context, limit: Duration) -> Result<String, Stopped> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(render_capped(&tera, &path, &context));
    });
    match receive.recv_timeout(limit) {
        Ok(result) => result.map_err(Stopped::Tera),
        Err(_) => Err(Stopped::Time),
    }
}

#[cfg(target_arch = "wasm32")]
fn run(tera: Tera, path: String, context: Context, _: Duration) -> Result<String, Stopped> {
    render_capped(&tera, &path, &context).map_err(Stopped::Tera)
}

fn render_capped(tera: &Tera, path: &str, context: &Context) -> Result<String, tera::Error> {
    let mut out = output::Capped::default();
    tera.render_to(path, context, &mut out)?;
    Ok(String::from_utf8_lossy(&out.0).into_owned())
}

/// A prompt as a template sees it.
#[derive(Serialize)]
struct PromptView {
    name: String,
    text: String,
    tokens: Vec<TokenView>,
    model: ModelView,
}

#[derive(Serialize)]
struct TokenView {
    text: String,
    id: u32,
}

#[derive(Serialize)]
struct ModelView {
    /// As readers are shown it.
    name: String,
    id: String,
    layers: usize,
    heads: usize,
    width: usize,
    vocab: usize,
    context: usize,
}

impl PromptView {
    fn of(name: &str, trace: &Trace) -> PromptView {
        let m = &trace.meta.model;
        PromptView {
            name: name.to_string(),
            text: trace.meta.prompt.text.clone(),
            tokens: (trace.meta.tokens.iter())
                .map(|t| TokenView {
                    text: t.text.clone(),
                    id: t.id,
                })
                .collect(),
            model: ModelView {
                name: m.shown(),
                id: m.id.clone(),
                layers: m.config.n_layer,
                heads: m.config.n_head,
                width: m.config.n_embd,
                vocab: m.config.vocab_size,
                context: m.config.n_positions,
            },
        }
    }
}

#[cfg(test)]
mod tests;
