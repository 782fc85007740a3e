//! Evaluates a claim's expressions over one prompt's trace. Every failure is a [`Problem`]
//! at the part of the claim at fault; nothing panics, whatever the trace or the claim.

use super::ast::{Expr, Index, Kind, Op};
use super::value::{shape_text, Array, Axis, Val};
use crate::problem::{Cause, Problem};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;
use tracebook_trace::{exact_math, Trace};

/// Token texts and ids beyond those the trace records (the site's tokenizer).
pub trait Vocabulary {
    /// The id of the one token whose text is `text`.
    fn id(&self, text: &str) -> Option<u32>;
    /// The text of token `id`.
    fn text(&self, id: u32) -> Option<String>;
}

/// A vocabulary that knows nothing beyond the trace.
pub struct NoVocabulary;

impl Vocabulary for NoVocabulary {
    fn id(&self, _: &str) -> Option<u32> {
        None
    }
    fn text(&self, _: u32) -> Option<String> {
        None
    }
}

/// The functions, how each is written, and what it gives (for hints and the docs).
pub const FUNCTIONS: &[(&str, &str)] = &[
    ("token", "token(i): the text of prompt token i"),
    (
        "pos",
        "pos(\" chef\"): the position of the prompt token with this text (it must be there once)",
    ),
    (
        "wrote",
        "wrote(\" fichier\"): the decoder position at which an encoder-decoder wrote this token (it must be there once)",
    ),
    ("id", "id(i): the id of prompt token i"),
    ("text", "text(id): the text of vocabulary token id"),
    ("count", "count(): the number of prompt tokens"),
    (
        "last",
        "last(): the position of the prompt's last token (last() - 1 is the one before)",
    ),
    ("first", "first(): the position of the prompt's first token, 0"),
    (
        "earlier",
        "earlier(q): the latest position before q that holds the same token as q (earlier(last()) + 1 is the token that followed it there: what a copying model guesses next)",
    ),
    (
        "guess",
        "guess(k): the id of the model's k-th likeliest next token after the prompt (guess(1) is its top guess)",
    ),
    ("len", "len(x): the length of x's first dimension"),
    ("argmax", "argmax(x): the index of x's largest value"),
    ("argmin", "argmin(x): the index of x's smallest value"),
    ("max", "max(x)"),
    ("min", "min(x)"),
    ("sum", "sum(x)"),
    ("mean", "mean(x)"),
    (
        "share",
        "share(x < c): the fraction of x's values for which the comparison holds (also share(abs(x) < c))",
    ),
    ("abs", "abs(x)"),
    (
        "rank",
        "rank(x, i): the place of index i (a number or \"text\") in x, 1 = largest",
    ),
    (
        "top",
        "top(k): the k likeliest next tokens after the prompt",
    ),
    (
        "prob",
        "prob(t): the probability of next token t (\"text\" or id) after the prompt",
    ),
    (
        "top_prob",
        "top_prob(k): the probability of the model's k-th likeliest next token (top_prob(1) - top_prob(2): its lead)",
    ),
    (
        "target",
        "target(\" was\"), target(guess(1)): the index of this token among the prompt's targets (the last axis of ablation.*, dla.* and saliency.* tables), by its text or its id",
    ),
];

/// Work allowed for one claim (values visited), so a hostile `all` cannot hang a build.
const MAX_WORK: usize = 50_000_000;

/// Evaluates claims over one trace.
pub struct Evaluator<'a> {
    pub trace: &'a Trace,
    /// The prompt's name, for messages.
    pub prompt: &'a str,
    pub vocab: &'a dyn Vocabulary,
    vars: RefCell<Vec<(String, i64)>>,
    work: RefCell<usize>,
    decoded: Rc<Decoded>,
}

/// A trace's tensors as claims read them, decoded once and shared by every claim on that trace
/// (a page may check dozens against one prompt, and decoding `logits.last` is the costly part).
#[derive(Default)]
pub struct Decoded {
    tensors: RefCell<HashMap<String, Rc<Array>>>,
    last: RefCell<Option<Rc<LastLogits>>>,
}

/// `logits.last` and its log-sum-exp.
type LastLogits = (Vec<f64>, f64);

type Result<T> = std::result::Result<T, Problem>;

impl<'a> Evaluator<'a> {
    pub fn new(trace: &'a Trace, prompt: &'a str, vocab: &'a dyn Vocabulary) -> Self {
        Self::sharing(trace, prompt, vocab, Rc::default())
    }

    /// An evaluator that reads `trace`'s tensors from (and into) `decoded`, which must belong
    /// to the same trace.
    pub fn sharing(
        trace: &'a Trace,
        prompt: &'a str,
        vocab: &'a dyn Vocabulary,
        decoded: Rc<Decoded>,
    ) -> Self {
        Evaluator {
            trace,
            prompt,
            vocab,
            vars: RefCell::default(),
            work: RefCell::new(0),
            decoded,
        }
    }

    fn tokens(&self) -> usize {
        self.trace.meta.tokens.len()
    }

    fn charge(&self, amount: usize, span: &Range<usize>) -> Result<()> {
        let mut work = self.work.borrow_mut();
        *work = work.saturating_add(amount);
        if *work > MAX_WORK {
            return Err(
                Problem::new(span.clone(), "this claim asks for too much work")
                    .with_hint("narrow the ranges of `all`/`any`, or split the claim"),
            );
        }
        Ok(())
    }

