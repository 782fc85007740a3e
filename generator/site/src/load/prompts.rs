//! Named prompts: shared ones from tracebook.toml, article-local ones from front matter,
//! where each was declared, and the rule that a name is used once.

use crate::base::diagnostic::Diagnostics;
use crate::base::source::Location;
use crate::load::prompt_name::PromptName;
use crate::load::toml_doc::TomlDoc;
use std::collections::BTreeMap;
use std::path::PathBuf;
use toml::de::DeValue;
use toml::Spanned;
use tracebook_trace::PromptSpec;

/// Who can use a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptScope {
    /// Declared in tracebook.toml: every article.
    Shared,
    /// Declared in an article's front matter: that article only (path relative to the root).
    Article(String),
}

/// A prompt with its name and the place it was declared.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedPrompt {
    pub name: PromptName,
    pub spec: PromptSpec,
    pub scope: PromptScope,
    /// The prompt's key in tracebook.toml or in front matter.
    pub declared: Location,
}

impl NamedPrompt {
    /// `traces/<name>.json`, relative to the site root.
    pub fn trace_file(&self) -> PathBuf {
        self.name.trace_file()
    }

    /// Whether an article (path relative to the root) may use this prompt.
    pub fn visible_from(&self, article: &str) -> bool {
        match &self.scope {
            PromptScope::Shared => true,
            PromptScope::Article(path) => path == article,
        }
    }
}

/// Reads a `[prompts]` table: each key a prompt name, each value a string or a table.
pub fn parse_prompt_table(
    doc: &TomlDoc<'_>,
    value: &Spanned<DeValue<'_>>,
    scope: PromptScope,
    out: &mut Diagnostics,
) -> Vec<NamedPrompt> {
    let Some(table) = value.get_ref().as_table() else {
        out.push(
            doc.error(value.span(), "`prompts` must be a table of named prompts")
                .with_hint(
                    "write [prompts] and then lines like robots = \"The robots will bring\"",
                ),
        );
        return Vec::new();
    };
    let mut prompts = Vec::new();
    for (key, value) in table.iter() {
        let name = match PromptName::new(key.get_ref().as_ref()) {
            Ok(name) => name,
            Err(invalid) => {
                let diagnostic = doc.error(key.span(), invalid.message());
                out.push(diagnostic.with_optional_hint(invalid.suggestion()));
                continue;
            }
        };
        let spec: PromptSpec = match doc.deserialize(value) {
            Ok(spec) => spec,
            Err(diagnostic) => {
                out.push(diagnostic.with_hint(
                    "a prompt is a string, or a table like { text = \"...\", generate = 4 }",
                ));
                continue;
            }
        };
        if spec.text.is_empty() {
            out.push(doc.error(value.span(), format!("prompt `{name}` has no text")));
            continue;
        }
        let span = key.span();
        let declared = doc
            .file
            .location(doc.offset + span.start..doc.offset + span.end);
        prompts.push(NamedPrompt {
            name,
            spec,
            scope: scope.clone(),
            declared,
        });
    }
    prompts
}

/// Merges prompts in declaration order, reporting every name declared twice.
pub fn merge(
    all: impl IntoIterator<Item = NamedPrompt>,
    out: &mut Diagnostics,
) -> Vec<NamedPrompt> {
    let mut by_name: BTreeMap<PromptName, NamedPrompt> = BTreeMap::new();
    for prompt in all {
        if let Some(first) = by_name.get(&prompt.name) {
            out.push(
                prompt
                    .declared
                    .error(format!("prompt name `{}` is declared twice", prompt.name))
                    .with_hint(format!(
                        "it is first declared at {}; a name is used once because it names \
                         the trace file traces/{}.json, so rename one of them",
                        first.declared, prompt.name
                    )),
            );
            continue;
        }
        by_name.insert(prompt.name.clone(), prompt);
    }
    by_name.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::source::SourceFile;
    use crate::load::toml_doc::entry;

    fn prompts_of(text: &str, scope: PromptScope) -> (Vec<NamedPrompt>, String) {
        let file = SourceFile::from_text("content/a.md", text);
        let doc = TomlDoc::parse(&file, 0..text.len()).ok().unwrap();
        let mut out = Diagnostics::new();
        let value = entry(doc.table(), "prompts").unwrap().1;
        let prompts = parse_prompt_table(&doc, value, scope, &mut out);
        (prompts, out.to_string())
    }

    #[test]
    fn strings_and_tables_are_prompts() {
        let (prompts, errors) = prompts_of(
            "[prompts]\nb = \"Hi\"\na = { text = \"The animal\", generate = 4 }\n",
            PromptScope::Article("content/a.md".into()),
        );
        assert_eq!(errors, "");
        let names: Vec<_> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(prompts[0].spec.options.generate, 4);
        assert_eq!(prompts[0].declared.to_string(), "content/a.md:3:1");
        assert!(prompts[0].visible_from("content/a.md"));
        assert!(!prompts[0].visible_from("content/b.md"));
    }

    #[test]
    fn bad_names_specs_and_empty_text_are_all_reported() {
        let (prompts, errors) = prompts_of(
            "[prompts]\n\"My Prompt\" = \"x\"\nok = { text = \"x\", genrate = 4 }\nempty = \"\"\nfine = \"y\"\n",
            PromptScope::Shared,
        );
        assert_eq!(prompts.len(), 1, "{errors}");
        assert!(
            errors.contains("content/a.md:2:1: error: `My Prompt` cannot be a prompt name"),
            "{errors}"
        );
        assert!(errors.contains("for example to `my_prompt`"), "{errors}");
        assert!(errors.contains("content/a.md:3:"), "{errors}");
        assert!(errors.contains("unknown field `genrate`"), "{errors}");
        assert!(errors.contains("prompt `empty` has no text"), "{errors}");
    }

    #[test]
    fn a_name_declared_twice_is_an_error_naming_both_places() {
        let (first, _) = prompts_of("[prompts]\nrobots = \"a\"\n", PromptScope::Shared);
        let (second, _) = prompts_of(
            "\n[prompts]\nrobots = \"b\"\n",
            PromptScope::Article("x".into()),
        );
        let mut out = Diagnostics::new();
        let merged = merge(first.into_iter().chain(second), &mut out);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].spec.text, "a");
        let text = out.to_string();
        assert!(
            text.starts_with("content/a.md:3:1: error: prompt name `robots` is declared twice"),
            "{text}"
        );
        assert!(
            text.contains("first declared at content/a.md:2:1"),
            "{text}"
        );
    }
}
