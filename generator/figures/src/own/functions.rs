//! What an author's template reads besides its context: the trace's tensors and tables by name
//! (`tensor`), any expression of the claims language (`value`), the theme's colour ramps
//! (`fill`, `ink`), text widths for layout (`text_width`) and numbers as the built-in kinds
//! print them (the `num` and `percent` filters).
//!
//! Tera's functions own what they read, so they share the figure's traces through an `Arc`;
//! what they hand out is counted against a budget, so that a template cannot make a figure
//! out of millions of values by accident.

use crate::svg::{text_width, Font, Ramp};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tera::{Error, Kwargs, State, Tera, Value};
use tracebook_claims::{parse, Array, Evaluator, NoVocabulary, Val};
use tracebook_trace::suggest::did_you_mean;
use tracebook_trace::Trace;

/// The most values `tensor` and `value` hand one figure.
pub const MAX_VALUES: usize = 2_000_000;

/// The prompts a figure draws, and what its functions did.
pub struct Shared {
    /// The block's prompts by name, the first the default.
    pub traces: Vec<(String, Trace)>,
    handed: AtomicUsize,
    /// Which ramps `fill` and `ink` used: the figure's style sheet carries their rules.
    pub ramps: Mutex<BTreeMap<&'static str, Ramp>>,
}

impl Shared {
    pub fn new(traces: Vec<(String, Trace)>) -> Arc<Shared> {
        Arc::new(Shared {
            traces,
            handed: AtomicUsize::new(0),
            ramps: Mutex::new(BTreeMap::new()),
        })
    }

    /// The trace of `prompt` (the first when `None`).
    fn trace(&self, prompt: Option<&str>) -> Result<(&str, &Trace), Error> {
        let Some(name) = prompt else {
            let (name, trace) = &self.traces[0];
            return Ok((name, trace));
        };
        match self.traces.iter().find(|(n, _)| n == name) {
            Some((n, trace)) => Ok((n, trace)),
            None => {
                let names: Vec<&str> = self.traces.iter().map(|(n, _)| n.as_str()).collect();
                let near = did_you_mean(name, names.iter().copied()).unwrap_or_default();
                Err(Error::message(format!(
                    "prompt {name:?} is not one of this figure's ({}) {near}",
                    names.join(", ")
                )))
            }
        }
    }

    /// `source` (a claims expression) evaluated on `prompt`'s trace, as a template value.
    fn value(&self, source: &str, prompt: Option<&str>) -> Result<Value, Error> {
        let (name, trace) = self.trace(prompt)?;
        let expr = parse(source, 0..source.len())
            .map_err(|p| Error::message(format!("`{source}`: {}", p.message)))?;
        let evaluator = Evaluator::new(trace, name, &NoVocabulary);
        let val = evaluator.eval(&expr).map_err(|p| {
            let hint = p.hint.map(|h| format!(" (hint: {h})")).unwrap_or_default();
            Error::message(format!("`{source}` on `{name}`: {}{hint}", p.message))
        })?;
        let count = match &val {
            Val::Tensor(a) => a.data.len(),
            Val::Ids(ids) => ids.len(),
            _ => 1,
        };
        let handed = self.handed.fetch_add(count, Ordering::Relaxed) + count;
        if handed > MAX_VALUES {
            return Err(Error::message(format!(
                "this figure read more than {MAX_VALUES} values from its traces: slice what it \
                 draws (`blocks.1.mlp.post[:, 5]`, not the whole tensor)"
            )));
        }
        Ok(match val {
            Val::Num { value, .. } => number_value(value),
            Val::Bool(b) => Value::from(b),
            Val::Text(t) => Value::from(t),
            Val::Ids(ids) => Value::from_serializable(&ids),
            Val::Tensor(a) => nested(&a, 0, &mut 0),
        })
    }