    /// The value of `expr`.
    pub fn eval(&self, expr: &Expr) -> Result<Val> {
        self.charge(1, &expr.span)?;
        match &expr.kind {
            Kind::Num(n) => Ok(Val::num(*n)),
            Kind::Str(s) => Ok(Val::Text(s.clone())),
            Kind::Name(name) => self.name(name, &expr.span),
            Kind::Call {
                name,
                name_span,
                args,
            } => self.call(name, name_span, args, &expr.span),
            Kind::Index { target, indices } => {
                let array = self.tensor_of(target)?;
                self.index(&array, indices, &expr.span)
            }
            Kind::Neg(x) => self.each_number(x, |v| -v),
            Kind::Not(x) => Ok(Val::Bool(!self.boolean(x)?)),
            Kind::Binary { op, left, right } => self.binary(*op, left, right),
            Kind::Quantifier { .. } => self.quantifier(expr).map(|(holds, _)| Val::Bool(holds)),
        }
    }

    pub fn number(&self, expr: &Expr) -> Result<f64> {
        let value = self.eval(expr)?;
        self.scalar(&value, expr)
    }

    /// `value` (of `expr`) as one number: a number, or a tensor of one entry.
    fn scalar(&self, value: &Val, expr: &Expr) -> Result<f64> {
        match value {
            Val::Num { value, .. } => Ok(*value),
            Val::Tensor(a) if a.data.len() == 1 => Ok(a.data[0]),
            other => Err(self.wrong(expr, "a number", other)),
        }
    }

    /// `f` of `expr`'s value: of a number, or of every entry of a tensor (the shape kept).
    fn each_number(&self, expr: &Expr, f: impl Fn(f64) -> f64) -> Result<Val> {
        match self.eval(expr)? {
            Val::Tensor(a) if a.data.len() > 1 => self.mapped(&a, f, &expr.span),
            value => Ok(Val::num(f(self.scalar(&value, expr)?))),
        }
    }

    /// A tensor of `a`'s shape whose entries are `f` of `a`'s.
    fn mapped(&self, a: &Array, f: impl Fn(f64) -> f64, span: &Range<usize>) -> Result<Val> {
        self.charge(a.data.len(), span)?;
        Ok(Val::Tensor(Rc::new(Array {
            shape: a.shape.clone(),
            data: a.data.iter().map(|&x| f(x)).collect(),
            last: a.last,
        })))
    }

    /// `+ - * /` between numbers, between a tensor and a number (entry by entry), or between
    /// two tensors of one shape (entry by entry); tensors of two shapes are an error that says
    /// how to make them meet.
    fn arithmetic(&self, op: Op, left: &Expr, right: &Expr) -> Result<Val> {
        let f = move |l: f64, r: f64| match op {
            Op::Add => l + r,
            Op::Sub => l - r,
            Op::Mul => l * r,
            _ => l / r,
        };
        let span = left.span.start..right.span.end;
        let (l, r) = (self.eval(left)?, self.eval(right)?);
        let many = |v: &Val| matches!(v, Val::Tensor(a) if a.data.len() > 1);
        match (&l, &r) {
            (Val::Tensor(a), Val::Tensor(b)) if many(&l) && many(&r) => {
                if a.shape != b.shape {
                    return Err(Problem::new(
                        span,
                        format!(
                            "`{}` between {} and {}: entry by entry needs one shape",
                            op.text(),
                            l.kind(),
                            r.kind()
                        ),
                    )
                    .with_hint("index both to the same shape (x[1, :] - y[2, :]), or reduce each to a number first (max(x) - max(y); min, sum and mean reduce too)"));
                }
                self.charge(a.data.len(), &span)?;
                Ok(Val::Tensor(Rc::new(Array {
                    shape: a.shape.clone(),
                    data: a.data.iter().zip(&b.data).map(|(&x, &y)| f(x, y)).collect(),
                    last: if a.last == b.last {
                        a.last
                    } else {
                        Axis::Plain
                    },
                })))
            }
            (Val::Tensor(a), _) if many(&l) => {
                let r = self.scalar(&r, right)?;
                self.mapped(a, |x| f(x, r), &span)
            }
            (_, Val::Tensor(b)) if many(&r) => {
                let l = self.scalar(&l, left)?;
                self.mapped(b, |y| f(l, y), &span)
            }
            _ => Ok(Val::num(f(self.scalar(&l, left)?, self.scalar(&r, right)?))),
        }
    }

    pub fn boolean(&self, expr: &Expr) -> Result<bool> {
        match self.eval(expr)? {
            Val::Bool(b) => Ok(b),
            other => Err(self.wrong(expr, "true or false", &other).with_hint(
                "a claim is a comparison (== != < <= > >= in) or `and`/`or`/`not` of comparisons",
            )),
        }
    }

    fn integer(&self, expr: &Expr) -> Result<i64> {
        let n = self.number(expr)?;
        if n.fract() != 0.0 || !n.is_finite() || n.abs() > 1e12 {
            return Err(Problem::new(
                expr.span.clone(),
                format!("expected a whole number, not {}", super::format::number(n)),
            ));
        }
        Ok(n as i64)
    }

    fn wrong(&self, expr: &Expr, expected: &str, found: &Val) -> Problem {
        Problem::new(
            expr.span.clone(),
            format!("expected {expected} here, but this is {}", found.kind()),
        )
    }

