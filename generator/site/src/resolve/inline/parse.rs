//! Finds `{{ function prompt args }}` in an article body and parses each into a [`Call`].

use crate::base::problem::Problem;
use crate::suggest;
use std::ops::Range;

/// One argument word or quoted string, with its body range.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    pub text: String,
    pub quoted: bool,
    pub span: Range<usize>,
}

/// What an inline value asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    Count,
    Token(Index),
    /// `{{ translation PROMPT }}`: an encoder-decoder's translation of the prompt.
    Translation,
    /// `{{ written PROMPT POSITION }}`: the token an encoder-decoder wrote at that position.
    Written(Index),
    Id(Index),
    Top(Index),
    TopProb(Index),
    Prob {
        text: String,
        span: Range<usize>,
    },
    Value {
        tensor: Arg,
        indices: Vec<Index>,
    },
    Shape {
        tensor: Arg,
    },
    /// `{{ ref ID }}`: a link to a figure or heading (the call's `prompt` is the id).
    Ref,
    /// `{{ cite KEY KEY ... }}`: works of the bibliography (the call's `prompt` is the first key).
    Cite(Vec<Arg>),
    /// `{{ sum PROMPT A[i] B[j] ... }}`: a worked sum of tensor entries.
    Sum(Vec<(Arg, Vec<Index>)>),
    /// `{{ value PROMPT EXPRESSION }}`: any claims expression that gives a number or a
    /// token's text (`top_prob(1) - top_prob(2)`, `text(guess(2))`), and its body range.
    Expression {
        expr: tracebook_claims::Expr,
        source: Range<usize>,
    },
    /// `{{ claim PROMPT EXPRESSION }}`: the expression as parsed and its body range.
    Claim {
        expr: tracebook_claims::Expr,
        source: Range<usize>,
    },
}

/// An integer argument (negative counts from the end) and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    pub value: i64,
    pub span: Range<usize>,
}

/// A parsed inline value.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The whole `{{ ... }}`, as a body range.
    pub range: Range<usize>,
    pub prompt: Arg,
    pub query: Query,
    /// How the number is written, when the author said (`| percent`, `| digits(3)`).
    pub format: Option<Format>,
}

/// A number's format, written after ` | ` at the end of an inline value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// As a percentage, rounded as every percentage of the site.
    Percent,
    /// With this many significant digits (1 to 8).
    Digits(usize),
}

/// The formats, for hints.
const FORMATS: &str = "`| percent` or `| digits(N)` (N from 1 to 8)";

/// The functions and how each is written, for hints.
pub const FUNCTIONS: &[(&str, &str)] = &[
    ("count", "{{ count PROMPT }}"),
    ("token", "{{ token PROMPT POSITION }}"),
    ("translation", "{{ translation PROMPT }}"),
    ("written", "{{ written PROMPT POSITION }}"),
    ("id", "{{ id PROMPT POSITION }}"),
    ("top", "{{ top PROMPT RANK }}"),
    ("top_prob", "{{ top_prob PROMPT RANK }}"),
    ("prob", "{{ prob PROMPT \" token\" }}"),
    (
        "value",
        "{{ value PROMPT TENSOR[i,j,...] }} or {{ value PROMPT EXPRESSION }}",
    ),
    ("shape", "{{ shape PROMPT TENSOR }}"),
    ("sum", "{{ sum PROMPT TENSOR[i,...] TENSOR[j,...] ... }}"),
    ("claim", "{{ claim PROMPT EXPRESSION }}"),
    ("ref", "{{ ref ID }}"),
    ("cite", "{{ cite KEY }}"),
];

