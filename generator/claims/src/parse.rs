//! A recursive-descent parser for claims, one function per precedence level (lowest first):
//! `or`, `and`, `not`, one comparison (`== != < <= > >= in`), `+ -`, `* /`, unary `-`,
//! indexing `x[...]`, and atoms (numbers, "text", names, calls, `all`/`any`, parentheses).

use super::ast::{Expr, Index, Kind, Op};
use super::lex::{lex, Spanned, Tok};
use crate::problem::Problem;
use std::ops::Range;

/// Nesting deeper than this is refused (a claim is a sentence, not a program; and the
/// parser must not overflow its stack on hostile input).
const MAX_DEPTH: usize = 64;

/// Parses the claim written at `text[range]`.
pub fn parse(text: &str, range: Range<usize>) -> Result<Expr, Problem> {
    let tokens = lex(text, range.clone())?;
    if tokens.is_empty() {
        return Err(Problem::new(range, "this claim is empty").with_hint(
            "write what must hold, e.g. {{ claim PROMPT argmax(logits.last) == id(2) }}",
        ));
    }
    let mut parser = Parser {
        tokens,
        at: 0,
        end: range.end,
        depth: 0,
    };
    let expr = parser.or()?;
    if let Some(extra) = parser.tokens.get(parser.at) {
        return Err(Problem::new(
            extra.span.clone(),
            format!("unexpected {} after a complete claim", describe(&extra.tok)),
        )
        .with_hint("join two claims with `and` or `or`; compare with `==`, `<`, `>` ..."));
    }
    Ok(expr)
}