    fn name(&self, name: &str, span: &Range<usize>) -> Result<Val> {
        if let Some((_, v)) = self.vars.borrow().iter().rev().find(|(n, _)| n == name) {
            return Ok(Val::num(*v as f64));
        }
        self.tensor(name, span).map(Val::Tensor)
    }

    fn tensor(&self, name: &str, span: &Range<usize>) -> Result<Rc<Array>> {
        if let Some(found) = self.decoded.tensors.borrow().get(name) {
            return Ok(Rc::clone(found));
        }
        if self.trace.shape(name).is_none() {
            let names: Vec<&str> = self.trace.tensor_names().collect();
            let hint = tracebook_trace::suggest::did_you_mean(name, names.iter().copied())
                .unwrap_or_else(|| {
                    let functions: Vec<&str> = FUNCTIONS.iter().map(|(f, _)| *f).collect();
                    format!(
                        "tensor names are listed by `tracebook inspect PROMPT`; functions are {}",
                        functions.join(", ")
                    )
                });
            return Err(Problem::new(
                span.clone(),
                format!("the trace of `{}` has no tensor `{name}`", self.prompt),
            )
            .with_hint(hint));
        }
        let tensor = self.trace.tensor(name).map_err(|e| {
            Problem::new(span.clone(), e.to_string()).with_hint(format!(
                "run `tracebook trace --force --only {}` to rewrite the trace",
                self.prompt
            ))
        })?;
        self.charge(tensor.data.len(), span)?;
        let last_dim = tensor.shape.last().copied().unwrap_or(0);
        let last =
            if name.starts_with("logits") && last_dim == self.trace.meta.model.config.vocab_size {
                Axis::Vocab
            } else if last_dim == self.tokens()
                && tensor.shape.len() > 1
                // Of the experiments' tables only patching.resid (and its estimate) ends in
                // positions.
                && (!self.trace.is_table(name)
                    || name == "patching.resid"
                    || name == "patching.attrib.resid")
            {
                Axis::Positions
            } else {
                Axis::Plain
            };
        let array = Rc::new(Array {
            shape: tensor.shape,
            data: tensor.data.iter().map(|&v| f64::from(v)).collect(),
            last,
        });
        self.decoded
            .tensors
            .borrow_mut()
            .insert(name.to_string(), Rc::clone(&array));
        Ok(array)
    }

    fn tensor_of(&self, expr: &Expr) -> Result<Rc<Array>> {
        match self.eval(expr)? {
            Val::Tensor(a) => Ok(a),
            other => Err(self.wrong(expr, "a tensor to index", &other)),
        }
    }

    /// `x[i, a:b, :]`: integer indices drop their axis, slices keep it; missing trailing
    /// indices take the whole axis.
    fn index(&self, array: &Array, indices: &[Index], span: &Range<usize>) -> Result<Val> {
        if indices.len() > array.shape.len() {
            return Err(Problem::new(
                span.clone(),
                format!(
                    "{} indices for a tensor of shape {}",
                    indices.len(),
                    shape_text(&array.shape)
                ),
            )
            .with_hint("give at most one index per dimension"));
        }
        // For each axis: the positions taken, and whether the axis stays.
        let mut picks: Vec<(Vec<usize>, bool)> = Vec::new();
        for (axis, &size) in array.shape.iter().enumerate() {
            let pick = match indices.get(axis) {
                None => ((0..size).collect(), true),
                Some(Index::At(e)) => {
                    let i = self.integer(e)?;
                    let at = resolve(i, size).ok_or_else(|| {
                        Problem::new(
                            e.span.clone(),
                            format!("index {i} is out of range for dimension {axis} (size {size})"),
                        )
                        .with_cause(Cause::OutOfRange)
                        .with_hint(format!(
                            "use 0 to {}, or -{size} to -1 counting from the end",
                            size as i64 - 1
                        ))
                    })?;
                    (vec![at], false)
                }
                Some(Index::Slice { from, to, .. }) => {
                    let (a, b) = self.bounds(from.as_ref(), to.as_ref(), size)?;
                    ((a..b).collect(), true)
                }
            };
            picks.push(pick);
        }
        let count: usize = picks.iter().map(|(p, _)| p.len()).product();
        self.charge(count, span)?;
        let mut data = Vec::with_capacity(count);
        let mut at = vec![0usize; picks.len()];
        if count > 0 {
            loop {
                let mut offset = 0;
                for (axis, (p, _)) in picks.iter().enumerate() {
                    offset = offset * array.shape[axis] + p[at[axis]];
                }
                data.push(array.data[offset]);
                let mut axis = picks.len();
                loop {
                    if axis == 0 {
                        break;
                    }
                    axis -= 1;
                    at[axis] += 1;
                    if at[axis] < picks[axis].0.len() {
                        break;
                    }
                    at[axis] = 0;
                    if axis == 0 {
                        axis = usize::MAX;
                        break;
                    }
                }
                if axis == usize::MAX || picks.is_empty() {
                    break;
                }
            }
        }
        let shape: Vec<usize> = picks
            .iter()
            .filter(|(_, keep)| *keep)
            .map(|(p, _)| p.len())
            .collect();
        if shape.is_empty() {
            return Ok(Val::num(data.first().copied().unwrap_or(f64::NAN)));
        }
        let keeps_last = picks.last().is_some_and(|(_, keep)| *keep);
        let last = if keeps_last { array.last } else { Axis::Plain };
        let offset_last = picks
            .last()
            .map(|(p, _)| p.first().copied().unwrap_or(0))
            .unwrap_or(0);
        Ok(Val::Tensor(Rc::new(Array {
            shape,
            data,
            // A slice of positions that does not start at 0 no longer indexes them directly.
            last: if offset_last == 0 { last } else { Axis::Plain },
        })))
    }

