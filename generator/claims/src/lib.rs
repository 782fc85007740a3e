//! Claims: sentences of an article made checkable. `{{ claim PROMPT EXPR }}` states that
//! `EXPR`, a small typed expression over the prompt's trace, is true; every build evaluates
//! it, so prose that stops being true of the model fails the build (or warns) like a broken
//! link. The language (documented in docs/authoring.md) has numbers, "text", tensor names
//! with indices and slices (`blocks.1.attn.pattern[2, 3:6, :]`), the functions of
//! `FUNCTIONS` (eval.rs), arithmetic, comparisons, `in top(k)`, `and`/`or`/`not` and `all`/`any`
//! over a range of positions.
//!
//! Parsing is a hand-written recursive-descent parser over a lexer with spans (the grammar
//! is a dozen rules; a parser crate would cost more than it saves and its errors would not
//! point at the author's text as exactly).
//!
//! A crate of its own, depending only on the trace crate, so that the site builder and the
//! browser's live module evaluate claims with the same code.

mod ast;
mod carry;
mod eval;
mod format;
mod lex;
mod parse;
mod problem;
pub mod roles;
mod value;
mod verdict;

pub use ast::{Expr, Kind as ExprKind};
pub use carry::{axes, carry, Axis, Carry, Tie};
pub use eval::{Decoded, Evaluator, NoVocabulary, Vocabulary};
pub use format::significant;
pub use parse::parse;
pub use problem::{Cause, Problem};
pub use value::{Array, Val};
pub use verdict::decide;
pub use verdict::Verdict;

#[cfg(test)]
mod carry_tests;
#[cfg(test)]
mod tests;
