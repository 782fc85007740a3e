//! Computes an inline value from its prompt's trace; every error points at the argument at fault.

use super::format::{significant, CheckedClaim, Outcome, Value};
use super::parse::{Arg, Call, Format, Index, Query};
use crate::base::problem::Problem;
use crate::load::citations::Citations;
use crate::load::lazy_tokenizer::LazyTokenizer;
use crate::load::words::Words;
use crate::resolve::refs::{RefIndex, RefKind, RefMiss};
use crate::resolve::scope::PromptScopeView;
use crate::suggest;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;
use tracebook_claims::{decide, Cause, Decoded, Evaluator, ExprKind, Val, Vocabulary};
use tracebook_tokenizer::Vocab;
use tracebook_trace::{exact_math, Tensor, Trace};

/// What an inline value needs besides its trace.
pub struct EvalContext<'a> {
    pub scope: &'a PromptScopeView<'a>,
    pub tokenizer: &'a LazyTokenizer,
    /// The article body the values are written in (claims quote themselves from it).
    pub body: &'a str,
    /// The last position's logits and their log-sum-exp, per prompt name (a page sees one
    /// trace per name), computed once per page: a page may cite hundreds of probabilities
    /// of the same prompt.
    last_logits: RefCell<HashMap<String, Rc<LastLogits>>>,
    /// The tensors claims have read, per prompt name, shared by the page's claims.
    decoded: RefCell<HashMap<String, Rc<Decoded>>>,
    /// What `{{ ref ID }}` points at, seen from this page.
    pub refs: Option<Refs<'a>>,
    /// What `{{ cite KEY }}` cites from (None: citing is not available, as in fuzzing).
    pub citations: Option<&'a Citations>,
}

/// The site's reference targets and the page that refers to them.
#[derive(Clone, Copy)]
pub struct Refs<'a> {
    pub index: &'a RefIndex,
    /// The referring page's output path.
    pub page: &'a str,
    pub words: &'a Words,
}

impl<'a> EvalContext<'a> {
    pub fn new(
        scope: &'a PromptScopeView<'a>,
        tokenizer: &'a LazyTokenizer,
        body: &'a str,
    ) -> Self {
        EvalContext {
            scope,
            tokenizer,
            body,
            last_logits: RefCell::default(),
            decoded: RefCell::default(),
            refs: None,
            citations: None,
        }
    }
}

impl EvalContext<'_> {
    fn text(&self, span: &Range<usize>) -> String {
        self.body.get(span.clone()).unwrap_or_default().to_string()
    }
}

/// The site's tokenizer as a claim's vocabulary (its word list only: loading the whole
/// tokenizer is never needed to name a token).
struct TokenizerVocabulary<'a>(&'a LazyTokenizer);

impl Vocabulary for TokenizerVocabulary<'_> {
    fn id(&self, text: &str) -> Option<u32> {
        self.0.vocab().ok()?.id(text)
    }

    fn text(&self, id: u32) -> Option<String> {
        self.0.vocab().ok()?.text(id).map(str::to_string)
    }
}

/// Every logit after the prompt, and log Σ exp over them.
struct LastLogits {
    logits: Vec<f32>,
    /// The last position's `logits.lse`.
    log_sum_exp: f32,
}

/// The value in the call's format, or None when the prompt's trace is unavailable (reported
/// at its declaration).
pub fn evaluate(call: &Call, cx: &EvalContext<'_>) -> Result<Option<Value>, Problem> {
    let value = evaluate_as_is(call, cx)?;
    match (call.format, value) {
        (Some(format), Some(value)) => formatted(value, format, call).map(Some),
        (_, value) => Ok(value),
    }
}

/// `value` written in `format`: a number or probability as a percentage, or with so many
/// significant digits; anything else is an error at the format.
fn formatted(value: Value, format: Format, call: &Call) -> Result<Value, Problem> {
    let number = match &value {
        Value::Number(x) => Some((f64::from(*x), false)),
        Value::Probability(p) => Some((*p, true)),
        _ => None,
    };
    let Some((x, probability)) = number else {
        return Err(Problem::new(
            call.range.clone(),
            format!(
                "only numbers take a format, and this gives {}",
                value.kind()
            ),
        )
        .with_hint(
            "a format follows `value`, `prob`, `top_prob`: `{{ value p x[0] | digits(3) }}`",
        ));
    };
    let text = match format {
        Format::Percent => tracebook_figures::percent(x),
        Format::Digits(n) if probability => format!("{}%", significant(x * 100.0, n as i32)),
        Format::Digits(n) => significant(x, n as i32),
    };
    Ok(Value::Formatted {
        text,
        inner: Box::new(value),
    })
}

