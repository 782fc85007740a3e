//! Whether a claim can be asked of another prompt: a reader's own sentence in live mode. A
//! claim that names positions and tokens by role (`last()`, `first()`, `-1`, a whole range,
//! `guess(1)`, the model's layers and heads) carries over as written; one that finds a token by
//! its text (`pos(" it")`) carries over where the other text has that token once; one that
//! names a literal position (`[2, 8, 6]`, `q in 3:`, `token(4)`) or a token the author expected
//! (`" the" in top(1)`, `prob(" I")`) is about the author's prompt only.
//!
//! The decision is read off the expression alone, with a table of which axes of each traced
//! tensor are positions ([`axes`]): a static reading, so that `check --claims list` can show
//! it and the page can know before any reader types.

use crate::ast::{Expr, Index, Kind, Op};
use std::ops::Range;

/// Whether a claim can be asked of another prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Carry {
    /// By roles only: it can be asked of any prompt.
    Always,
    /// It finds tokens by their text: it can be asked of a prompt that has each of `prompt`
    /// once (`pos`), and whose translation has each of `written` once (`wrote`); or it asks
    /// where a token was said before (`earlier(q)`, `repeats`): of a prompt that says it twice.
    IfPresent {
        prompt: Vec<String>,
        written: Vec<String>,
        repeats: bool,
    },
    /// About the author's prompt only: the part that ties it there, what kind of tie it is,
    /// and why (in the author's terms).
    Author {
        span: Range<usize>,
        tie: Tie,
        why: String,
    },
}

/// What ties a claim to the author's prompt, for words a reader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tie {
    /// A literal position of the author's text.
    Place,
    /// A token the author expected, or a word of the author's text.
    Word,
    /// An experiment on the author's prompt, or a tensor whose axes are not known.
    Experiment,
}

impl Tie {
    /// `place`, `word` or `experiment`.
    pub fn word(self) -> &'static str {
        match self {
            Tie::Place => "place",
            Tie::Word => "word",
            Tie::Experiment => "experiment",
        }
    }
}

impl Carry {
    /// The word `check --claims list` prints: `always`, `if-present` or `author`.
    pub fn word(&self) -> &'static str {
        match self {
            Carry::Always => "always",
            Carry::IfPresent { .. } => "if-present",
            Carry::Author { .. } => "author",
        }
    }

    /// Why, in a few words (empty for [`Carry::Always`]).
    pub fn why(&self) -> String {
        match self {
            Carry::Always => String::new(),
            Carry::IfPresent {
                prompt,
                written,
                repeats,
            } => {
                let quoted = |texts: &[String]| -> String {
                    let q: Vec<String> = texts.iter().map(|t| format!("{t:?}")).collect();
                    q.join(" and ")
                };
                let mut parts = Vec::new();
                if !prompt.is_empty() {
                    parts.push(format!("the text has {} once", quoted(prompt)));
                }
                if !written.is_empty() {
                    parts.push(format!("the translation has {} once", quoted(written)));
                }
                if *repeats {
                    parts.push("the text says the token earlier(…) asks about twice".to_string());
                }
                format!("where {}", parts.join(" and "))
            }
            Carry::Author { why, .. } => why.clone(),
        }
    }
}

/// What an axis of a traced tensor counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Positions of the prompt (or of the decoder's text, or the encoder's).
    Position,
    /// The model's parts or sizes: layers, heads, features, ranks of a top-k list.
    Part,
    /// Token ids of the vocabulary.
    Vocab,
    /// An experiment's targets (`ablate`'s, `attribute`'s): chosen for the author's prompt,
    /// or by rule (`guess(1)`), which `target(guess(1))` names on any prompt.
    Target,
}

/// The experiments' tables that stay with the author's prompt: patching pairs it with a
/// corrupted text the author wrote for it, which a reader's text would not match. The others
/// (`ablation.*`, `dla.*`, `saliency.*`, `flow.*`) are rerun on a reader's text with the
/// author's options, so a claim over them carries over where it names its targets by rule
/// (`target(guess(1))`) and its positions by role.
const AUTHOR_ONLY: &[&str] = &["patching."];