/// Every `{{ ... }}` outside the ranges for which `literal` holds (code, math) and not
/// preceded by a backslash: its body range, or an error for an unclosed one.
pub fn find(text: &str, literal: impl Fn(usize) -> bool) -> Vec<Result<Range<usize>, Problem>> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("{{").map(|i| at + i) {
        at = i + 2;
        if literal(i) || text[..i].ends_with('\\') {
            continue;
        }
        let line_end = text[i..].find('\n').map_or(text.len(), |n| i + n);
        match text[i + 2..line_end].find("}}") {
            Some(close) => {
                let end = i + 2 + close + 2;
                found.push(Ok(i..end));
                at = end;
            }
            None => found.push(Err(Problem::new(
                i..i + 2,
                "this `{{` is not closed by `}}` on the same line",
            )
            .with_hint("an inline value reads {{ function prompt args }}; to show `{{` as text, write `\\{{`"))),
        }
    }
    found
}

/// Parses the inline value at `range` of `text` (a range that [`find`] returned), with its
/// format if it ends in ` | percent` or ` | digits(N)`.
pub fn parse(text: &str, range: Range<usize>) -> Result<Call, Problem> {
    let inner = range.start + 2..range.end - 2;
    let args = lex(text, inner.clone())?;
    let Some(pipe) = args.iter().position(|a| a.text == "|" && !a.quoted) else {
        return parse_inner(text, range, inner);
    };
    let is_claim = args.first().is_some_and(|f| f.text == "claim");
    if is_claim {
        return parse_inner(text, range, inner);
    }
    let format = match &args[pipe + 1..] {
        [word] => format(word)?,
        _ => {
            return Err(error(
                args[pipe].span.clone(),
                "a format is one word after `|`",
                Some(format!("write {FORMATS}")),
            ))
        }
    };
    let mut call = parse_inner(text, range, inner.start..args[pipe].span.start)?;
    if matches!(call.query, Query::Ref | Query::Cite(_)) {
        return Err(error(
            args[pipe].span.clone(),
            "only numbers take a format",
            Some("`ref` and `cite` write their own words".into()),
        ));
    }
    call.format = Some(format);
    Ok(call)
}

/// `percent` or `digits(N)`.
fn format(word: &Arg) -> Result<Format, Problem> {
    if word.text == "percent" {
        return Ok(Format::Percent);
    }
    let digits = word
        .text
        .strip_prefix("digits(")
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .filter(|n| (1..=8).contains(n));
    match digits {
        Some(n) => Ok(Format::Digits(n)),
        None => {
            let hint = suggest::did_you_mean(&word.text, ["percent", "digits(3)"])
                .unwrap_or_else(|| format!("write {FORMATS}"));
            Err(error(
                word.span.clone(),
                format!("unknown format `{}`", word.text),
                Some(hint),
            ))
        }
    }
}

/// Parses the inline value whose words are `text[inner]`, `range` being the whole `{{ ... }}`.
fn parse_inner(text: &str, range: Range<usize>, inner: Range<usize>) -> Result<Call, Problem> {
    let mut args = lex(text, inner.clone())?;
    if args.is_empty() {
        return Err(error(range, "empty inline value", Some(usage_list())));
    }
    let function = args.remove(0);
    let Some(&(name, usage)) = FUNCTIONS.iter().find(|(n, _)| *n == function.text) else {
        let names: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
        let hint = suggest::hint(&function.text, &names, "inline value functions are");
        return Err(error(
            function.span,
            format!("unknown inline value function `{}`", function.text),
            hint,
        ));
    };
    if name == "claim" {
        return claim(text, range, inner, args, usage);
    }
    if name == "value" && !(args.len() == 2 && is_entry(&args[1].text)) {
        return expression(text, range, inner, args, usage);
    }
    if name == "sum" {
        return sum(range, args, usage);
    }
    if name == "ref" {
        let [id] = <[Arg; 1]>::try_from(args).map_err(|args| {
            error(
                range.clone(),
                format!("`ref` takes one id, not {}", args.len()),
                Some(format!("write {usage}, with the id of a figure (`id = \"fig-heads\"` in its block) or a heading (`## Scores {{#scores}}`)")),
            )
        })?;
        return Ok(Call {
            range,
            prompt: id,
            query: Query::Ref,
            format: None,
        });
    }
    if name == "cite" {
        return cite(range, args, usage);
    }
    let wanted = if name == "count" || name == "translation" {
        1
    } else {
        2
    };
    if args.len() != wanted {
        let message = format!(
            "`{name}` takes {wanted} argument{}, not {}",
            if wanted == 1 { "" } else { "s" },
            args.len()
        );
        return Err(error(range, message, Some(format!("write {usage}"))));
    }
    let prompt = unquoted_prompt(args.remove(0), usage)?;
    let query = query(name, args.pop(), usage)?;
    Ok(Call {
        range,
        prompt,
        query,
        format: None,
    })
}

