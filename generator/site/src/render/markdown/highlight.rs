//! Code blocks, through the `partials/code.html` template, highlighted at build time: a small
//! lexer per language (Rust, Python, TOML, shell, JSON, JavaScript) that wraps tokens in
//! `<span class="tb-hl-…">`; the theme gives the classes their colours, light and dark, so the
//! HTML carries no colour and no script runs.

use super::Spanned;
use crate::base::diagnostic::Diagnostic;
use crate::base::escape;
use crate::load::templates::Templates;
use pulldown_cmark::{CodeBlockKind, CowStr, Event, Tag, TagEnd};

/// Replaces every code block by the `partials/code.html` template around its HTML: tokens
/// wrapped in highlight classes for a known language, else the text escaped as CommonMark
/// renders it. A template error is added to `errors`, and the block is left to pulldown-cmark.
pub fn rewrite<'s>(
    events: Vec<Spanned<'s>>,
    templates: &Templates,
    errors: &mut Vec<Diagnostic>,
) -> Vec<Spanned<'s>> {
    let mut out = Vec::with_capacity(events.len());
    // The open block: its language as the class names it, its text, and its events.
    let mut open: Option<(String, String, Vec<Spanned<'s>>)> = None;
    for (event, range) in events {
        match (&mut open, event) {
            (None, Event::Start(Tag::CodeBlock(kind))) => {
                // CommonMark's class: the info string up to its first space.
                let language = match &kind {
                    CodeBlockKind::Fenced(info) => info.split(' ').next().unwrap_or(""),
                    CodeBlockKind::Indented => "",
                }
                .to_string();
                let start = (Event::Start(Tag::CodeBlock(kind)), range);
                open = Some((language, String::new(), vec![start]));
            }
            (Some((_, code, kept)), Event::Text(text)) => {
                code.push_str(&text);
                kept.push((Event::Text(text), range));
            }
            (Some(_), Event::End(TagEnd::CodeBlock)) => {
                let (language, code, mut kept) = open.take().expect("matched Some");
                let start = kept[0].1.start;
                match render(templates, &language, &code) {
                    Ok(html) => out.push((Event::Html(CowStr::from(html)), start..range.end)),
                    Err(error) => {
                        errors.push(error);
                        kept.push((Event::End(TagEnd::CodeBlock), range));
                        out.extend(kept);
                    }
                }
            }
            (_, event) => out.push((event, range)),
        }
    }
    out
}

/// One code block through `partials/code.html`.
fn render(templates: &Templates, language: &str, code: &str) -> Result<String, Diagnostic> {
    let (class, html) = match lang(&language.to_ascii_lowercase()) {
        Some(known) => (language.to_ascii_lowercase(), highlight(known, code)),
        None => {
            let mut escaped = String::with_capacity(code.len());
            pulldown_cmark_escape::escape_html_body_text(&mut escaped, code)
                .expect("writing to a string cannot fail");
            (language.to_string(), escaped)
        }
    };
    let mut cx = tera::Context::new();
    cx.insert("language", &class);
    cx.insert("code", &html);
    let mut html = templates.render("partials/code.html", &cx)?;
    if !html.ends_with('\n') {
        html.push('\n');
    }
    Ok(html)
}

/// What the lexer knows of one language.
pub struct Lang {
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    /// String delimiters, longest first; each closes with itself.
    quotes: &'static [&'static str],
    keywords: &'static [&'static str],
    literals: &'static [&'static str],
    kind: Kind,
}

/// Rules only some languages have.
#[derive(PartialEq, Eq)]
enum Kind {
    Rust,
    Python,
    Toml,
    Shell,
    Json,
    JavaScript,
}

const RUST: Lang = Lang {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &["\""],
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
        "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "type",
        "unsafe", "use", "where", "while",
    ],
    literals: &["true", "false", "None", "Some", "Ok", "Err"],
    kind: Kind::Rust,
};

const PYTHON: Lang = Lang {
    line_comments: &["#"],
    block_comment: None,
    quotes: &["\"\"\"", "'''", "\"", "'"],
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
        "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
        "yield",
    ],
    literals: &["True", "False", "None"],
    kind: Kind::Python,
};

const TOML: Lang = Lang {
    line_comments: &["#"],
    block_comment: None,
    quotes: &["\"\"\"", "'''", "\"", "'"],
    keywords: &[],
    literals: &["true", "false"],
    kind: Kind::Toml,
};