/// The axes of the tensor called `name`, for every tensor a trace holds and every
/// experiment's table, read off the trace's one description of them
/// ([`tracebook_trace::axis_names`]); `None` for patching's tables, which pair the prompt with
/// the author's corrupted text, and for names tracebook does not trace.
pub fn axes(name: &str) -> Option<Vec<Axis>> {
    if AUTHOR_ONLY.iter().any(|prefix| name.starts_with(prefix)) {
        return None;
    }
    let words = tracebook_trace::axis_names(name)?;
    Some(
        (words.into_iter())
            .map(|word| match word {
                "positions" | "queries" | "keys" => Axis::Position,
                "vocab" => Axis::Vocab,
                "targets" => Axis::Target,
                _ => Axis::Part,
            })
            .collect(),
    )
}

/// Whether `claim` can be asked of another prompt.
pub fn carry(claim: &Expr) -> Carry {
    let mut found = Found::default();
    found.expr(claim, Context::Value, &[]);
    match found.author {
        Some((span, tie, why)) => Carry::Author { span, tie, why },
        None if found.prompt.is_empty() && found.written.is_empty() && !found.repeats => {
            Carry::Always
        }
        None => Carry::IfPresent {
            prompt: found.prompt,
            written: found.written,
            repeats: found.repeats,
        },
    }
}

/// What an expression stands for where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// A value of the model's: anything goes.
    Value,
    /// A position of the prompt.
    Position,
    /// A token: its id or its text.
    Token,
    /// The text of one of the prompt's tokens (`token(i) == " the"`).
    Word,
    /// An index among an experiment's targets.
    Target,
}

#[derive(Default)]
struct Found {
    /// The first part that ties the claim to the author's prompt.
    author: Option<(Range<usize>, Tie, String)>,
    /// The texts found by `pos`, and by `wrote`.
    prompt: Vec<String>,
    written: Vec<String>,
    /// Whether it asks where a token was said before (`earlier`).
    repeats: bool,
}

impl Found {
    fn author(&mut self, span: &Range<usize>, tie: Tie, why: String) {
        if self.author.is_none() {
            self.author = Some((span.clone(), tie, why));
        }
    }

    /// `vars` are the variables bound by enclosing quantifiers (they carry: their ranges are
    /// checked where they are bound).
    fn expr(&mut self, e: &Expr, at: Context, vars: &[&str]) {
        match &e.kind {
            Kind::Num(n) => match at {
                Context::Position if *n > 0.0 => self.author(
                    &e.span,
                    Tie::Place,
                    format!("position {n} is a place in the author's text (count from the end with negative numbers, or name it by role: last(), pos(\"…\"))"),
                ),
                Context::Token => self.author(
                    &e.span,
                    Tie::Word,
                    format!("token {n} is a token the author expected (the model's own guess is guess(1))"),
                ),
                Context::Target => self.author(
                    &e.span,
                    Tie::Word,
                    format!("target {n} is a target the author chose (name a target by rule: target(guess(1)), with targets = [\"guess(1)\"])"),
                ),
                _ => {}
            },
            // Outside `pos` and `wrote` a text is a word of the author's prompt, or a token
            // the author expected.
            Kind::Str(text) if at == Context::Word => self.author(
                &e.span,
                Tie::Word,
                format!("{text:?} is a word of the author's text (find it by its text with pos({text:?}))"),
            ),
            Kind::Str(text) => self.author(
                &e.span,
                Tie::Word,
                format!("{text:?} is a token the author expected (the model's own guess is guess(1))"),
            ),
            Kind::Name(name) => {
                if !vars.contains(&name.as_str()) && axes(name).is_none() {
                    self.author(&e.span, Tie::Experiment, untraced(name));
                }
            }
            Kind::Call { name, args, .. } => self.call(name, args, &e.span, vars),
            Kind::Index { target, indices } => self.index(target, indices, vars),
            Kind::Neg(x) => match (&x.kind, at) {
                // -1 is the last position, -2 the one before, on any prompt.
                (Kind::Num(_), Context::Position) => {}
                _ => self.expr(x, at, vars),
            },
            Kind::Not(x) => self.expr(x, Context::Value, vars),
            Kind::Binary { op, left, right } => self.binary(*op, left, right, at, vars),
            Kind::Quantifier {
                var,
                from,
                to,
                body,
                ..
            } => {
                let mut inner = vars.to_vec();
                inner.push(var);
                let bound = if uses_as_position(body, var) {
                    Context::Position
                } else {
                    Context::Value
                };
                for end in [from, to].into_iter().flatten() {
                    self.expr(end, bound, vars);
                }
                self.expr(body, Context::Value, &inner);
            }
        }
    }

