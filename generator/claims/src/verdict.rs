//! A claim's verdict and the values behind it, in words: `argmax(...) is 4 (" street"),
//! not 6` for a false claim, `0.62 > 0.4` for a true one.

use super::ast::{Expr, Kind, Op};
use super::eval::Evaluator;
use crate::problem::Problem;

/// Whether a claim holds, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub holds: bool,
    /// The values that decided it.
    pub detail: String,
}

/// Decides `expr`, written in `src` (spans index it), with the values that made it so.
pub fn decide(ev: &Evaluator<'_>, expr: &Expr, src: &str) -> Result<Verdict, Problem> {
    let (holds, detail) = explain(ev, expr, src)?;
    Ok(Verdict { holds, detail })
}

fn text<'s>(src: &'s str, expr: &Expr) -> &'s str {
    src.get(expr.span.clone()).unwrap_or("?").trim()
}

fn explain(ev: &Evaluator<'_>, expr: &Expr, src: &str) -> Result<(bool, String), Problem> {
    match &expr.kind {
        Kind::Binary {
            op: Op::And,
            left,
            right,
        } => {
            let (a, da) = explain(ev, left, src)?;
            if !a {
                return Ok((false, da));
            }
            let (b, db) = explain(ev, right, src)?;
            Ok((b, if b { format!("{da}; {db}") } else { db }))
        }
        Kind::Binary {
            op: Op::Or,
            left,
            right,
        } => {
            let (a, da) = explain(ev, left, src)?;
            if a {
                return Ok((true, da));
            }
            let (b, db) = explain(ev, right, src)?;
            Ok((b, if b { db } else { format!("{da}; {db}") }))
        }
        Kind::Binary {
            op: Op::In,
            left,
            right,
        } => {
            let holds = ev.boolean(expr)?;
            let l = ev.eval(left)?;
            let (l_src, r_src) = (text(src, left), text(src, right));
            let shown = if l_src.starts_with('"') {
                l.to_string()
            } else {
                format!("`{l_src}` ({l})")
            };
            // A false `in top(k)` says what is true: which tokens the top holds.
            let top = match (&right.kind, holds) {
                (Kind::Call { name, .. }, false) if name == "top" => match ev.eval(right)? {
                    crate::value::Val::Ids(ids) if ids.len() == 1 => {
                        format!(": the top is {}", ev.shown_with_probs(&ids, &right.span)?)
                    }
                    crate::value::Val::Ids(ids) => format!(
                        ": the top {} are {}",
                        ids.len(),
                        ev.shown_with_probs(&ids, &right.span)?
                    ),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            Ok((
                holds,
                if holds {
                    format!("{shown} is in `{r_src}`")
                } else {
                    format!("{shown} is not in `{r_src}`{top}")
                },
            ))
        }
        Kind::Binary { op, left, right } if op.compares() => {
            let holds = ev.boolean(expr)?;
            let (l, r) = (ev.eval(left)?, ev.eval(right)?);
            let op = op.text();
            Ok((
                holds,
                if holds {
                    format!("{l} {op} {r}")
                } else if op == "==" {
                    format!("`{}` is {l}, not {r}", text(src, left))
                } else {
                    format!("`{}` is {l}, not {op} {r}", text(src, left))
                },
            ))
        }
        Kind::Not(inner) => {
            let (x, dx) = explain(ev, inner, src)?;
            Ok((!x, if x { format!("it does: {dx}") } else { dx }))
        }
        Kind::Quantifier {
            all,
            var,
            from,
            to,
            body,
        } => {
            let (holds, decider) = ev.quantifier(expr)?;
            let (a, b) = ev.range(from.as_deref(), to.as_deref())?;
            let span = if b > a {
                format!("from {a} to {}", b - 1)
            } else {
                "in an empty range".into()
            };
            let detail = match decider {
                Some(v) => {
                    let (_, d) = ev.with_var(var, v, || explain(ev, body, src))?;
                    format!("for {var} = {v}: {d}")
                }
                None if *all => format!("holds for every {var} {span}"),
                None => format!("holds for no {var} {span}"),
            };
            Ok((holds, detail))
        }
        _ => {
            let holds = ev.boolean(expr)?;
            Ok((holds, format!("`{}` is {holds}", text(src, expr))))
        }
    }
}