    /// The ends of `a:b` over `size`: negative count from the end, absent are 0 and size;
    /// both clamped into 0..=size.
    fn bounds(
        &self,
        from: Option<&Expr>,
        to: Option<&Expr>,
        size: usize,
    ) -> Result<(usize, usize)> {
        let end = |e: Option<&Expr>, default: usize| -> Result<usize> {
            let Some(e) = e else { return Ok(default) };
            let i = self.integer(e)?;
            let n = size as i64;
            let i = if i < 0 { i + n } else { i };
            Ok(i.clamp(0, n) as usize)
        };
        let a = end(from, 0)?;
        let b = end(to, size)?;
        Ok((a, b.max(a)))
    }

    fn binary(&self, op: Op, left: &Expr, right: &Expr) -> Result<Val> {
        match op {
            Op::And => Ok(Val::Bool(self.boolean(left)? && self.boolean(right)?)),
            Op::Or => Ok(Val::Bool(self.boolean(left)? || self.boolean(right)?)),
            Op::In => self.member(left, right).map(Val::Bool),
            Op::Eq | Op::Ne => {
                let (l, r) = (self.eval(left)?, self.eval(right)?);
                let same = self.same(&l, &r, left, right)?;
                Ok(Val::Bool(same == (op == Op::Eq)))
            }
            Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let (l, r) = (self.number(left)?, self.number(right)?);
                Ok(Val::Bool(match op {
                    Op::Lt => l < r,
                    Op::Le => l <= r,
                    Op::Gt => l > r,
                    _ => l >= r,
                }))
            }
            Op::Add | Op::Sub | Op::Mul | Op::Div => self.arithmetic(op, left, right),
        }
    }

    fn same(&self, l: &Val, r: &Val, left: &Expr, right: &Expr) -> Result<bool> {
        match (l, r) {
            (Val::Num { value: a, .. }, Val::Num { value: b, .. }) => Ok(a == b),
            (Val::Text(a), Val::Text(b)) => Ok(a == b),
            (Val::Bool(a), Val::Bool(b)) => Ok(a == b),
            _ => Err(Problem::new(
                left.span.start..right.span.end,
                format!("cannot compare {} with {}", l.kind(), r.kind()),
            )
            .with_hint("compare text with text (token(3) == \" the\") and numbers with numbers")),
        }
    }

    /// `x in top(k)`: x a token id or a token's text.
    fn member(&self, left: &Expr, right: &Expr) -> Result<bool> {
        let Val::Ids(ids) = self.eval(right)? else {
            return Err(Problem::new(
                right.span.clone(),
                "`in` needs a set of tokens on its right",
            )
            .with_hint("write \" the\" in top(3)"));
        };
        let id = self.token_id(left)?;
        Ok(ids.contains(&id))
    }

    /// A token given as an id or as its text.
    fn token_id(&self, expr: &Expr) -> Result<u32> {
        match self.eval(expr)? {
            Val::Num { value, .. } => {
                let id = self.integer_value(value, expr)?;
                u32::try_from(id)
                    .map_err(|_| Problem::new(expr.span.clone(), format!("{id} is not a token id")))
            }
            Val::Text(text) => self.id_of(&text, &expr.span),
            other => Err(self.wrong(expr, "a token (an id, or its \"text\")", &other)),
        }
    }

    /// `pos("text")`: the position of the one prompt token whose text is `text`.
    /// `target(" was")`: the index of a target of the prompt's `ablate` or `attribute`, by its
    /// text (the same in both where the prompt has both).
    fn target_of(&self, expr: &Expr) -> Result<Val> {
        // A target by its text (`target(" his")`), or by its id (`target(guess(1))`: the
        // target that is the model's top guess, as a target written `guess(1)` is).
        let (by_text, by_id) = match self.eval(expr)? {
            Val::Text(text) => (Some(text), None),
            Val::Num { value, label } if value.fract() == 0.0 && value >= 0.0 => {
                (None, Some((value as u32, label)))
            }
            other => return Err(self.wrong(expr, "a target's \"text\" or id", &other)),
        };
        let named = match (&by_text, &by_id) {
            (Some(text), _) => format!("{text:?}"),
            (_, Some((id, Some(label)))) => format!("{label:?} (token {id})"),
            (_, Some((id, None))) => format!("token {id}"),
            (None, None) => unreachable!("one of the two is set"),
        };
        let is_it = |t: &tracebook_trace::NamedToken| match (&by_text, &by_id) {
            (Some(text), _) => t.text == *text,
            (_, Some((id, _))) => t.id == *id,
            (None, None) => false,
        };
        let meta = &self.trace.meta;
        let lists: Vec<(&str, &Vec<tracebook_trace::NamedToken>)> = [
            ("ablate", meta.ablation.as_ref().map(|a| &a.targets)),
            ("attribute", meta.attribution.as_ref().map(|a| &a.targets)),
        ]
        .into_iter()
        .filter_map(|(option, targets)| Some((option, targets?)))
        .collect();
        if lists.is_empty() {
            let example = by_text
                .as_deref()
                .map_or("guess(1)".to_string(), |t| format!("{t:?}"));
            return Err(Problem::new(
                expr.span.clone(),
                format!(
                    "prompt `{}` has no ablation or attribution, so no targets",
                    self.prompt
                ),
            )
            .with_hint(format!(
                "add `ablate = {{ targets = [{example}] }}` (or `attribute`) to the prompt and \
                 run `tracebook trace --only {}`",
                self.prompt
            )));
        }
        let found: Vec<(&str, Option<usize>)> = (lists.iter())
            .map(|(option, targets)| (*option, targets.iter().position(is_it)))
            .collect();
        match found.as_slice() {
            [(_, Some(i))] | [(_, Some(i)), (_, Some(_))]
                if found.iter().all(|(_, j)| *j == Some(*i)) =>
            {
                let label = lists[0].1[*i].text.clone();
                Ok(Val::Num {
                    value: *i as f64,
                    label: Some(label),
                })
            }
            _ => {
                let listed: Vec<String> = (lists.iter())
                    .map(|(option, targets)| {
                        let quoted: Vec<String> = (targets.iter())
                            .map(|t| match &t.rule {
                                Some(rule) => format!("{rule} = {:?}", t.text),
                                None => format!("{:?}", t.text),
                            })
                            .collect();
                        format!("`{option}`'s are {}", quoted.join(", "))
                    })
                    .collect();
                let has: Vec<&str> = (found.iter())
                    .filter_map(|(option, j)| j.map(|_| *option))
                    .collect();
                let p = &self.prompt;
                let (problem, hint) = match has.as_slice() {
                    [] => (
                        format!("{named} is not a target of prompt `{p}`"),
                        format!(
                            "{}; add it to the targets and run `tracebook trace`",
                            listed.join("; ")
                        ),
                    ),
                    [one] => (
                        format!(
                            "{named} is a target of `{one}` but not of the other option of \
                             prompt `{p}`, and `target(...)` names one place in both"
                        ),
                        format!(
                            "{}; give both the same targets in the same order",
                            listed.join("; ")
                        ),
                    ),
                    _ => (
                        format!(
                            "{named} is a target of both `ablate` and `attribute` of prompt \
                             `{p}`, at different places, so `target(...)` is ambiguous"
                        ),
                        format!(
                            "{}; list the targets in the same order in both",
                            listed.join("; ")
                        ),
                    ),
                };
                Err(Problem::new(expr.span.clone(), problem).with_hint(hint))
            }
        }
    }

    /// `pos(text)`: the prompt token with this text; `wrote(text)` (`written`): the decoder
    /// position of an encoder-decoder's trace at which it wrote this token.
    fn position_of(&self, expr: &Expr, written: bool) -> Result<Val> {
        let text = match self.eval(expr)? {
            Val::Text(text) => text,
            other => return Err(self.wrong(expr, "a token's \"text\"", &other)),
        };
        let meta = &self.trace.meta;
        let (texts, what): (Vec<&str>, &str) = if written {
            if meta.translation.is_none() {
                return Err(Problem::new(
                    expr.span.clone(),
                    format!(
                        "wrote() finds a token an encoder-decoder wrote, but prompt `{}` was \
                         traced with a decoder-only model",
                        self.prompt
                    ),
                )
                .with_hint("use pos(\"text\") for a token of the prompt"));
            }
            let texts = meta.generation.iter().map(|g| g.text.as_str()).collect();
            (texts, "the translation of")
        } else {
            (
                meta.tokens.iter().map(|t| t.text.as_str()).collect(),
                "prompt",
            )
        };
        let at: Vec<usize> = (0..texts.len()).filter(|&i| texts[i] == text).collect();
        match at[..] {
            [one] => Ok(Val::Num {
                value: one as f64,
                label: Some(text),
            }),
            [] => {
                let listed: Vec<String> = texts.iter().map(|t| format!("{t:?}")).collect();
                let hint = tracebook_trace::suggest::did_you_mean(&text, texts.iter().copied())
                    .map(|near| format!("{near} (a token's text includes its leading space)"))
                    .unwrap_or_else(|| format!("its tokens are {}", listed.join(", ")));
                Err(Problem::new(
                    expr.span.clone(),
                    format!("no token of {what} `{}` is {text:?}", self.prompt),
                )
                .with_cause(Cause::NotOnce(text))
                .with_hint(hint))
            }
            _ => Err(Problem::new(
                expr.span.clone(),
                format!(
                    "{text:?} is at positions {} of {what} `{}`",
                    at.iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(" and "),
                    self.prompt
                ),
            )
            .with_cause(Cause::NotOnce(text))
            .with_hint("write the position you mean as a number")),
        }
    }

    fn integer_value(&self, value: f64, expr: &Expr) -> Result<i64> {
        if value.fract() != 0.0 || !value.is_finite() || value.abs() > 1e12 {
            return Err(Problem::new(expr.span.clone(), "expected a whole number"));
        }
        Ok(value as i64)
    }

    /// The id of the token whose text is `text`: from the trace's own texts, else the vocabulary.
    fn id_of(&self, text: &str, span: &Range<usize>) -> Result<u32> {
        let mut known = self
            .trace
            .meta
            .token_texts
            .iter()
            .filter(|(_, t)| t.as_str() == text)
            .map(|(id, _)| *id);
        if let (Some(id), None) = (known.next(), known.next()) {
            return Ok(id);
        }
        self.vocab.id(text).ok_or_else(|| {
            let spaced = format!(" {text}");
            let hint = if !text.starts_with(' ') && self.vocab.id(&spaced).is_some() {
                format!("a token's text includes its leading space: {spaced:?} is one token")
            } else {
                "a token's text includes its leading space, and a small vocabulary splits many \
                 words into several tokens: `tracebook inspect traces/PROMPT.json` lists a \
                 prompt's tokens"
                    .to_string()
            };
            Problem::new(
                span.clone(),
                format!("{text:?} is not a single token of the model"),
            )
            .with_hint(hint)
        })
    }

    /// The next tokens `ids` as a verdict shows what is true: `" the" (12.4%), " a" (8.1%)`.
    pub(crate) fn shown_with_probs(&self, ids: &[u32], span: &Range<usize>) -> Result<String> {
        let last = self.last_logits(span)?;
        let (logits, lse) = (&last.0, last.1);
        let shown: Vec<String> = ids
            .iter()
            .map(|&id| {
                let text = self
                    .text_of(id)
                    .map_or(format!("token {id}"), |t| format!("{t:?}"));
                let p = logits
                    .get(id as usize)
                    .map(|&l| f64::from(exact_math::prob(l as f32, lse as f32)));
                match p {
                    Some(p) => format!("{text} ({})", tracebook_trace::percent(p)),
                    None => text,
                }
            })
            .collect();
        Ok(shown.join(", "))
    }

    fn text_of(&self, id: u32) -> Option<String> {
        self.trace
            .meta
            .token_texts
            .get(&id)
            .cloned()
            .or_else(|| self.vocab.text(id))
    }

    /// `logits.last` and the last position's log Σ exp over every logit (`logits.lse`).
    fn last_logits(&self, span: &Range<usize>) -> Result<Rc<LastLogits>> {
        if let Some(found) = self.decoded.last.borrow().as_ref() {
            return Ok(found.clone());
        }
        let logits = self.tensor("logits.last", span)?.data.clone();
        let last = self.trace.meta.tokens.len().saturating_sub(1);
        let lse = self.trace.lse_at(last).map_err(|e| {
            Problem::new(span.clone(), e.to_string()).with_hint(format!(
                "run `tracebook trace --force --only {}` to rewrite the trace",
                self.prompt
            ))
        })?;
        let lse = f64::from(lse);
        let last = Rc::new((logits, lse));
        *self.decoded.last.borrow_mut() = Some(last.clone());
        Ok(last)
    }

    /// The ids of the `k` likeliest next tokens after the prompt, likeliest first, for
    /// `top(k)` and `guess(k)` (`name`), with `k` checked against the vocabulary.
    fn likeliest(&self, name: &str, k: &Expr, span: &Range<usize>) -> Result<Vec<u32>> {
        let n = self.integer(k)?;
        let last = self.last_logits(span)?;
        let logits = &last.0;
        if n < 1 || n as usize > logits.len() {
            return Err(Problem::new(
                k.span.clone(),
                format!("{name}({n}): k must be between 1 and {}", logits.len()),
            ));
        }
        self.charge(logits.len(), span)?;
        Ok(top_ids(logits, n as usize))
    }

    fn call(
        &self,
        name: &str,
        name_span: &Range<usize>,
        args: &[Expr],
        span: &Range<usize>,
    ) -> Result<Val> {
        let Some(&(_, usage)) = FUNCTIONS.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
            let hint = tracebook_trace::suggest::hint(name, &names, "claim functions are");
            return Err(
                Problem::new(name_span.clone(), format!("unknown function `{name}`"))
                    .with_optional_hint(hint),
            );
        };
        let arity = match name {
            "count" | "last" | "first" => 0,
            "rank" => 2,
            _ => 1,
        };
        if args.len() != arity {
            return Err(Problem::new(
                span.clone(),
                format!(
                    "`{name}` takes {arity} argument{}, not {}",
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .with_hint(format!("write {usage}")));
        }
        match name {
            "token" | "id" => {
                let i = self.integer(&args[0])?;
                let n = self.tokens();
                let at = resolve(i, n).ok_or_else(|| {
                    Problem::new(
                        args[0].span.clone(),
                        format!(
                            "position {i} is out of range: prompt `{}` has {n} tokens",
                            self.prompt
                        ),
                    )
                    .with_cause(Cause::OutOfRange)
                    .with_hint(format!(
                        "positions go from 0 to {}, or from -{n} to -1 counting from the end",
                        n as i64 - 1
                    ))
                })?;
                let token = &self.trace.meta.tokens[at];
                Ok(if name == "token" {
                    Val::Text(token.text.clone())
                } else {
                    Val::Num {
                        value: f64::from(token.id),
                        label: Some(token.text.clone()),
                    }
                })
            }
            "text" => {
                let id = self.token_id(&args[0])?;
                self.text_of(id).map(Val::Text).ok_or_else(|| {
                    Problem::new(
                        args[0].span.clone(),
                        format!("token {id} has no known text"),
                    )
                })
            }
            "count" => Ok(Val::num(self.tokens() as f64)),
            "last" | "first" => {
                let n = self.tokens();
                if n == 0 {
                    return Err(Problem::new(
                        span.clone(),
                        format!("prompt `{}` has no tokens", self.prompt),
                    ));
                }
                let at = if name == "last" { n - 1 } else { 0 };
                Ok(Val::Num {
                    value: at as f64,
                    label: Some(self.trace.meta.tokens[at].text.clone()),
                })
            }
            "guess" => {
                let ids = self.likeliest(name, &args[0], span)?;
                let id = ids[ids.len() - 1];
                Ok(Val::Num {
                    value: f64::from(id),
                    label: self.text_of(id),
                })
            }
            "pos" => self.position_of(&args[0], false),
            "wrote" => self.position_of(&args[0], true),
            "earlier" => self.earlier(&args[0]),
            "target" => self.target_of(&args[0]),
            "top" => Ok(Val::Ids(self.likeliest(name, &args[0], span)?)),
            "prob" => {
                let id = self.token_id(&args[0])?;
                self.probability(id, &args[0], span)
            }
            "top_prob" => {
                let ids = self.likeliest(name, &args[0], span)?;
                self.probability(ids[ids.len() - 1], &args[0], span)
            }
            "abs" => self.each_number(&args[0], f64::abs),
            "share" => self.share(&args[0], usage),
            "len" => {
                let a = self.array(&args[0])?;
                Ok(Val::num(a.shape.first().copied().unwrap_or(1) as f64))
            }
            "max" | "min" | "sum" | "mean" => {
                let a = self.array(&args[0])?;
                let d = &a.data;
                if d.is_empty() {
                    return Err(Problem::new(
                        args[0].span.clone(),
                        format!("`{name}` of nothing: this selection is empty"),
                    ));
                }
                Ok(Val::num(match name {
                    "max" => d.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    "min" => d.iter().copied().fold(f64::INFINITY, f64::min),
                    "sum" => d.iter().sum(),
                    _ => d.iter().sum::<f64>() / d.len() as f64,
                }))
            }
            "argmax" | "argmin" => {
                let a = self.vector(&args[0], name)?;
                let best = if name == "argmax" {
                    argmax(&a.data)
                } else {
                    argmin(&a.data)
                };
                let best = best.ok_or_else(|| {
                    Problem::new(
                        args[0].span.clone(),
                        format!("`{name}` of nothing: this selection is empty"),
                    )
                })?;
                Ok(Val::Num {
                    value: best as f64,
                    label: self.label(&a, best),
                })
            }
            _ => {
                let a = self.vector(&args[0], name)?;
                let i = self.index_of(&args[1], &a)?;
                let value = a.data.get(i).copied().ok_or_else(|| {
                    Problem::new(
                        args[1].span.clone(),
                        format!("index {i} is outside this vector of {}", a.data.len()),
                    )
                })?;
                let above = a.data.iter().filter(|&&v| v > value).count();
                Ok(Val::num((above + 1) as f64))
            }
        }
    }

    /// `earlier(q)`: the latest position before `q` holding the same token.
    fn earlier(&self, arg: &Expr) -> Result<Val> {
        let i = self.integer(arg)?;
        let tokens = &self.trace.meta.tokens;
        let at = resolve(i, tokens.len()).ok_or_else(|| {
            Problem::new(
                arg.span.clone(),
                format!(
                    "position {i} is out of range: prompt `{}` has {} tokens",
                    self.prompt,
                    tokens.len()
                ),
            )
            .with_cause(Cause::OutOfRange)
        })?;
        let token = &tokens[at];
        let before = (0..at).rev().find(|&j| tokens[j].id == token.id);
        let j = before.ok_or_else(|| {
            Problem::new(
                arg.span.clone(),
                format!(
                    "{:?} (position {at}) does not occur before position {at} in prompt `{}`",
                    token.text, self.prompt
                ),
            )
            .with_cause(Cause::NotRepeated(token.text.clone()))
            .with_hint(
                "earlier(q) needs a prompt that says the token at q twice; repeat a sentence",
            )
        })?;
        Ok(Val::Num {
            value: j as f64,
            label: Some(tokens[j].text.clone()),
        })
    }

    /// The index a `rank` asks about: a number, or a token's text for a vector over the vocabulary.
    /// The probability of next token `id` (named by `arg`) after the prompt.
    fn probability(&self, id: u32, arg: &Expr, span: &Range<usize>) -> Result<Val> {
        let last = self.last_logits(span)?;
        let (logits, lse) = (&last.0, last.1);
        let logit = logits.get(id as usize).ok_or_else(|| {
            Problem::new(
                arg.span.clone(),
                format!("token {id} is outside the vocabulary of {}", logits.len()),
            )
        })?;
        Ok(Val::num(f64::from(exact_math::prob(
            *logit as f32,
            lse as f32,
        ))))
    }

    fn index_of(&self, expr: &Expr, a: &Array) -> Result<usize> {
        match self.eval(expr)? {
            Val::Text(text) if a.last == Axis::Vocab => Ok(self.id_of(&text, &expr.span)? as usize),
            Val::Num { value, .. } => {
                let i = self.integer_value(value, expr)?;
                resolve(i, a.data.len()).ok_or_else(|| {
                    Problem::new(
                        expr.span.clone(),
                        format!("index {i} is outside this vector of {}", a.data.len()),
                    )
                })
            }
            other => Err(self.wrong(
                expr,
                "an index (or a token's text, over the logits)",
                &other,
            )),
        }
    }

    fn label(&self, a: &Array, index: usize) -> Option<String> {
        match a.last {
            Axis::Positions => self.trace.meta.tokens.get(index).map(|t| t.text.clone()),
            Axis::Vocab => self.text_of(index as u32),
            Axis::Plain => None,
        }
    }

    /// `share(x CMP c)` or `share(abs(x) CMP c)`: the fraction of x's values that compare so
    /// with the number c (the one place a comparison applies to every value of a tensor).
    fn share(&self, arg: &Expr, usage: &str) -> Result<Val> {
        let form = || {
            Problem::new(
                arg.span.clone(),
                "`share` needs a comparison of a tensor with a number",
            )
            .with_hint(format!("write {usage}"))
        };
        let Kind::Binary { op, left, right } = &arg.kind else {
            return Err(form());
        };
        if !op.compares() || *op == Op::In {
            return Err(form());
        }
        let (values, absolute) = match &left.kind {
            Kind::Call { name, args, .. } if name == "abs" && args.len() == 1 => {
                (self.array(&args[0])?, true)
            }
            _ => (self.array(left)?, false),
        };
        let c = self.number(right)?;
        if values.data.is_empty() {
            return Err(Problem::new(
                left.span.clone(),
                "`share` of nothing: this selection is empty",
            ));
        }
        let holds = |v: f64| {
            let v = if absolute { v.abs() } else { v };
            match op {
                Op::Eq => v == c,
                Op::Ne => v != c,
                Op::Lt => v < c,
                Op::Le => v <= c,
                Op::Gt => v > c,
                _ => v >= c,
            }
        };
        let count = values.data.iter().filter(|&&v| holds(v)).count();
        Ok(Val::num(count as f64 / values.data.len() as f64))
    }

    fn array(&self, expr: &Expr) -> Result<Rc<Array>> {
        match self.eval(expr)? {
            Val::Tensor(a) => Ok(a),
            Val::Num { value, .. } => Ok(Rc::new(Array {
                shape: vec![1],
                data: vec![value],
                last: Axis::Plain,
            })),
            other => Err(self.wrong(expr, "numbers", &other)),
        }
    }

    fn vector(&self, expr: &Expr, name: &str) -> Result<Rc<Array>> {
        let a = self.array(expr)?;
        if a.shape.len() != 1 {
            return Err(Problem::new(
                expr.span.clone(),
                format!(
                    "`{name}` needs one row of numbers, but this is {}",
                    Val::Tensor(a).kind()
                ),
            )
            .with_hint("index it down to one row, e.g. blocks.1.attn.pattern[2, 8, :]"));
        }
        Ok(a)
    }

    /// Evaluates `all`/`any` and returns, with the verdict, the variable's value that decided
    /// it (the first counterexample of `all`, the first witness of `any`).
    pub fn quantifier(&self, expr: &Expr) -> Result<(bool, Option<i64>)> {
        let Kind::Quantifier {
            all,
            var,
            from,
            to,
            body,
        } = &expr.kind
        else {
            return Ok((self.boolean(expr)?, None));
        };
        let (a, b) = self.range(from.as_deref(), to.as_deref())?;
        for v in a..b {
            self.vars.borrow_mut().push((var.clone(), v));
            let holds = self.boolean(body);
            self.vars.borrow_mut().pop();
            if holds? != *all {
                return Ok((!*all, Some(v)));
            }
        }
        Ok((*all, None))
    }

    /// A quantifier's range over token positions: negative ends count from the end of the
    /// prompt, an absent end is the prompt's start or end.
    pub fn range(&self, from: Option<&Expr>, to: Option<&Expr>) -> Result<(i64, i64)> {
        let n = self.tokens() as i64;
        let end = |e: Option<&Expr>, default: i64| -> Result<i64> {
            let Some(e) = e else { return Ok(default) };
            let i = self.integer(e)?;
            Ok(if i < 0 { i + n } else { i })
        };
        let (a, b) = (end(from, 0)?, end(to, n)?);
        if b.saturating_sub(a) > 100_000 {
            return Err(Problem::new(
                from.or(to).map_or(0..0, |e| e.span.clone()),
                "this range is too long for a claim",
            ));
        }
        Ok((a, b.max(a)))
    }

    /// Binds `var` to `value` while `f` runs (for explanations).
    pub fn with_var<T>(&self, var: &str, value: i64, f: impl FnOnce() -> T) -> T {
        self.vars.borrow_mut().push((var.to_string(), value));
        let out = f();
        self.vars.borrow_mut().pop();
        out
    }
}