const SHELL: Lang = Lang {
    line_comments: &["#"],
    block_comment: None,
    quotes: &["\"", "'"],
    keywords: &[
        "case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if",
        "in", "local", "then", "until", "while",
    ],
    literals: &[],
    kind: Kind::Shell,
};

const JSON: Lang = Lang {
    line_comments: &[],
    block_comment: None,
    quotes: &["\""],
    keywords: &[],
    literals: &["true", "false", "null"],
    kind: Kind::Json,
};

const JAVASCRIPT: Lang = Lang {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &["\"", "'", "`"],
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "let",
        "new",
        "of",
        "return",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "while",
        "yield",
    ],
    literals: &["true", "false", "null", "undefined"],
    kind: Kind::JavaScript,
};

/// The language of a fence's info string (`rust`, `py`, `sh`, ...).
fn lang(name: &str) -> Option<&'static Lang> {
    Some(match name {
        "rust" | "rs" => &RUST,
        "python" | "py" | "python3" => &PYTHON,
        "toml" => &TOML,
        "sh" | "bash" | "shell" | "console" | "zsh" => &SHELL,
        "json" => &JSON,
        "js" | "javascript" => &JAVASCRIPT,
        _ => return None,
    })
}

/// `code` as escaped HTML with its tokens in spans.
pub fn highlight(lang: &Lang, code: &str) -> String {
    let mut out = String::with_capacity(code.len() * 2);
    let mut rest = code;
    let mut line_start = true;
    while let Some(c) = rest.chars().next() {
        let (class, len) = token(lang, rest, line_start);
        let len = len.max(c.len_utf8());
        let (piece, tail) = rest.split_at(len);
        match class {
            Some(class) => {
                out.push_str("<span class=\"tb-hl-");
                out.push_str(class);
                out.push_str("\">");
                out.push_str(&escape::html(piece));
                out.push_str("</span>");
            }
            None => out.push_str(&escape::html(piece)),
        }
        line_start = piece.ends_with('\n') || (line_start && piece.trim().is_empty());
        rest = tail;
    }
    out
}

/// The token at the start of `text`: its class (None for plain text) and byte length.
fn token(lang: &Lang, text: &str, line_start: bool) -> (Option<&'static str>, usize) {
    let c = text.chars().next().expect("called on non-empty text");
    if c.is_whitespace() {
        return (
            None,
            text.find(|c: char| !c.is_whitespace() || c == '\n')
                .map_or(text.len(), |n| n.max(1)),
        );
    }
    if lang.line_comments.iter().any(|p| text.starts_with(p)) {
        return (Some("comment"), text.find('\n').unwrap_or(text.len()));
    }
    if let Some((open, close)) = lang.block_comment {
        if let Some(inside) = text.strip_prefix(open) {
            let end = inside
                .find(close)
                .map_or(text.len(), |n| n + open.len() + close.len());
            return (Some("comment"), end);
        }
    }
    if lang.kind == Kind::Toml && line_start {
        if c == '[' {
            return (Some("key"), text.find('\n').unwrap_or(text.len()));
        }
        if let Some(len) = toml_key(text) {
            return (Some("key"), len);
        }
    }
    if lang.kind == Kind::Rust && c == '\'' {
        return (
            rust_char(text).map(|_| "string"),
            rust_char(text).unwrap_or(1),
        );
    }
    if let Some(quote) = lang.quotes.iter().find(|q| text.starts_with(**q)) {
        let shell = lang.kind == Kind::Shell;
        let multiline = shell || lang.kind == Kind::Rust || quote.len() == 3 || *quote == "`";
        let len = string_len(text, quote, !shell || *quote == "\"", multiline);
        let is_key = lang.kind == Kind::Json && text[len..].trim_start().starts_with(':');
        return (Some(if is_key { "key" } else { "string" }), len);
    }
    if lang.kind == Kind::Shell && c == '$' {
        let len = 1 + text[1..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '{' || c == '}'))
            .unwrap_or(text.len() - 1);
        return (Some("variable"), len);
    }
    if c.is_ascii_digit() {
        let len = text
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(text.len());
        return (Some("number"), len);
    }
    if c.is_alphabetic() || c == '_' {
        let len = text
            .find(|c: char| {
                !(c.is_alphanumeric() || c == '_' || (lang.kind == Kind::Shell && c == '-'))
            })
            .unwrap_or(text.len());
        return (word_class(lang, &text[..len], &text[len..]), len);
    }
    (None, c.len_utf8())
}