    fn call(&mut self, name: &str, args: &[Expr], span: &Range<usize>, vars: &[&str]) {
        match name {
            "pos" | "wrote" => match args.first().map(|a| &a.kind) {
                Some(Kind::Str(text)) => {
                    let texts = if name == "pos" {
                        &mut self.prompt
                    } else {
                        &mut self.written
                    };
                    if !texts.contains(text) {
                        texts.push(text.clone());
                    }
                }
                _ => args.iter().for_each(|a| self.expr(a, Context::Value, vars)),
            },
            "token" | "id" => args
                .iter()
                .for_each(|a| self.expr(a, Context::Position, vars)),
            "earlier" => {
                self.repeats = true;
                args.iter()
                    .for_each(|a| self.expr(a, Context::Position, vars));
            }
            "prob" | "text" => args.iter().for_each(|a| self.expr(a, Context::Token, vars)),
            // `target(" his")` names a token the author chose; `target(guess(1))` a rule.
            "target" => match args.first().map(|a| &a.kind) {
                Some(Kind::Str(text)) => self.author(
                    span,
                    Tie::Word,
                    format!("{text:?} is a target the author chose (name a target by rule: target(guess(1)), with targets = [\"guess(1)\"])"),
                ),
                _ => args.iter().for_each(|a| self.expr(a, Context::Token, vars)),
            },
            "rank" => {
                if let [x, i] = args {
                    self.expr(x, Context::Value, vars);
                    self.expr(i, context_of(result_axis(x)), vars);
                }
            }
            _ => args.iter().for_each(|a| self.expr(a, Context::Value, vars)),
        }
    }

    fn index(&mut self, target: &Expr, indices: &[Index], vars: &[&str]) {
        let Kind::Name(name) = &target.kind else {
            self.expr(target, Context::Value, vars);
            indices
                .iter()
                .for_each(|i| self.each(i, Context::Value, vars));
            return;
        };
        let Some(axes) = axes(name) else {
            self.author(&target.span, Tie::Experiment, untraced(name));
            return;
        };
        for (i, index) in indices.iter().enumerate() {
            let at = match axes.get(i) {
                Some(Axis::Position) => Context::Position,
                Some(Axis::Vocab) => Context::Token,
                Some(Axis::Target) => Context::Target,
                _ => Context::Value,
            };
            self.each(index, at, vars);
        }
    }

    fn each(&mut self, index: &Index, at: Context, vars: &[&str]) {
        match index {
            Index::At(e) => self.expr(e, at, vars),
            Index::Slice { from, to, .. } => {
                for end in [from, to].into_iter().flatten() {
                    self.expr(end, at, vars);
                }
            }
        }
    }

    fn binary(&mut self, op: Op, left: &Expr, right: &Expr, at: Context, vars: &[&str]) {
        match op {
            // `last() - 1`: a role moved by a number is still a role.
            Op::Add | Op::Sub if at == Context::Position => {
                let literal = |e: &Expr| matches!(e.kind, Kind::Num(_));
                match (literal(left), literal(right)) {
                    (false, true) => self.expr(left, at, vars),
                    (true, false) => self.expr(right, at, vars),
                    _ => {
                        self.expr(left, at, vars);
                        self.expr(right, at, vars);
                    }
                }
            }
            // `id(-1) == 464`, `argmax(pattern[2, -1, :]) == 6`: a number beside a token or a
            // position is one too.
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let (l, r) = (stands_for(left), stands_for(right));
                self.expr(
                    left,
                    if l == Context::Value {
                        r
                    } else {
                        Context::Value
                    },
                    vars,
                );
                self.expr(
                    right,
                    if r == Context::Value {
                        l
                    } else {
                        Context::Value
                    },
                    vars,
                );
            }
            Op::In => {
                self.expr(left, Context::Token, vars);
                self.expr(right, Context::Value, vars);
            }
            _ => {
                let inner = if at == Context::Position {
                    at
                } else {
                    Context::Value
                };
                self.expr(left, inner, vars);
                self.expr(right, inner, vars);
            }
        }
    }
}

