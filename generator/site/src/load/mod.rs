//! Stage 1, **load**: files in, typed values out, each with its source position.
//!
//! Takes the site folder; gives a [`site::Site`] (tracebook.toml as [`config::SiteConfig`],
//! the articles with their front matter in publishing order, every named prompt, the
//! bibliography), its [`traces::TraceSet`] (each prompt's trace, or why it is missing or
//! stale) and its [`templates::Templates`]. Every problem is a located diagnostic. Nothing
//! here evaluates an article's body: that is what the later stages do.

pub mod body;
pub mod citations;
pub mod config;
pub mod content;
pub mod front_matter;
pub mod large_files;
pub mod lazy_tokenizer;
pub mod live_models;
pub mod own_kinds;
pub mod parts;
pub mod prompt_name;
pub mod prompts;
pub mod site;
pub mod templates;
pub mod theme;
pub mod toml_doc;
pub mod traces;
pub mod words;
