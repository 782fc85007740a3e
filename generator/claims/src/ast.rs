//! The claim language's syntax tree: every node keeps the byte range it was written at, so
//! errors and explanations point at the author's text.

use std::ops::Range;

/// An expression and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: Kind,
    pub span: Range<usize>,
}

/// What an expression is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Num(f64),
    Str(String),
    /// A variable bound by `all`/`any`, or a tensor of the trace.
    Name(String),
    Call {
        name: String,
        name_span: Range<usize>,
        args: Vec<Expr>,
    },
    Index {
        target: Box<Expr>,
        indices: Vec<Index>,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary {
        op: Op,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `all(v in a:b, body)` / `any(...)`.
    Quantifier {
        all: bool,
        var: String,
        from: Option<Box<Expr>>,
        to: Option<Box<Expr>>,
        body: Box<Expr>,
    },
}

/// One index of `x[...]`: a position, or a slice `a:b` with optional ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Index {
    At(Expr),
    Slice {
        from: Option<Expr>,
        to: Option<Expr>,
        span: Range<usize>,
    },
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    And,
    Or,
}

impl Op {
    /// As written.
    pub fn text(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::In => "in",
            Op::And => "and",
            Op::Or => "or",
        }
    }

    /// A comparison (one per expression: `a < b < c` is refused).
    pub fn compares(self) -> bool {
        matches!(
            self,
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::In
        )
    }
}