/// The value as the function gives it.
fn evaluate_as_is(call: &Call, cx: &EvalContext<'_>) -> Result<Option<Value>, Problem> {
    if let Query::Ref = call.query {
        return reference(&call.prompt, cx).map(Some);
    }
    if let Query::Cite(keys) = &call.query {
        return cite(keys, cx);
    }
    let Some(trace) = cx
        .scope
        .resolve(&call.prompt.text, call.prompt.span.clone())?
    else {
        return Ok(match &call.query {
            Query::Claim { source, .. } => Some(Value::Claim(CheckedClaim {
                source: cx.text(source),
                span: source.clone(),
                prompt: call.prompt.text.clone(),
                outcome: Outcome::Unchecked(format!(
                    "the trace of `{}` is missing or stale",
                    call.prompt.text
                )),
            })),
            _ => None,
        });
    };
    let on = On {
        trace,
        name: &call.prompt.text,
        span: call.prompt.span.clone(),
        cx,
    };
    let value = match &call.query {
        Query::Count => Value::Integer(trace.meta.tokens.len() as i64),
        Query::Token(i) => Value::Token(trace.meta.tokens[on.position(i)?].text.clone()),
        Query::Translation => Value::Text(on.translation()?.text.clone()),
        Query::Written(i) => Value::Token(trace.meta.generation[on.written(i)?].text.clone()),
        Query::Id(i) => Value::Integer(i64::from(trace.meta.tokens[on.position(i)?].id)),
        Query::Top(rank) => Value::Token(on.token_text(on.top_id(rank)?)?),
        Query::TopProb(rank) => {
            Value::Probability(on.probability(on.top_id(rank)?, rank.span.clone())?)
        }
        Query::Prob { text, span } => {
            let id = match known_token(trace, text) {
                Some(id) => id,
                None => vocab_token(cx.tokenizer, text, span.clone())?,
            };
            Value::Probability(on.probability(id, span.clone())?)
        }
        Query::Value { tensor, indices } => Value::Number(on.entry(tensor, indices)?),
        Query::Sum(terms) => Value::Sum(
            terms
                .iter()
                .map(|(tensor, indices)| on.entry(tensor, indices))
                .collect::<Result<_, _>>()?,
        ),
        Query::Shape { tensor } => Value::Shape(on.tensor(tensor)?.shape),
        Query::Ref | Query::Cite(_) => unreachable!("no prompt: evaluated above"),
        Query::Expression { expr, .. } => {
            with_evaluator(trace, call, cx, |ev| computed(ev.eval(expr)?, expr))?
        }
        Query::Claim { expr, source } => {
            // A claim the trace cannot answer (a token it names is not in the prompt, a
            // position past its end) is not true of it: after a re-trace on another text or
            // model, a sentence to revise like any false claim (so `--claims warn` builds).
            let outcome = match with_evaluator(trace, call, cx, |ev| decide(ev, expr, cx.body)) {
                Ok(verdict) if verdict.holds => Outcome::Holds(verdict.detail),
                Ok(verdict) => Outcome::Fails(verdict.detail),
                Err(problem) if problem.cause.is_some() => {
                    Outcome::Fails(problem.with_hint_inline())
                }
                Err(problem) => return Err(problem),
            };
            Value::Claim(CheckedClaim {
                source: cx.text(source),
                span: source.clone(),
                prompt: call.prompt.text.clone(),
                outcome,
            })
        }
    };
    Ok(Some(value))
}

