//! `tracebook.toml`: the site's title, model, trace options and shared prompts.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::base::source::SourceFile;
use crate::load::citations::CitationSettings;
use crate::load::prompts::{parse_prompt_table, NamedPrompt, PromptScope};
use crate::load::toml_doc::{entry, TomlDoc};
use crate::load::words::Words;
use serde::Deserialize;
use std::path::Path;
use tracebook_trace::{PromptSpec, TraceOptions};

/// The config file's name, at the site root.
pub const CONFIG_FILE: &str = "tracebook.toml";

/// The site-wide settings from `tracebook.toml`.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteConfig {
    pub title: String,
    pub description: String,
    /// Where the site is published (`https://example.org/book/`, always ending in `/`);
    /// only the sitemap and the 404 page use it, every other link is relative.
    pub base_url: Option<String>,
    pub model: ModelSettings,
    pub trace: TraceOptions,
    /// Style sheets (paths in the output, e.g. files of static/) every page loads after
    /// tracebook.css.
    pub extra_css: Vec<String>,
    /// Raw HTML added to every page's `<head>` (a favicon, a font, analytics).
    pub extra_head: String,
    /// `[check]`: how claims are held to account.
    pub check: CheckSettings,
    /// `language` and `[words]`: the theme's words.
    pub words: Words,
    /// `edit_url`: where a page's source can be edited, with `{path}` for its path in the
    /// site (`content/attention.md`); every article then links "Edit this page".
    pub edit_url: Option<String>,
    /// `bibliography` and `citation_style`: what `{{ cite KEY }}` cites, and how.
    pub citations: CitationSettings,
    /// `offline = true`: a service worker keeps the whole series for reading offline.
    pub offline: bool,
    /// `[live]`: readers may trace their own prompt in the browser.
    pub live: LiveSettings,
    /// `[theme]`: the accent and the figures' palettes.
    pub theme: tracebook_figures::Theme,
}

/// `[live]`: whether pages offer "Try your own prompt" (`enabled`), the precision of the
/// browser model the build writes (`precision`, int8 by default), and where the offer is
/// made (`offer`: on each figure, or once at the top of the page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveSettings {
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub precision: LivePrecision,
    #[serde(default)]
    pub offer: LiveOffer,
}

/// How the browser model stores its weight matrices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LivePrecision {
    /// Half precision: half the f32 size, about 3 significant digits per weight.
    F16,
    /// One byte per weight and an f32 scale per row (see `tracebook_trace::int8`).
    #[default]
    Int8,
    /// Half a byte per weight and a bf16 scale per group of 64 along a row (see
    /// `tracebook_trace::int4`): for models the size of GPT-2 small.
    Int4,
}

impl LivePrecision {
    pub fn name(self) -> &'static str {
        match self {
            LivePrecision::F16 => "f16",
            LivePrecision::Int8 => "int8",
            LivePrecision::Int4 => "int4",
        }
    }
}

/// Where pages offer the reader's own prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveOffer {
    /// A button under each figure drawn from one prompt of the site's model.
    #[default]
    Figure,
    /// One form at the top of each page that has such figures.
    Page,
}

/// `[check]`: what a false claim does (`claims = "error"` by default, or `"warn"`) and
/// whether pages mark checked sentences (`claim_markers`, default true).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSettings {
    #[serde(default)]
    pub claims: ClaimPolicy,
    #[serde(default = "yes")]
    pub claim_markers: bool,
}

fn yes() -> bool {
    true
}

impl Default for CheckSettings {
    fn default() -> Self {
        CheckSettings {
            claims: ClaimPolicy::Error,
            claim_markers: true,
        }
    }
}

/// What a false claim does to a build or check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimPolicy {
    /// An error, like a broken link: the build stops.
    #[default]
    Error,
    /// A warning: reported, the site is built (while its prose is being revised).
    Warn,
}

/// `[model]`: which model traces are made with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ModelSettings {
    /// A local folder (config.json, model.safetensors, tokenizer.json) or a hub id.
    pub id: String,
    /// What captions and credits call the model ("GPT-2 small"); without it a folder model
    /// is shown by its folder's name, a hub model by its id.
    #[serde(default)]
    pub name: Option<String>,
}