/// `index` in `0..n`, negative counting from the end.
fn resolve(index: i64, n: usize) -> Option<usize> {
    let n = n as i64;
    let i = if index < 0 { index + n } else { index };
    (0..n).contains(&i).then_some(i as usize)
}

/// The first index of the largest value (NaN never wins).
fn argmax(data: &[f64]) -> Option<usize> {
    (0..data.len())
        .filter(|&i| !data[i].is_nan())
        .fold(None, |best, i| match best {
            Some(b) if data[b] >= data[i] => Some(b),
            _ => Some(i),
        })
}

fn argmin(data: &[f64]) -> Option<usize> {
    (0..data.len())
        .filter(|&i| !data[i].is_nan())
        .fold(None, |best, i| match best {
            Some(b) if data[b] <= data[i] => Some(b),
            _ => Some(i),
        })
}

/// The ids of the `k` largest logits, largest first (ties: lower id first), as the trace orders them.
/// The `k` are selected first (linear), then only they are sorted.
fn top_ids(logits: &[f64], k: usize) -> Vec<u32> {
    let order_of = |a: &usize, b: &usize| logits[*b].total_cmp(&logits[*a]).then(a.cmp(b));
    let mut order: Vec<usize> = (0..logits.len()).collect();
    if k < order.len() {
        order.select_nth_unstable_by(k, order_of);
        order.truncate(k);
    }
    order.sort_by(order_of);
    order.into_iter().map(|i| i as u32).collect()
}