/// `f` of the claims' evaluator on the call's prompt, sharing the page's decoded tensors of
/// that trace with every other claim and expression on it.
fn with_evaluator<T>(
    trace: &tracebook_trace::Trace,
    call: &Call,
    cx: &EvalContext<'_>,
    f: impl FnOnce(&Evaluator<'_>) -> Result<T, Problem>,
) -> Result<T, Problem> {
    let vocab = TokenizerVocabulary(cx.tokenizer);
    let decoded = Rc::clone(
        cx.decoded
            .borrow_mut()
            .entry(call.prompt.text.clone())
            .or_default(),
    );
    let ev = Evaluator::sharing(trace, &call.prompt.text, &vocab, decoded);
    f(&ev)
}

/// What a `{{ value PROMPT EXPRESSION }}` prints of the expression's value: a probability
/// (of `prob` or `top_prob`) as a percentage, another number as a number, a text as a token;
/// anything else is an error that says how to get one number.
fn computed(value: Val, expr: &tracebook_claims::Expr) -> Result<Value, Problem> {
    let probability =
        matches!(&expr.kind, ExprKind::Call { name, .. } if name == "prob" || name == "top_prob");
    let one = match &value {
        Val::Num { value, .. } => Some(*value),
        Val::Tensor(a) if a.data.len() == 1 => Some(a.data[0]),
        _ => None,
    };
    match (one, value) {
        (Some(p), _) if probability => Ok(Value::Probability(p)),
        (Some(x), _) => Ok(Value::Number(x as f32)),
        (None, Val::Text(text)) => Ok(Value::Token(text)),
        (None, Val::Bool(_)) => Err(Problem::new(
            expr.span.clone(),
            "this is true or false, not a value to print",
        )
        .with_hint("a statement the build checks is a claim: {{ claim PROMPT EXPRESSION }}")),
        (None, other) => Err(Problem::new(
            expr.span.clone(),
            format!("this is {}, not one number to print", other.kind()),
        )
        .with_hint("index one entry (x[0, -1]) or reduce it: max(x), min(x), sum(x), mean(x); for a token, text(guess(1))")),
    }
}

/// `{{ ref ID }}`: "Figure 3" (or the heading's text) linked to its target; on another page
/// "Figure 2 of *Page*".
fn reference(id: &Arg, cx: &EvalContext<'_>) -> Result<Value, Problem> {
    let Some(refs) = cx.refs else {
        return Err(Problem::new(id.span.clone(), "`ref` is not available here"));
    };
    let target = match refs.index.find(&id.text, refs.page) {
        Ok(target) => target,
        Err(RefMiss::Ambiguous(forms)) => {
            return Err(Problem::new(
                id.span.clone(),
                format!(
                    "headings of {} pages have the id `{}`",
                    forms.len(),
                    id.text
                ),
            )
            .with_hint(format!(
                "name the page: {}",
                forms
                    .iter()
                    .map(|f| format!("{{{{ ref {f} }}}}"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )))
        }
        Err(RefMiss::Unknown) => {
            let ids = refs.index.ids();
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            let hint = suggest::hint(&id.text, &ids, "ids are").unwrap_or_else(|| {
                "give the figure an id (`id = \"fig-heads\"` in its block); a heading is named by its id, written (`## Scores {#scores}`) or automatic (`## Attention scores` is `attention-scores`, and `page#attention-scores` from another page), an equation by its own (`$$ ... $$ {#eq-softmax}`)".into()
            });
            return Err(Problem::new(
                id.span.clone(),
                format!("no figure, heading or equation has the id `{}`", id.text),
            )
            .with_hint(hint));
        }
    };
    let words = refs.words;
    let (name, name_html) = match &target.kind {
        RefKind::Figure(n) => {
            let text = format!("{} {n}", words.get("figure"));
            (text.clone(), crate::base::escape::html(&text))
        }
        RefKind::Equation(n) => {
            let text = format!("{} ({n})", words.get("equation"));
            (text.clone(), crate::base::escape::html(&text))
        }
        RefKind::Section(title) => (
            format!("“{title}”"),
            format!("“{}”", crate::base::escape::html(title)),
        ),
    };
    let same_page = target.page == refs.page;
    let href = if same_page {
        format!("#{}", target.anchor)
    } else {
        format!(
            "{}#{}",
            crate::base::paths::relative(crate::base::paths::parent(refs.page), &target.page),
            target.anchor
        )
    };
    let (text, inner) = if same_page {
        (name, name_html)
    } else {
        let key = match target.kind {
            RefKind::Figure(_) | RefKind::Equation(_) => ("figure_on_page", "figure"),
            RefKind::Section(_) => ("section_on_page", "section"),
        };
        let page_html = format!("<em>{}</em>", crate::base::escape::html(&target.page_title));
        (
            words.fill(key.0, &[(key.1, &name), ("page", &target.page_title)]),
            words.fill_html(key.0, &[(key.1, &name_html), ("page", &page_html)]),
        )
    };
    Ok(Value::Ref {
        html: format!(
            "<a class=\"tb-ref\" href=\"{}\">{inner}</a>",
            crate::base::escape::html(&href)
        ),
        text,
    })
}

/// `{{ cite KEY ... }}`: checks every key; the citation's words come once the page's citations
/// are all known. None when the bibliography could not be read (reported at the file).
fn cite(keys: &[Arg], cx: &EvalContext<'_>) -> Result<Option<Value>, Problem> {
    let span = keys.first().map_or(0..0, |k| k.span.clone());
    let bibliography = match cx.citations {
        Some(Citations::Ready(bibliography)) => bibliography,
        Some(Citations::Broken) => return Ok(None),
        Some(Citations::Off) | None => {
            return Err(Problem::new(span, "this site has no bibliography to cite from").with_hint(
                "name one in tracebook.toml: bibliography = \"references.bib\" (BibTeX or BibLaTeX; a .yml file is read as Hayagriva YAML)",
            ))
        }
    };
    if let Some(unknown) = keys.iter().find(|k| !bibliography.contains(&k.text)) {
        let known: Vec<&str> = bibliography.keys().collect();
        let hint = suggest::hint(
            &unknown.text,
            &known,
            &format!("keys in {} are", bibliography.file),
        )
        .unwrap_or_else(|| format!("{} has no entries yet", bibliography.file));
        return Err(Problem::new(
            unknown.span.clone(),
            format!("{} has no entry `{}`", bibliography.file, unknown.text),
        )
        .with_hint(hint));
    }
    Ok(Some(Value::Cite {
        keys: keys.iter().map(|k| k.text.clone()).collect(),
        text: String::new(),
        html: String::new(),
    }))
}

/// One prompt's trace and where the prompt was named.
struct On<'a> {
    trace: &'a Trace,
    name: &'a str,
    span: Range<usize>,
    cx: &'a EvalContext<'a>,
}

impl On<'_> {
    /// The translation of an encoder-decoder's trace, or why there is none.
    fn translation(&self) -> Result<&tracebook_trace::Translation, Problem> {
        self.trace.meta.translation.as_ref().ok_or_else(|| {
            Problem::new(
                self.span.clone(),
                format!(
                    "prompt `{}` was traced with a decoder-only model ({}), which writes no \
                     translation",
                    self.name,
                    self.trace.meta.model.shown()
                ),
            )
            .with_hint(
                "`translation` and `written` read an encoder-decoder's trace (Marian, BART); \
                 for a decoder-only model's continuation use `top`, or a `generation` figure",
            )
        })
    }

    /// The decoder position `index` of an encoder-decoder's trace (negative from the end).
    fn written(&self, index: &Index) -> Result<usize, Problem> {
        self.translation()?;
        let n = self.trace.meta.generation.len();
        resolve(index.value, n).ok_or_else(|| {
            Problem::new(
                index.span.clone(),
                format!(
                    "position {} is out of range: the translation of `{}` has {n} tokens",
                    index.value, self.name
                ),
            )
            .with_cause(Cause::OutOfRange)
            .with_hint(format!(
                "positions go from 0 to {}, or from -{n} to -1 counting from the end",
                n as i64 - 1
            ))
        })
    }

    fn position(&self, index: &Index) -> Result<usize, Problem> {
        let n = self.trace.meta.tokens.len();
        resolve(index.value, n).ok_or_else(|| {
            Problem::new(
                index.span.clone(),
                format!(
                    "position {} is out of range: prompt `{}` has {n} tokens",
                    index.value, self.name
                ),
            )
            .with_cause(Cause::OutOfRange)
            .with_hint(format!(
                "positions go from 0 to {}, or from -{n} to -1 counting from the end",
                n as i64 - 1
            ))
        })
    }

    /// The id of the `rank`-th likeliest next token after the prompt.
    fn top_id(&self, rank: &Index) -> Result<u32, Problem> {
        let ids = self.read("logits.topk_ids")?;
        let k = ids.shape.last().copied().unwrap_or(0);
        let rank_index = if rank.value > 0 {
            rank.value - 1
        } else {
            rank.value
        };
        let i = resolve(rank_index, k).ok_or_else(|| {
            Problem::new(rank.span.clone(), format!("rank {} is out of range: the trace keeps the top {k} next tokens", rank.value))
                .with_hint(format!("use 1 to {k}; for more, raise top_k under [trace] in tracebook.toml and run `tracebook trace`"))
        })?;
        Ok(ids.data[ids.data.len() - k + i] as u32)
    }

    fn token_text(&self, id: u32) -> Result<String, Problem> {
        self.trace
            .meta
            .token_texts
            .get(&id)
            .cloned()
            .ok_or_else(|| {
                self.broken(format!(
                    "the trace of `{}` does not record the text of token {id}",
                    self.name
                ))
            })
    }

    /// Probability of token `id` after the prompt: softmax over every logit of `logits.last`.
    fn probability(&self, id: u32, span: Range<usize>) -> Result<f64, Problem> {
        let last = self.last_logits()?;
        let Some(&logit) = last.logits.get(id as usize) else {
            return Err(Problem::new(
                span,
                format!(
                    "token {id} is outside the model's vocabulary of {}",
                    last.logits.len()
                ),
            ));
        };
        Ok(f64::from(exact_math::prob(logit, last.log_sum_exp)))
    }

    /// `logits.last` with its log-sum-exp, decoded and summed once per page.
    fn last_logits(&self) -> Result<Rc<LastLogits>, Problem> {
        if let Some(found) = self.cx.last_logits.borrow().get(self.name) {
            return Ok(Rc::clone(found));
        }
        let logits = self.read("logits.last")?.data;
        let last = self.trace.meta.tokens.len().saturating_sub(1);
        let log_sum_exp = self
            .trace
            .lse_at(last)
            .map_err(|e| self.broken(e.to_string()))?;
        let last = Rc::new(LastLogits {
            logits,
            log_sum_exp,
        });
        self.cx
            .last_logits
            .borrow_mut()
            .insert(self.name.to_string(), Rc::clone(&last));
        Ok(last)
    }

    fn entry(&self, tensor: &Arg, indices: &[Index]) -> Result<f32, Problem> {
        let t = self.tensor(tensor)?;
        if indices.len() != t.shape.len() {
            let span =
                tensor.span.start..indices.last().map_or(tensor.span.end, |i| i.span.end + 1);
            return Err(Problem::new(
                span,
                format!(
                    "`{}` has {} (shape {}), but {} were given",
                    tensor.text,
                    plural(t.shape.len(), "dimension"),
                    shape_text(&t.shape),
                    plural(indices.len(), "index")
                ),
            )
            .with_hint("give one index per dimension; negative ones count from the end"));
        }
        for (axis, (index, &size)) in indices.iter().zip(&t.shape).enumerate() {
            if resolve(index.value, size).is_none() {
                return Err(Problem::new(
                    index.span.clone(),
                    format!(
                        "index {} is out of range for dimension {axis} of `{}` (size {size})",
                        index.value, tensor.text
                    ),
                )
                .with_cause(Cause::OutOfRange)
                .with_hint(format!(
                    "use 0 to {}, or -{size} to -1 counting from the end",
                    size as i64 - 1
                )));
            }
        }
        let values: Vec<i64> = indices.iter().map(|i| i.value).collect();
        t.get(&values)
            .map_err(|e| Problem::new(tensor.span.clone(), e.to_string()))
    }

    fn tensor(&self, tensor: &Arg) -> Result<Tensor, Problem> {
        if self.trace.shape(&tensor.text).is_none() {
            let names: Vec<&str> = self.trace.tensor_names().collect();
            let hint =
                suggest::did_you_mean(&tensor.text, names.iter().copied()).unwrap_or_else(|| {
                    "tensor names are listed by `tracebook inspect traces/NAME.json`".into()
                });
            return Err(Problem::new(
                tensor.span.clone(),
                format!(
                    "the trace of `{}` has no tensor `{}`",
                    self.name, tensor.text
                ),
            )
            .with_hint(hint));
        }
        self.trace
            .tensor(&tensor.text)
            .map_err(|e| self.broken(e.to_string()))
    }

    fn read(&self, name: &str) -> Result<Tensor, Problem> {
        self.trace
            .tensor(name)
            .map_err(|e| self.broken(e.to_string()))
    }

    fn broken(&self, message: String) -> Problem {
        let message = message
            .split("\n  hint: ")
            .next()
            .unwrap_or_default()
            .to_string();
        Problem::new(self.span.clone(), message).with_hint(format!(
            "run `tracebook trace --force --only {}` to rewrite the trace",
            self.name
        ))
    }
}

/// The id of `text` when the trace already names exactly one token with that text: free,
/// where even the vocabulary takes a few ms to load.
fn known_token(trace: &Trace, text: &str) -> Option<u32> {
    if text.contains('\u{fffd}') {
        return None;
    }
    let mut ids = trace
        .meta
        .token_texts
        .iter()
        .filter(|(_, t)| t.as_str() == text)
        .map(|(id, _)| *id);
    match (ids.next(), ids.next()) {
        (Some(id), None) => Some(id),
        _ => None,
    }
}

/// The id of the vocabulary token whose text is `text`. The vocabulary answers in a few ms;
/// the full tokenizer (a few hundred ms to build) is loaded only when it has no such token,
/// to say how the text splits (or to look it up in a tokenizer.json that is not byte-level).
fn vocab_token(lazy: &LazyTokenizer, text: &str, span: Range<usize>) -> Result<u32, Problem> {
    let vocab = lazy.vocab().ok();
    if let Some(id) = vocab.and_then(|v| v.id(text)) {
        return Ok(id);
    }
    let tokenizer = lazy
        .tokenizer()
        .map_err(|e| Problem::new(span.clone(), format!("cannot load the tokenizer: {e}")))?;
    if let Some(id) = tokenizer.single_token(text) {
        return Ok(id);
    }
    let pieces: Vec<String> = tokenizer
        .encode(text)
        .unwrap_or_default()
        .iter()
        .map(|t| format!("{:?}", t.text))
        .collect();
    let hint = match vocab.and_then(|v| similar_token(v, text)) {
        Some(token) => format!("did you mean {token:?}? That is one token"),
        None => "`prob` gives the probability of one next token: pick one of those pieces (a token's text includes its leading space)".to_owned(),
    };
    Err(Problem::new(
        span,
        format!(
            "{text:?} is not a single token: it splits into {}",
            pieces.join(" + ")
        ),
    )
    .with_hint(hint))
}

/// A one-token text the author may have meant: `text` with its leading space (the usual
/// slip), else the token fewest edits away (case counts: `" DOS"` is no fix for `" dgos"`).
fn similar_token(vocab: &Vocab, text: &str) -> Option<String> {
    if text.trim().is_empty() {
        return None;
    }
    let spaced = format!(" {text}");
    if vocab.id(&spaced).is_some() {
        return Some(spaced);
    }
    let len = text.chars().count();
    let allowed = if len <= 3 { 1 } else { 2 };
    vocab
        .texts()
        .filter(|t| !t.trim().is_empty() && t.chars().count().abs_diff(len) <= allowed)
        .map(|t| (tracebook_trace::suggest::distance(text, t), t))
        .filter(|&(distance, _)| distance <= allowed)
        .min()
        .map(|(_, t)| t.to_owned())
}

/// `index` in `0..n`, counting negative ones from the end.
fn resolve(index: i64, n: usize) -> Option<usize> {
    let n = n as i64;
    let i = if index < 0 { index + n } else { index };
    (0..n).contains(&i).then_some(i as usize)
}

fn plural(n: usize, word: &str) -> String {
    match (n, word) {
        (1, _) => format!("1 {word}"),
        (_, "index") => format!("{n} indices"),
        _ => format!("{n} {word}s"),
    }
}

fn shape_text(shape: &[usize]) -> String {
    shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("×")
}