/// The prompt argument, which is named, not quoted.
fn unquoted_prompt(prompt: Arg, usage: &str) -> Result<Arg, Problem> {
    if prompt.quoted {
        return Err(error(
            prompt.span,
            "a prompt is named without quotes",
            Some(format!("write {usage}")),
        ));
    }
    Ok(prompt)
}

/// `{{ claim PROMPT EXPRESSION }}`: everything after the prompt is the expression.
fn claim(
    text: &str,
    range: Range<usize>,
    inner: Range<usize>,
    args: Vec<Arg>,
    usage: &str,
) -> Result<Call, Problem> {
    let needs = "`claim` takes a prompt and what must hold of its trace";
    let example = "{{ claim animal argmax(logits.last) == id(3) }}";
    let (prompt, expr, source) =
        prompt_and_expression(text, &range, inner, args, usage, needs, example)?;
    Ok(Call {
        range,
        prompt,
        query: Query::Claim { expr, source },
        format: None,
    })
}

/// The prompt and the claims expression after it (with its trimmed body range), for `claim` and
/// an expression `value`; `needs` and `example` say what is missing when there is no expression.
fn prompt_and_expression(
    text: &str,
    range: &Range<usize>,
    inner: Range<usize>,
    mut args: Vec<Arg>,
    usage: &str,
    needs: &str,
    example: &str,
) -> Result<(Arg, tracebook_claims::Expr, Range<usize>), Problem> {
    if args.len() < 2 {
        return Err(error(
            range.clone(),
            needs,
            Some(format!("write {usage}, e.g. {example}")),
        ));
    }
    let prompt = unquoted_prompt(args.remove(0), usage)?;
    let source = args[0].span.start..inner.end;
    let expr = tracebook_claims::parse(text, source.clone())?;
    let source = source.start..source.start + text[source].trim_end().len();
    Ok((prompt, expr, source))
}

/// `TENSOR[i,j,...]` with whole-number indices: one entry, read as `value` always read it.
fn is_entry(word: &str) -> bool {
    let Some((name, rest)) = word.split_once('[') else {
        return false;
    };
    let name_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    name_ok
        && rest
            .strip_suffix(']')
            .is_some_and(|inside| inside.split(',').all(|i| i.trim().parse::<i64>().is_ok()))
}

/// `{{ value PROMPT EXPRESSION }}`: everything after the prompt is a claims expression, which
/// the claims' evaluator computes (one table of functions for claims and values).
fn expression(
    text: &str,
    range: Range<usize>,
    inner: Range<usize>,
    args: Vec<Arg>,
    usage: &str,
) -> Result<Call, Problem> {
    let needs = "`value` takes a prompt and what to compute from its trace";
    let example = "{{ value robots blocks.0.attn.pattern[0,-1,2] }} or {{ value robots top_prob(1) - top_prob(2) | percent }}";
    let (prompt, expr, source) =
        prompt_and_expression(text, &range, inner, args, usage, needs, example)?;
    Ok(Call {
        range,
        prompt,
        query: Query::Expression { expr, source },
        format: None,
    })
}