impl ModelSettings {
    /// `name`, unless it is missing or empty.
    pub fn given_name(&self) -> Option<&str> {
        self.name.as_deref().filter(|n| !n.trim().is_empty())
    }
}

impl SiteConfig {
    /// The name the site gives the model `prompt` is traced with: the prompt's own `name`
    /// beside its `model`, else `[model] name`; None when it gives none (or an empty one).
    pub fn model_name_for<'s>(&'s self, prompt: &'s PromptSpec) -> Option<&'s str> {
        match &prompt.model {
            Some(_) => prompt
                .model_name
                .as_deref()
                .filter(|n| !n.trim().is_empty()),
            None => self.model.given_name(),
        }
    }
}

#[derive(Deserialize)]
struct RawConfig {
    title: String,
    #[serde(default)]
    description: String,
    base_url: Option<String>,
    model: ModelSettings,
    #[serde(default)]
    trace: TraceOptions,
    #[serde(default)]
    extra_css: Vec<String>,
    #[serde(default)]
    extra_head: String,
    #[serde(default)]
    check: CheckSettings,
    edit_url: Option<String>,
    #[serde(default)]
    offline: bool,
    #[serde(default)]
    live: LiveSettings,
}

const TOP_KEYS: &[&str] = &[
    "title",
    "description",
    "base_url",
    "model",
    "trace",
    "prompts",
    "extra_css",
    "extra_head",
    "check",
    "language",
    "words",
    "edit_url",
    "bibliography",
    "citation_style",
    "offline",
    "live",
    "theme",
];
/// The top-level keys that are tables themselves.
const TABLES: &[&str] = &[
    "model", "trace", "prompts", "check", "words", "live", "theme",
];
const MODEL_KEYS: &[&str] = &["id", "name"];
const TRACE_KEYS: &[&str] = &["precision", "top_k"];
const CHECK_KEYS: &[&str] = &["claims", "claim_markers"];
const LIVE_KEYS: &[&str] = &["enabled", "precision", "offer"];

/// Reads `root/tracebook.toml`: the config and the prompts it shares with every article.
pub fn load(root: &Path) -> Result<(SiteConfig, Vec<NamedPrompt>), Diagnostics> {
    if !root.join(CONFIG_FILE).is_file() {
        return Err(Diagnostic::file(
            CONFIG_FILE,
            format!("the site folder has no {CONFIG_FILE}, so it is not a tracebook site"),
        )
        .with_hint("run tracebook in the site folder, pass --root DIR, or create one with `tracebook init DIR`")
        .into());
    }
    let file = SourceFile::read(root, Path::new(CONFIG_FILE))?;
    parse(&file)
}

/// Parses a config file already read.
pub fn parse(file: &SourceFile) -> Result<(SiteConfig, Vec<NamedPrompt>), Diagnostics> {
    let doc = TomlDoc::parse(file, 0..file.text.len())?;
    let mut out = Diagnostics::new();
    check_sections(&doc, &mut out);
    if !out.is_empty() {
        return Err(out);
    }
    let raw: RawConfig = doc
        .deserialize(&doc.root)
        .map_err(|d| with_missing_hint(d, file))?;
    let base_url = raw.base_url.map(|url| check_base_url(&doc, url, &mut out));
    let words = crate::load::words::from_config(&doc, &mut out);
    let citations = crate::load::citations::from_config(&doc, &mut out);
    let theme = crate::load::theme::from_config(&doc, &mut out);
    if let Some(url) = &raw.edit_url {
        check_edit_url(&doc, url, &mut out);
    }
    let prompts = match entry(doc.table(), "prompts") {
        Some((_, value)) => parse_prompt_table(&doc, value, PromptScope::Shared, &mut out),
        None => Vec::new(),
    };
    let config = SiteConfig {
        title: raw.title,
        description: raw.description,
        base_url,
        model: raw.model,
        trace: raw.trace,
        extra_css: raw.extra_css,
        extra_head: raw.extra_head,
        check: raw.check,
        words,
        edit_url: raw.edit_url,
        citations,
        offline: raw.offline,
        live: raw.live,
        theme,
    };
    out.into_result((config, prompts))
}