struct Parser {
    tokens: Vec<Spanned>,
    at: usize,
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    fn next_span(&self) -> Range<usize> {
        self.tokens
            .get(self.at)
            .map_or(self.end..self.end, |t| t.span.clone())
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if n == w)
    }

    fn bump(&mut self) -> Spanned {
        let t = self.tokens[self.at].clone();
        self.at += 1;
        t
    }

    fn expect(&mut self, p: &'static str, what: &str) -> Result<Range<usize>, Problem> {
        if self.is_punct(p) {
            return Ok(self.bump().span);
        }
        let found = self
            .peek()
            .map_or("the end of the claim".to_string(), describe);
        Err(Problem::new(
            self.next_span(),
            format!("expected `{p}` {what}, found {found}"),
        ))
    }

    fn deeper(&mut self) -> Result<(), Problem> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(
                Problem::new(self.next_span(), "this claim nests too deeply")
                    .with_hint("split it into several claims"),
            );
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Expr, Problem> {
        self.deeper()?;
        let mut left = self.and()?;
        while self.is_word("or") {
            self.bump();
            let right = self.and()?;
            left = binary(Op::Or, left, right);
        }
        self.depth -= 1;
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, Problem> {
        let mut left = self.not()?;
        while self.is_word("and") {
            self.bump();
            let right = self.not()?;
            left = binary(Op::And, left, right);
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, Problem> {
        if self.is_word("not") {
            let start = self.bump().span.start;
            self.deeper()?;
            let operand = self.not()?;
            self.depth -= 1;
            let span = start..operand.span.end;
            return Ok(Expr {
                kind: Kind::Not(Box::new(operand)),
                span,
            });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, Problem> {
        let left = self.sum()?;
        let Some(op) = self.comparison_op() else {
            return Ok(left);
        };
        self.bump();
        let right = self.sum()?;
        if let Some(again) = self.comparison_op() {
            return Err(Problem::new(
                self.next_span(),
                format!("a second comparison `{}` in a row", again.text()),
            )
            .with_hint("write `a < b and b < c` rather than `a < b < c`"));
        }
        Ok(binary(op, left, right))
    }

    fn comparison_op(&self) -> Option<Op> {
        match self.peek()? {
            Tok::Punct("==") => Some(Op::Eq),
            Tok::Punct("!=") => Some(Op::Ne),
            Tok::Punct("<") => Some(Op::Lt),
            Tok::Punct("<=") => Some(Op::Le),
            Tok::Punct(">") => Some(Op::Gt),
            Tok::Punct(">=") => Some(Op::Ge),
            Tok::Name(n) if n == "in" => Some(Op::In),
            _ => None,
        }
    }

    fn sum(&mut self) -> Result<Expr, Problem> {
        let mut left = self.product()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct("+")) => Op::Add,
                Some(Tok::Punct("-")) => Op::Sub,
                _ => return Ok(left),
            };
            self.bump();
            let right = self.product()?;
            left = binary(op, left, right);
        }
    }

    fn product(&mut self) -> Result<Expr, Problem> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct("*")) => Op::Mul,
                Some(Tok::Punct("/")) => Op::Div,
                _ => return Ok(left),
            };
            self.bump();
            let right = self.unary()?;
            left = binary(op, left, right);
        }
    }

    fn unary(&mut self) -> Result<Expr, Problem> {
        if self.is_punct("-") {
            let start = self.bump().span.start;
            self.deeper()?;
            let operand = self.unary()?;
            self.depth -= 1;
            let span = start..operand.span.end;
            return Ok(match operand.kind {
                Kind::Num(n) => Expr {
                    kind: Kind::Num(-n),
                    span,
                },
                _ => Expr {
                    kind: Kind::Neg(Box::new(operand)),
                    span,
                },
            });
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Expr, Problem> {
        let mut target = self.atom()?;
        while self.is_punct("[") {
            self.bump();
            let mut indices = vec![self.index()?];
            while self.is_punct(",") {
                self.bump();
                indices.push(self.index()?);
            }
            let end = self.expect("]", "to close the indices")?.end;
            let span = target.span.start..end;
            target = Expr {
                kind: Kind::Index {
                    target: Box::new(target),
                    indices,
                },
                span,
            };
        }
        Ok(target)
    }

    fn index(&mut self) -> Result<Index, Problem> {
        let start = self.next_span().start;
        let from = if self.is_punct(":") || self.is_punct(",") || self.is_punct("]") {
            None
        } else {
            Some(self.sum()?)
        };
        if !self.is_punct(":") {
            return match from {
                Some(at) => Ok(Index::At(at)),
                None => Err(
                    Problem::new(self.next_span(), "expected an index").with_hint(
                        "write a position (negative counts from the end), or a slice like 2:5 or :",
                    ),
                ),
            };
        }
        let colon = self.bump().span;
        let to = if self.is_punct(",") || self.is_punct("]") {
            None
        } else {
            Some(self.sum()?)
        };
        let end = to.as_ref().map_or(colon.end, |t| t.span.end);
        Ok(Index::Slice {
            from,
            to,
            span: start..end,
        })
    }

    fn atom(&mut self) -> Result<Expr, Problem> {
        let Some(token) = self.tokens.get(self.at).cloned() else {
            return Err(Problem::new(self.end..self.end, "the claim ends too early")
                .with_hint("finish the expression, e.g. `... > 0.5`"));
        };
        match token.tok {
            Tok::Num(n) => {
                self.bump();
                Ok(Expr {
                    kind: Kind::Num(n),
                    span: token.span,
                })
            }
            Tok::Str(s) => {
                self.bump();
                Ok(Expr {
                    kind: Kind::Str(s),
                    span: token.span,
                })
            }
            Tok::Punct("(") => {
                let start = self.bump().span.start;
                let inner = self.or()?;
                let end = self.expect(")", "to close `(`")?.end;
                Ok(Expr {
                    span: start..end,
                    ..inner
                })
            }
            Tok::Name(name) if is_keyword(&name) => Err(Problem::new(
                token.span,
                format!("`{name}` needs something before it"),
            )),
            Tok::Name(name) => {
                self.bump();
                if !self.is_punct("(") {
                    return Ok(Expr {
                        kind: Kind::Name(name),
                        span: token.span,
                    });
                }
                if name == "all" || name == "any" {
                    return self.quantifier(name == "all", token.span);
                }
                self.call(name, token.span)
            }
            Tok::Punct(p) => Err(Problem::new(token.span, format!("unexpected `{p}`"))
                .with_hint("expected a number, \"text\", a tensor name or a function call")),
        }
    }

    fn call(&mut self, name: String, name_span: Range<usize>) -> Result<Expr, Problem> {
        self.bump();
        self.deeper()?;
        let mut args = Vec::new();
        if !self.is_punct(")") {
            args.push(self.or()?);
            while self.is_punct(",") {
                self.bump();
                args.push(self.or()?);
            }
        }
        let end = self.expect(")", &format!("to close `{name}(`"))?.end;
        self.depth -= 1;
        Ok(Expr {
            span: name_span.start..end,
            kind: Kind::Call {
                name,
                name_span,
                args,
            },
        })
    }

    /// `all(q in 3:6, body)`.
    fn quantifier(&mut self, all: bool, name_span: Range<usize>) -> Result<Expr, Problem> {
        let word = if all { "all" } else { "any" };
        let form = format!("write {word}(q in 3:6, CLAIM ABOUT q)");
        self.bump();
        let var = match self.tokens.get(self.at).map(|t| t.tok.clone()) {
            Some(Tok::Name(v)) if !is_keyword(&v) => {
                self.bump();
                v
            }
            _ => {
                return Err(Problem::new(
                    self.next_span(),
                    format!("`{word}` needs a variable first"),
                )
                .with_hint(form))
            }
        };
        if !self.is_word("in") {
            return Err(
                Problem::new(self.next_span(), format!("expected `in` after `{var}`"))
                    .with_hint(form),
            );
        }
        self.bump();
        let from = (!self.is_punct(":")).then(|| self.sum()).transpose()?;
        self.expect(":", "between the range's ends (3:6 is 3, 4 and 5)")?;
        let to = (!self.is_punct(",")).then(|| self.sum()).transpose()?;
        self.expect(",", "after the range")?;
        self.deeper()?;
        let body = self.or()?;
        self.depth -= 1;
        let end = self.expect(")", &format!("to close `{word}(`"))?.end;
        Ok(Expr {
            span: name_span.start..end,
            kind: Kind::Quantifier {
                all,
                var,
                from: from.map(Box::new),
                to: to.map(Box::new),
                body: Box::new(body),
            },
        })
    }
}

fn is_keyword(word: &str) -> bool {
    matches!(word, "and" | "or" | "not" | "in")
}

fn binary(op: Op, left: Expr, right: Expr) -> Expr {
    Expr {
        span: left.span.start..right.span.end,
        kind: Kind::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
    }
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Num(n) => format!("the number {n}"),
        Tok::Str(s) => format!("the text {s:?}"),
        Tok::Name(n) => format!("`{n}`"),
        Tok::Punct(p) => format!("`{p}`"),
    }
}