fn word_class(lang: &Lang, word: &str, after: &str) -> Option<&'static str> {
    if lang.keywords.contains(&word) {
        return Some("keyword");
    }
    if lang.literals.contains(&word) {
        return Some("literal");
    }
    match lang.kind {
        Kind::Rust if after.starts_with('!') && !after.starts_with("!=") => Some("macro"),
        Kind::Rust | Kind::Python | Kind::JavaScript
            if word.chars().next().is_some_and(char::is_uppercase) =>
        {
            Some("type")
        }
        _ => None,
    }
}

/// Length of the string starting at `text` (opening `quote` included), up to its closing
/// quote or the end of the code; `escapes` says whether a backslash escapes the next character,
/// and an unclosed string ends at the line's end unless it is `multiline`.
fn string_len(text: &str, quote: &str, escapes: bool, multiline: bool) -> usize {
    let body = &text[quote.len()..];
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        if escapes && c == '\\' {
            chars.next();
        } else if body[i..].starts_with(quote) {
            return quote.len() + i + quote.len();
        } else if c == '\n' && !multiline {
            return quote.len() + i;
        }
    }
    text.len()
}

/// A Rust character literal (`'a'`, `'\n'`, `'\u{1F600}'`) at the start; None for a lifetime.
fn rust_char(text: &str) -> Option<usize> {
    let body = &text[1..];
    let mut chars = body.char_indices();
    let (_, first) = chars.next()?;
    let end = if first == '\\' {
        body.find('\'').filter(|&n| n > 1)?
    } else {
        let (i, next) = chars.next()?;
        (next == '\'').then_some(i)?
    };
    Some(1 + end + 1)
}

/// `name =` or `a.b."c" =` at the start of a TOML line: the length of the key.
fn toml_key(text: &str) -> Option<usize> {
    let line = &text[..text.find('\n').unwrap_or(text.len())];
    let eq = line.find('=')?;
    let key = line[..eq].trim_end();
    let plain =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"' | '\'' | ' ');
    (!key.is_empty() && key.chars().all(plain)).then_some(key.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(lang: &str, code: &str) -> String {
        highlight(super::lang(lang).unwrap(), code)
    }

    #[test]
    fn rust_keywords_strings_comments_and_lifetimes() {
        let html = spans(
            "rust",
            "fn main<'a>() { let s = \"a\\\"b\"; // hi\n println!('x'); }",
        );
        assert!(
            html.contains("<span class=\"tb-hl-keyword\">fn</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-string\">&quot;a\\&quot;b&quot;</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-comment\">// hi</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-macro\">println</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-string\">&#39;x&#39;</span>"),
            "{html}"
        );
        assert!(
            html.contains("&lt;&#39;a&gt;"),
            "a lifetime is not a string: {html}"
        );
    }

    #[test]
    fn toml_keys_tables_and_values() {
        let html = spans("toml", "[model]\nid = \"gpt2\" # the model\ntop_k = 20\n");
        assert!(
            html.contains("<span class=\"tb-hl-key\">[model]</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-key\">id</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-string\">&quot;gpt2&quot;</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-comment\"># the model</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-number\">20</span>"),
            "{html}"
        );
    }

    #[test]
    fn json_keys_differ_from_string_values() {
        let html = spans("json", "{\"id\": \"x\", \"n\": 1.5, \"ok\": true}");
        assert!(
            html.contains("<span class=\"tb-hl-key\">&quot;id&quot;</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-string\">&quot;x&quot;</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-literal\">true</span>"),
            "{html}"
        );
    }

    #[test]
    fn python_and_shell() {
        let html = spans("python", "def f(x):\n    return None  # done\n");
        assert!(
            html.contains("<span class=\"tb-hl-keyword\">def</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-literal\">None</span>"),
            "{html}"
        );
        let html = spans("sh", "export OUT=$HOME/x # comment\n");
        assert!(
            html.contains("<span class=\"tb-hl-variable\">$HOME</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tb-hl-comment\"># comment</span>"),
            "{html}"
        );
    }

    #[test]
    fn text_is_escaped_and_kept_whole() {
        let code = "let a = b < c && \"<tag>\"; // é\n";
        let html = spans("rust", code);
        let text = html
            .split('<')
            .map(|part| part.split_once('>').map_or(part, |(_, t)| t))
            .collect::<String>();
        assert_eq!(tracebook_figures::unescape_html(&text), code);
    }
}