/// `{{ cite KEY KEY ... }}`: one or more keys of the bibliography, as written.
fn cite(range: Range<usize>, args: Vec<Arg>, usage: &str) -> Result<Call, Problem> {
    let Some(first) = args.first().cloned() else {
        return Err(error(
            range,
            "`cite` takes the key of a work in the bibliography",
            Some(format!("write {usage}, or {{{{ cite KEY1 KEY2 }}}} for several works; keys are those of the bibliography file named in tracebook.toml")),
        ));
    };
    if let Some(quoted) = args.iter().find(|a| a.quoted) {
        return Err(error(
            quoted.span.clone(),
            "a citation key is written without quotes",
            Some(format!("write {usage}")),
        ));
    }
    Ok(Call {
        range,
        prompt: first,
        query: Query::Cite(args),
        format: None,
    })
}

/// `{{ sum PROMPT TERM TERM ... }}`: at least two tensor entries.
fn sum(range: Range<usize>, mut args: Vec<Arg>, usage: &str) -> Result<Call, Problem> {
    if args.len() < 3 {
        return Err(error(
            range,
            "`sum` takes a prompt and at least two tensor entries to add",
            Some(format!(
                "write {usage}, e.g. {{{{ sum robots embed[1,0] pos_embed[1,0] }}}}"
            )),
        ));
    }
    let prompt = unquoted_prompt(args.remove(0), usage)?;
    let terms = args
        .into_iter()
        .map(|arg| match tensor_with_indices(arg, usage)? {
            Query::Value { tensor, indices } => Ok((tensor, indices)),
            _ => unreachable!("tensor_with_indices returns a value query"),
        })
        .collect::<Result<_, Problem>>()?;
    Ok(Call {
        range,
        prompt,
        query: Query::Sum(terms),
        format: None,
    })
}

fn query(name: &str, arg: Option<Arg>, usage: &str) -> Result<Query, Problem> {
    let Some(arg) = arg else {
        return Ok(match name {
            "translation" => Query::Translation,
            _ => Query::Count,
        });
    };
    Ok(match name {
        "token" => Query::Token(integer(&arg, usage)?),
        "written" => Query::Written(integer(&arg, usage)?),
        "id" => Query::Id(integer(&arg, usage)?),
        "top" => Query::Top(rank(&arg, usage)?),
        "top_prob" => Query::TopProb(rank(&arg, usage)?),
        "prob" if arg.quoted => Query::Prob {
            text: arg.text,
            span: arg.span,
        },
        "prob" => {
            let hint = format!("put the token's text in quotes, with its leading space if it has one: {{{{ prob PROMPT \" {}\" }}}}", arg.text);
            return Err(error(
                arg.span,
                "`prob` takes the token's text in double quotes",
                Some(hint),
            ));
        }
        "value" => tensor_with_indices(arg, usage)?,
        _ => Query::Shape { tensor: arg },
    })
}

fn integer(arg: &Arg, usage: &str) -> Result<Index, Problem> {
    match arg.text.parse::<i64>() {
        Ok(value) if !arg.quoted => Ok(Index { value, span: arg.span.clone() }),
        _ => Err(error(
            arg.span.clone(),
            format!("expected a whole number, not `{}`", arg.text),
            Some(format!("write {usage}; positions count from 0, and negative ones from the end (-1 is the last)")),
        )),
    }
}

fn rank(arg: &Arg, usage: &str) -> Result<Index, Problem> {
    let index = integer(arg, usage)?;
    if index.value == 0 {
        return Err(error(
            index.span,
            "ranks start at 1 (the likeliest token)",
            Some("use 1 for the likeliest next token, -1 for the last one kept".into()),
        ));
    }
    Ok(index)
}

/// `blocks.0.attn.pattern[0, -1, 2]` → the tensor name and its indices.
fn tensor_with_indices(arg: Arg, usage: &str) -> Result<Query, Problem> {
    let (Some(open), true) = (arg.text.find('['), arg.text.ends_with(']')) else {
        return Err(error(
            arg.span,
            format!("`value` needs indices: `{}[i,j,...]`", arg.text),
            Some(format!("write {usage}")),
        ));
    };
    let start = arg.span.start;
    let tensor = Arg {
        text: arg.text[..open].to_string(),
        quoted: false,
        span: start..start + open,
    };
    let mut indices = Vec::new();
    let mut at = open + 1;
    for piece in arg.text[open + 1..arg.text.len() - 1].split(',') {
        let lead = piece.len() - piece.trim_start().len();
        let span = start + at + lead..start + at + lead + piece.trim().len();
        let piece_arg = Arg {
            text: piece.trim().to_string(),
            quoted: false,
            span,
        };
        indices.push(integer(&piece_arg, usage)?);
        at += piece.len() + 1;
    }
    Ok(Query::Value { tensor, indices })
}