fn check_sections(doc: &TomlDoc<'_>, out: &mut Diagnostics) {
    let table = doc.table();
    doc.check_keys(table, TOP_KEYS, CONFIG_FILE, out);
    for (section, keys) in [
        ("model", MODEL_KEYS),
        ("trace", TRACE_KEYS),
        ("check", CHECK_KEYS),
        ("live", LIVE_KEYS),
        ("theme", crate::load::theme::THEME_KEYS),
    ] {
        if let Some((_, value)) = entry(table, section) {
            if let Some(inner) = value.get_ref().as_table() {
                let misplaced = top_level_keys_in(doc, inner, section, keys, out);
                let allowed: Vec<&str> = keys.iter().copied().chain(misplaced).collect();
                doc.check_keys(inner, &allowed, &format!("[{section}]"), out);
            }
        }
    }
}

/// Top-level keys written after `[section]` (so TOML puts them in it), each reported as such;
/// returns their names, which need no second report as unknown keys.
fn top_level_keys_in<'k>(
    doc: &TomlDoc<'_>,
    inner: &'k toml::de::DeTable<'_>,
    section: &str,
    keys: &[&str],
    out: &mut Diagnostics,
) -> Vec<&'k str> {
    let mut found = Vec::new();
    for key in inner.keys() {
        let name: &str = key.get_ref().as_ref();
        if keys.contains(&name) || !TOP_KEYS.contains(&name) || TABLES.contains(&name) {
            continue;
        }
        out.push(
            doc.error(
                key.span(),
                format!("`{name}` is a top-level key, but here it is read as part of [{section}]"),
            )
            .with_hint(format!(
                "move `{name} = ...` above the first table of the file: in TOML every key after \
                 a `[{section}]` line belongs to that table, up to the next one"
            )),
        );
        found.push(name);
    }
    found
}

/// A missing required key has no span in toml's error; say which key and where it goes.
fn with_missing_hint(diagnostic: Diagnostic, file: &SourceFile) -> Diagnostic {
    let hint = if diagnostic.message.contains("missing field `model`") {
        Some("add a [model] table with `id = \"openai-community/gpt2\"` or a local model folder")
    } else if diagnostic.message.contains("missing field `id`") {
        Some("set `id` in [model]: a local model folder or a hub id like \"openai-community/gpt2\"")
    } else if diagnostic.message.contains("missing field `title`") {
        Some("add `title = \"...\"` at the top of the file")
    } else {
        None
    };
    match hint {
        // A missing key has no place in the file: name the file only.
        Some(hint) => Diagnostic::file(&file.name, diagnostic.message).with_hint(hint),
        None => diagnostic,
    }
}

/// A base URL given on the command line (`build --base-url`), checked as the config's is.
pub fn base_url_from_flag(url: &str) -> Result<String, Diagnostics> {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err(Diagnostic::file(
            "--base-url",
            format!("the base URL must be an absolute http(s) URL, not {url:?}"),
        )
        .with_hint("for example --base-url https://example.org/my-book/")
        .into());
    }
    Ok(if url.ends_with('/') {
        url.to_string()
    } else {
        format!("{url}/")
    })
}

fn check_edit_url(doc: &TomlDoc<'_>, url: &str, out: &mut Diagnostics) {
    if (url.starts_with("https://") || url.starts_with("http://")) && url.contains("{path}") {
        return;
    }
    let span = entry(doc.table(), "edit_url").map_or(0..0, |(_, v)| v.span());
    out.push(
        doc.error(span, "edit_url must be an http(s) URL with `{path}` where the page's file goes")
            .with_hint("for GitHub: edit_url = \"https://github.com/OWNER/REPO/edit/main/{path}\" ({path} is e.g. content/attention.md)"),
    );
}

