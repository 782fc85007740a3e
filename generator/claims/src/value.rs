//! The values a claim computes with: numbers (an index may carry the token it names),
//! truth values, text, tensors read from the trace, and sets of token ids (`top(k)`).

use super::format::number;
use std::fmt;

/// A value during evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// A number; `label` names the token an index stands for (`4 (" street")`).
    Num {
        value: f64,
        label: Option<String>,
    },
    Bool(bool),
    Text(String),
    /// Shared: a claim may read one tensor many times (in `all`), never copying it.
    Tensor(std::rc::Rc<Array>),
    /// Token ids: the likeliest next tokens.
    Ids(Vec<u32>),
}

/// A tensor as f64, with what its last axis counts (for labelling `argmax`).
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
    pub last: Axis,
}

/// What the positions along a tensor's last axis are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// The prompt's tokens (attention keys, per-token values).
    Positions,
    /// The model's vocabulary (logits).
    Vocab,
    Plain,
}

impl Val {
    pub fn num(value: f64) -> Val {
        Val::Num { value, label: None }
    }

    /// The kind of value, for type errors.
    pub fn kind(&self) -> String {
        match self {
            Val::Num { .. } => "a number".into(),
            Val::Bool(_) => "true or false".into(),
            Val::Text(_) => "text".into(),
            Val::Tensor(a) if a.shape.len() == 1 => format!("a vector of {} numbers", a.shape[0]),
            Val::Tensor(a) => format!("a tensor of shape {}", shape_text(&a.shape)),
            Val::Ids(ids) => format!("a set of {} tokens", ids.len()),
        }
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Num { value, label: None } => f.write_str(&number(*value)),
            Val::Num {
                value,
                label: Some(label),
            } => write!(f, "{} ({label:?})", number(*value)),
            Val::Bool(b) => write!(f, "{b}"),
            Val::Text(t) => write!(f, "{t:?}"),
            Val::Tensor(_) | Val::Ids(_) => f.write_str(&self.kind()),
        }
    }
}

/// `3×4`.
pub fn shape_text(shape: &[usize]) -> String {
    shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("×")
}