pub(crate) fn untraced(name: &str) -> String {
    let author_only = AUTHOR_ONLY.iter().any(|prefix| name.starts_with(prefix));
    if author_only && tracebook_trace::axis_names(name).is_some() {
        format!("`{name}` is an experiment on the author's prompt (its corrupted text)")
    } else {
        format!("`{name}` is not a tensor whose axes tracebook knows")
    }
}

/// What `e`'s value is: a position (`last()`, `pos(…)`, the argmax over positions), a token
/// (`id(i)`, `guess(k)`, the argmax over the vocabulary), or another value.
fn stands_for(e: &Expr) -> Context {
    match &e.kind {
        Kind::Call { name, args, .. } => match name.as_str() {
            "id" | "guess" => Context::Token,
            "token" => Context::Word,
            "last" | "first" | "pos" | "wrote" | "earlier" => Context::Position,
            "argmax" | "argmin" => args
                .first()
                .map_or(Context::Value, |x| context_of(result_axis(x))),
            _ => Context::Value,
        },
        _ => Context::Value,
    }
}

fn context_of(axis: Option<Axis>) -> Context {
    match axis {
        Some(Axis::Position) => Context::Position,
        Some(Axis::Vocab) => Context::Token,
        _ => Context::Value,
    }
}

/// The one axis that `x` (a tensor, or one indexed down to a single axis) still has.
fn result_axis(x: &Expr) -> Option<Axis> {
    let (name, indices): (&str, &[Index]) = match &x.kind {
        Kind::Name(n) => (n, &[]),
        Kind::Index { target, indices } => match &target.kind {
            Kind::Name(n) => (n, indices),
            _ => return None,
        },
        _ => return None,
    };
    let axes = axes(name)?;
    let kept: Vec<Axis> = (axes.iter().enumerate())
        .filter(|(i, _)| !matches!(indices.get(*i), Some(Index::At(_))))
        .map(|(_, a)| *a)
        .collect();
    match kept.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// Whether the quantifier's variable `var` is used in `body` as a position (an index on a
/// position axis, or the argument of `token`/`id`), so that its range's ends are positions.
fn uses_as_position(body: &Expr, var: &str) -> bool {
    let is_var = |e: &Expr| -> bool {
        let mut e = e;
        loop {
            match &e.kind {
                Kind::Name(n) => return n == var,
                Kind::Binary {
                    op: Op::Add | Op::Sub,
                    left,
                    ..
                } => e = left,
                _ => return false,
            }
        }
    };
    match &body.kind {
        Kind::Index { target, indices } => {
            let axes = match &target.kind {
                Kind::Name(n) => axes(n).unwrap_or_default(),
                _ => Vec::new(),
            };
            indices.iter().enumerate().any(|(i, index)| {
                let here = matches!(index, Index::At(e) if is_var(e))
                    && axes.get(i) == Some(&Axis::Position);
                here || match index {
                    Index::At(e) => uses_as_position(e, var),
                    Index::Slice { from, to, .. } => [from, to]
                        .into_iter()
                        .flatten()
                        .any(|e| uses_as_position(e, var)),
                }
            }) || uses_as_position(target, var)
        }
        Kind::Call { name, args, .. } => args.iter().any(|a| {
            (matches!(name.as_str(), "token" | "id") && is_var(a)) || uses_as_position(a, var)
        }),
        Kind::Neg(x) | Kind::Not(x) => uses_as_position(x, var),
        Kind::Binary { left, right, .. } => {
            uses_as_position(left, var) || uses_as_position(right, var)
        }
        Kind::Quantifier { from, to, body, .. } => {
            [from, to]
                .into_iter()
                .flatten()
                .any(|e| uses_as_position(e, var))
                || uses_as_position(body, var)
        }
        Kind::Num(_) | Kind::Str(_) | Kind::Name(_) => false,
    }
}