fn check_base_url(doc: &TomlDoc<'_>, url: String, out: &mut Diagnostics) -> String {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        let span = entry(doc.table(), "base_url").map_or(0..0, |(_, v)| v.span());
        out.push(
            doc.error(
                span,
                format!("base_url must be an absolute http(s) URL, not {url:?}"),
            )
            .with_hint("for example base_url = \"https://example.org/my-book/\""),
        );
    }
    if url.ends_with('/') {
        url
    } else {
        format!("{url}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracebook_trace::Precision;

    fn parse_text(text: &str) -> Result<(SiteConfig, Vec<NamedPrompt>), String> {
        parse(&SourceFile::from_text(CONFIG_FILE, text)).map_err(|d| d.to_string())
    }

    #[test]
    fn reads_a_full_config() {
        let (config, prompts) = parse_text(
            "title = \"T\"\ndescription = \"D\"\nbase_url = \"https://x.org/b\"\n\
             [model]\nid = \"models/test-gpt2\"\n[trace]\nprecision = \"f32\"\ntop_k = 5\n\
             [prompts]\nrobots = \"The robots will bring\"\n",
        )
        .unwrap();
        assert_eq!(config.title, "T");
        assert_eq!(config.base_url.as_deref(), Some("https://x.org/b/"));
        assert_eq!(config.model.id, "models/test-gpt2");
        assert_eq!(config.trace.precision, Precision::F32);
        assert_eq!(config.trace.top_k, 5);
        assert_eq!(prompts.len(), 1);
        assert_eq!(prompts[0].name.as_str(), "robots");
        assert_eq!(prompts[0].declared.to_string(), "tracebook.toml:10:1");
    }

    #[test]
    fn defaults_apply_to_optional_keys() {
        let (config, prompts) = parse_text("title = \"T\"\n[model]\nid = \"gpt2\"\n").unwrap();
        assert_eq!(config.description, "");
        assert_eq!(config.base_url, None);
        assert_eq!(config.trace, TraceOptions::default());
        assert!(prompts.is_empty());
    }

    #[test]
    fn reports_unknown_keys_in_every_section_at_once() {
        let err =
            parse_text("titel = \"T\"\n[model]\nif = \"gpt2\"\n[trace]\ntopk = 3\n").unwrap_err();
        assert!(
            err.contains("tracebook.toml:1:1: error: unknown key `titel`"),
            "{err}"
        );
        assert!(err.contains("did you mean `title`?"), "{err}");
        assert!(
            err.contains("tracebook.toml:3:1: error: unknown key `if` in [model]"),
            "{err}"
        );
        assert!(
            err.contains("tracebook.toml:5:1: error: unknown key `topk` in [trace]"),
            "{err}"
        );
        assert!(err.contains("did you mean `top_k`?"), "{err}");
    }

    #[test]
    fn a_top_level_key_after_a_table_is_told_where_it_belongs() {
        let err = parse_text(
            "title = \"T\"\n[model]\nid = \"gpt2\"\nextra_css = [\"a.css\"]\n[trace]\ntopk = 3\n",
        )
        .unwrap_err();
        assert!(
            err.contains(
                "tracebook.toml:4:1: error: `extra_css` is a top-level key, but here it is read \
                 as part of [model]"
            ),
            "{err}"
        );
        assert!(
            err.contains("move `extra_css = ...` above the first table"),
            "{err}"
        );
        assert!(!err.contains("unknown key `extra_css`"), "{err}");
        assert!(err.contains("unknown key `topk` in [trace]"), "{err}");
    }

    #[test]
    fn reports_wrong_types_and_missing_keys() {
        let err =
            parse_text("title = \"T\"\n[model]\nid = \"gpt2\"\n[trace]\nprecision = \"f64\"\n")
                .unwrap_err();
        assert!(
            err.starts_with("tracebook.toml:5:13: error: unknown variant `f64`"),
            "{err}"
        );
        let err = parse_text("title = \"T\"\n").unwrap_err();
        assert!(err.contains("missing field `model`"), "{err}");
        assert!(err.contains("add a [model] table"), "{err}");
        let err = parse_text("title = \"T\"\nbase_url = \"example.org\"\n[model]\nid = \"g\"\n")
            .unwrap_err();
        assert!(
            err.contains("base_url must be an absolute http(s) URL"),
            "{err}"
        );
    }
}