    /// The class of `value`'s bin on the sequential ramp over [min, max], or on the diverging
    /// one when `min` is below zero (over [−limit, limit], limit the larger magnitude); `text`
    /// picks the class for text drawn on such a cell.
    fn shade(&self, value: f64, min: f64, max: f64, text: bool) -> Result<String, Error> {
        if !(value.is_finite() && min.is_finite() && max.is_finite()) || max <= min {
            return Err(Error::message(format!(
                "fill(value={value}, min={min}, max={max}): give finite numbers with min below max"
            )));
        }
        let (name, ramp, bin) = if min < 0.0 {
            let limit = min.abs().max(max.abs());
            let ramp = Ramp::signed();
            let bin = ramp.bin_of_signed((value / limit).clamp(-1.0, 1.0));
            ("signed", ramp, bin)
        } else {
            let ramp = Ramp::unit();
            let bin = ramp.bin_of_unit(((value - min) / (max - min)).clamp(0.0, 1.0));
            ("unit", ramp, bin)
        };
        let class = if text {
            ramp.text_class(bin)
        } else {
            ramp.class(bin)
        };
        self.ramps
            .lock()
            .expect("no panic holds it")
            .insert(name, ramp);
        Ok(class)
    }
}

/// A number as a template value: a whole one as an integer (`4`, not `4.0`, and usable as an
/// index).
fn number_value(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// `a` from axis `axis` on as nested lists, its values in order from `*at`.
fn nested(a: &Array, axis: usize, at: &mut usize) -> Value {
    if axis == a.shape.len() {
        let v = a.data[*at];
        *at += 1;
        return Value::from(v);
    }
    let items: Vec<Value> = (0..a.shape[axis])
        .map(|_| nested(a, axis + 1, at))
        .collect();
    Value::from(items)
}

/// A required number argument.
fn number_arg(kwargs: &Kwargs, key: &str) -> Result<f64, Error> {
    kwargs.must_get::<f64>(key)
}

/// Registers the functions and filters on `tera`, reading from `shared`.
pub fn register(tera: &mut Tera, shared: &Arc<Shared>) {
    let s = shared.clone();
    tera.register_function("value", move |kwargs: Kwargs, _: &State| {
        let of: String = kwargs.must_get("of")?;
        let prompt: Option<String> = kwargs.get("prompt")?;
        s.value(&of, prompt.as_deref())
    });
    let s = shared.clone();
    tera.register_function("tensor", move |kwargs: Kwargs, _: &State| {
        let name: String = kwargs.must_get("name")?;
        let at: Vec<i64> = kwargs.get("at")?.unwrap_or_default();
        let prompt: Option<String> = kwargs.get("prompt")?;
        let source = if at.is_empty() {
            name
        } else {
            let at: Vec<String> = at.iter().map(i64::to_string).collect();
            format!("{name}[{}]", at.join(", "))
        };
        s.value(&source, prompt.as_deref())
    });
    for (name, text) in [("fill", false), ("ink", true)] {
        let s = shared.clone();
        tera.register_function(name, move |kwargs: Kwargs, _: &State| {
            let value = number_arg(&kwargs, "value")?;
            let min = kwargs.get::<f64>("min")?.unwrap_or(0.0);
            let max = kwargs.get::<f64>("max")?.unwrap_or(1.0);
            s.shade(value, min, max, text)
        });
    }
    tera.register_function("text_width", |kwargs: Kwargs, _: &State| {
        let text: String = kwargs.must_get("text")?;
        let size = kwargs.get::<f64>("size")?.unwrap_or(12.0);
        let mono = kwargs.get::<bool>("mono")?.unwrap_or(false);
        let font = if mono { Font::Mono } else { Font::Sans };
        Ok::<f64, Error>(text_width(&text, font, size))
    });
    // For printed text, as the built-in kinds print numbers (a true minus sign); an
    // attribute takes the number itself.
    tera.register_filter("num", |value: f64, kwargs: Kwargs, _: &State| {
        Ok::<String, Error>(match kwargs.get::<usize>("digits")? {
            Some(digits) => crate::format::signed(value, digits.min(12)),
            None => crate::format::short(value),
        })
    });
    tera.register_filter("percent", |value: f64, _: Kwargs, _: &State| {
        tracebook_trace::percent(value)
    });
}