/// Splits `text[range]` into words and quoted strings; `[...]` keeps its spaces in one word.
fn lex(text: &str, range: Range<usize>) -> Result<Vec<Arg>, Problem> {
    let mut args = Vec::new();
    let bytes = text.as_bytes();
    let mut i = range.start;
    while i < range.end {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else if bytes[i] == b'"' {
            let (arg, next) = quoted(text, i, range.end)?;
            args.push(arg);
            i = next;
        } else {
            let start = i;
            let mut depth = 0;
            while i < range.end && (depth > 0 || !bytes[i].is_ascii_whitespace()) {
                depth += match bytes[i] {
                    b'[' => 1,
                    b']' => -1,
                    _ => 0,
                };
                i += 1;
            }
            args.push(Arg {
                text: text[start..i].to_string(),
                quoted: false,
                span: start..i,
            });
        }
    }
    Ok(args)
}

/// A double-quoted string starting at `start`; `\"`, `\\`, `\n` and `\t` are escapes.
fn quoted(text: &str, start: usize, end: usize) -> Result<(Arg, usize), Problem> {
    let mut value = String::new();
    let mut chars = text[start + 1..end].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let next = start + 1 + i + 1;
                return Ok((
                    Arg {
                        text: value,
                        quoted: true,
                        span: start..next,
                    },
                    next,
                ));
            }
            '\\' => match chars.next().map(|(_, c)| c) {
                Some('n') => value.push('\n'),
                Some('t') => value.push('\t'),
                Some(other) => value.push(other),
                None => break,
            },
            c => value.push(c),
        }
    }
    Err(error(
        start..end,
        "this quoted text has no closing `\"`",
        Some("close the quotes before `}}`".into()),
    ))
}

fn error(span: Range<usize>, message: impl Into<String>, hint: Option<String>) -> Problem {
    Problem::new(span, message).with_optional_hint(hint)
}

fn usage_list() -> String {
    let forms: Vec<&str> = FUNCTIONS.iter().map(|(_, u)| *u).collect();
    format!("inline values are {}", forms.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(src: &str) -> Result<Call, Problem> {
        parse(src, 0..src.len())
    }

    #[test]
    fn finds_values_but_not_escaped_literal_or_unclosed_ones() {
        let text = "a {{ count p }} b \\{{ no }} c {{ token p -1 }}\nd {{ open\n";
        let found = find(text, |_| false);
        assert_eq!(found.len(), 3);
        assert_eq!(&text[found[0].clone().unwrap()], "{{ count p }}");
        assert_eq!(&text[found[1].clone().unwrap()], "{{ token p -1 }}");
        assert!(found[2]
            .as_ref()
            .unwrap_err()
            .message
            .contains("not closed"));
        let at = text.find("{{ count").unwrap();
        assert_eq!(find(text, |i| i == at).len(), 2);
    }

    #[test]
    fn parses_every_function() {
        assert_eq!(call("{{ count robots }}").unwrap().query, Query::Count);
        assert_eq!(
            call("{{ token robots -1 }}").unwrap().query,
            Query::Token(Index {
                value: -1,
                span: 16..18
            })
        );
        assert!(matches!(
            call("{{ id robots 0 }}").unwrap().query,
            Query::Id(Index { value: 0, .. })
        ));
        assert!(matches!(
            call("{{ top robots 2 }}").unwrap().query,
            Query::Top(Index { value: 2, .. })
        ));
        assert!(matches!(
            call("{{ top_prob robots 1 }}").unwrap().query,
            Query::TopProb(_)
        ));
        let prob = call("{{ prob animal \" tired\" }}").unwrap();
        assert_eq!(prob.prompt.text, "animal");
        assert!(matches!(prob.query, Query::Prob { ref text, .. } if text == " tired"));
        let value = call("{{ value p blocks.0.attn.pattern[0, -1,2] }}").unwrap();
        let Query::Value { tensor, indices } = value.query else {
            panic!()
        };
        assert_eq!(tensor.text, "blocks.0.attn.pattern");
        let got: Vec<_> = indices.iter().map(|i| (i.value, i.span.clone())).collect();
        let src = "{{ value p blocks.0.attn.pattern[0, -1,2] }}";
        assert_eq!(&src[got[1].1.clone()], "-1");
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), [0, -1, 2]);
        assert!(matches!(
            call("{{ shape p logits.last }}").unwrap().query,
            Query::Shape { .. }
        ));
        let Query::Sum(terms) = call("{{ sum p embed[1,0] pos_embed[1,-1] }}")
            .unwrap()
            .query
        else {
            panic!()
        };
        let names: Vec<_> = terms
            .iter()
            .map(|(t, i)| (t.text.as_str(), i[1].value))
            .collect();
        assert_eq!(names, [("embed", 0), ("pos_embed", -1)]);
        let one = call("{{ sum p embed[1,0] }}").unwrap_err();
        assert!(one.message.contains("at least two"), "{}", one.message);
        let bare = call("{{ sum p embed[1,0] pos_embed }}").unwrap_err();
        assert!(bare.message.contains("needs indices"), "{}", bare.message);
        let Query::Cite(keys) = call("{{ cite vaswani2017 ba2016 }}").unwrap().query else {
            panic!()
        };
        let keys: Vec<_> = keys
            .iter()
            .map(|k| (k.text.as_str(), k.span.clone()))
            .collect();
        assert_eq!(keys, [("vaswani2017", 8..19), ("ba2016", 20..26)]);
        assert!(call("{{ cite }}")
            .unwrap_err()
            .message
            .contains("takes the key"));
        assert!(call("{{ cite \"a\" }}")
            .unwrap_err()
            .message
            .contains("without quotes"));
    }

    #[test]
    fn quoted_strings_keep_escapes() {
        let c = call(r#"{{ prob p "say \"hi\"\n" }}"#).unwrap();
        assert!(matches!(c.query, Query::Prob { ref text, .. } if text == "say \"hi\"\n"));
    }

    #[test]
    fn errors_name_the_problem_and_the_fix() {
        let e = call("{{ tokn p 1 }}").unwrap_err();
        assert_eq!(e.message, "unknown inline value function `tokn`");
        assert_eq!(e.hint.as_deref(), Some("did you mean `token`?"));
        assert_eq!(e.span, 3..7);
        let e = call("{{ token p }}").unwrap_err();
        assert_eq!(e.message, "`token` takes 2 arguments, not 1");
        let e = call("{{ token p x }}").unwrap_err();
        assert_eq!(e.message, "expected a whole number, not `x`");
        assert_eq!(
            call("{{ top p 0 }}").unwrap_err().message,
            "ranks start at 1 (the likeliest token)"
        );
        assert!(call("{{ prob p tired }}")
            .unwrap_err()
            .hint
            .unwrap()
            .contains("\" tired\""));
        // Not one entry: an expression, whose value must be one number (eval says so).
        assert!(matches!(
            call("{{ value p logits.last }}").unwrap().query,
            Query::Expression { .. }
        ));
        assert!(matches!(
            call("{{ value p logits.last[0,3] }}").unwrap().query,
            Query::Value { .. }
        ));
        assert!(call("{{ prob p \"open }}")
            .unwrap_err()
            .message
            .contains("no closing"));
        assert_eq!(call("{{ }}").unwrap_err().message, "empty inline value");
        assert_eq!(
            call("{{ count \"p\" }}").unwrap_err().message,
            "a prompt is named without quotes"
        );
    }
}
