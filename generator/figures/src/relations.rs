//! The relations among the numbers a figure prints, declared by the kind that draws them.
//!
//! A kind that prints "SiLU(3.06) = 2.92 × −1.06 = −3.10" also says what a reader may check
//! there: SiLU of the printed 3.06 is the printed 2.92, and 2.92 × −1.06 is −3.10. Each
//! [`Relation`] names the numbers by the very text the figure prints, so [`Relation::check`]
//! re-derives it from what a reader sees: a printed number stands for any value within half a
//! unit of its last digit, and a relation holds when some values that round as printed satisfy
//! it. The relations test (tests/relations.rs) checks every declared relation of every figure
//! of the example and fixture sites, and fails on a kind that prints numbers but declares none.
//!
//! Relations are not drawn: they travel beside the SVG in [`crate::Figure::relations`].

use std::fmt;

/// A function a figure applies to a printed number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// GPT-2's tanh approximation of GELU.
    Gelu,
    /// x · σ(x).
    Silu,
    Exp,
    /// −ln x: a probability's surprise.
    NegLn,
    Sqrt,
}

impl Func {
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Func::Gelu => {
                0.5 * x * (1.0 + (0.797_884_560_802_865_4 * (x + 0.044_715 * x.powi(3))).tanh())
            }
            Func::Silu => x / (1.0 + (-x).exp()),
            Func::Exp => x.exp(),
            Func::NegLn => -x.ln(),
            Func::Sqrt => x.sqrt(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Func::Gelu => "GELU",
            Func::Silu => "SiLU",
            Func::Exp => "exp",
            Func::NegLn => "−ln",
            Func::Sqrt => "√",
        }
    }
}

/// What must hold among printed numbers, each given as the text the figure prints
/// (`"−1.06"`, `"42.1%"`, `".42"`, `"50,257"`).
#[derive(Debug, Clone, PartialEq)]
pub enum Relation {
    /// `output` is `f(input)`.
    Function {
        f: Func,
        input: String,
        output: String,
    },
    /// `result` is the product of `factors`.
    Product {
        factors: Vec<String>,
        result: String,
    },
    /// `total` is the sum of `terms` (each with its printed sign).
    Sum { terms: Vec<String>, total: String },
    /// `value` lies in `low..=high`, for the reason `why` ("a probability").
    Bound {
        value: String,
        low: f64,
        high: f64,
        why: &'static str,
    },
    /// The values are printed in order, largest first (`descending`) or smallest first.
    Order {
        values: Vec<String>,
        descending: bool,
    },
    /// Two printings of one quantity.
    Same { a: String, b: String },
    /// `probs` are the softmax of `logits` (all of them printed, in the same order).
    Softmax {
        logits: Vec<String>,
        probs: Vec<String>,
    },
    /// `parts` make a whole: they add up to 1 (100%), as a distribution's printed
    /// probabilities and what "the others" share do.
    Whole { parts: Vec<String> },
    /// `output` is `f(input − minus)`: p = exp(logit − m).
    Shifted {
        f: Func,
        input: String,
        minus: String,
        output: String,
    },
    /// `change` is `to − from` in units of `unit`: 0.01 for a change in percentage points
    /// printed beside two percentages (which read as fractions), 1 for like units.
    Change {
        from: String,
        to: String,
        change: String,
        unit: f64,
    },
    /// The printed `value` is the quantity called `name` (for example "tracebook-tiny-en
    /// 9264bc24: final validation loss below the bigram baseline"): every printing of one
    /// quantity, in any figure of a site, must agree (tests/kind_relations.rs compares them).
    Quantity { name: String, value: String },
}

/// A printed number: its value and half a unit of its last digit (a percentage as a fraction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Printed {
    pub value: f64,
    pub half_unit: f64,
}

impl Printed {
    fn low(self) -> f64 {
        self.value - self.half_unit
    }
    fn high(self) -> f64 {
        self.value + self.half_unit
    }
}

/// Reads a number as figures print it: `−1.23`, `4.7%`, `.42`, `50,257`, `+0.8`, `38.6M`;
/// None for anything else (`<0.01%`, words).
pub fn printed(text: &str) -> Option<Printed> {
    let text = text.trim().replace('−', "-").replace([',', '+'], "");
    // A parameter count as `format::count` prints it: "124.4M", "2.4K", "1.50B".
    let multiple = |c: char| match c {
        'K' => Some(1e3),
        'M' => Some(1e6),
        'B' => Some(1e9),
        _ => None,
    };
    let (digits, scale) = match (
        text.strip_suffix('%'),
        text.chars().last().and_then(multiple),
    ) {
        (Some(d), _) => (d.trim().to_string(), 0.01),
        (None, Some(scale)) => (text[..text.len() - 1].to_string(), scale),
        (None, None) => (text, 1.0),
    };
    if digits.is_empty() || !digits.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let value: f64 = digits.parse().ok()?;
    let decimals = digits.find('.').map_or(0, |dot| digits.len() - dot - 1) as i32;
    Some(Printed {
        value: value * scale,
        half_unit: 0.5 * 10f64.powi(-decimals) * scale,
    })
}

/// Why a declared relation does not hold, in words a developer can act on.
#[derive(Debug, Clone, PartialEq)]
pub struct Broken(pub String);

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Slack for float noise in the comparisons below.
const EPS: f64 = 1e-9;

impl Relation {
    /// Every number the relation names, as printed.
    pub fn texts(&self) -> Vec<&str> {
        match self {
            Relation::Function { input, output, .. } => vec![input, output],
            Relation::Product { factors, result } => {
                factors.iter().chain([result]).map(String::as_str).collect()
            }
            Relation::Sum { terms, total } => {
                terms.iter().chain([total]).map(String::as_str).collect()
            }
            Relation::Bound { value, .. } => vec![value],
            Relation::Order { values, .. } => values.iter().map(String::as_str).collect(),
            Relation::Same { a, b } => vec![a, b],
            Relation::Softmax { logits, probs } => {
                logits.iter().chain(probs).map(String::as_str).collect()
            }
            Relation::Whole { parts } => parts.iter().map(String::as_str).collect(),
            Relation::Quantity { value, .. } => vec![value],
            Relation::Shifted {
                input,
                minus,
                output,
                ..
            } => vec![input, minus, output],
            Relation::Change {
                from, to, change, ..
            } => vec![from, to, change],
        }
    }

    /// The relation's short name, for counts and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Relation::Function { f, .. } => f.name(),
            Relation::Product { .. } => "product",
            Relation::Sum { .. } => "sum",
            Relation::Bound { .. } => "bound",
            Relation::Order { .. } => "order",
            Relation::Same { .. } => "same",
            Relation::Softmax { .. } => "softmax",
            Relation::Whole { .. } => "whole",
            Relation::Quantity { .. } => "quantity",
            Relation::Shifted { f, .. } => f.name(),
            Relation::Change { .. } => "change",
        }
    }

    /// Whether values that round as printed can satisfy the relation; otherwise what fails.
    pub fn check(&self) -> Result<(), Broken> {
        match self {
            Relation::Function { f, input, output } => function(*f, input, output),
            Relation::Product { factors, result } => product(factors, result),
            Relation::Sum { terms, total } => sum(terms, total),
            Relation::Bound {
                value,
                low,
                high,
                why,
            } => bound(value, (*low, *high), why),
            Relation::Order { values, descending } => order(values, *descending),
            Relation::Same { a, b } => same(a, b),
            Relation::Softmax { logits, probs } => softmax(logits, probs),
            Relation::Whole { parts } => whole(parts),
            // Within one figure a quantity is printed once; its other printings are compared
            // across the site by `same`.
            Relation::Quantity { value, .. } => number(value).map(|_| ()),
            Relation::Shifted {
                f,
                input,
                minus,
                output,
            } => shifted(*f, [input, minus, output]),
            Relation::Change {
                from,
                to,
                change,
                unit,
            } => difference([from, to, change], *unit),
        }
    }
}

fn function(f: Func, input: &str, output: &str) -> Result<(), Broken> {
    let (x, y) = (number(input)?, number(output)?);
    let (low, high) = range_of(|v| f.apply(v), x);
    overlaps((low, high), y).then_some(()).ok_or_else(|| {
        Broken(format!(
            "{}({input}) = {output}, but {}({input}) lies in {} … {}",
            f.name(),
            f.name(),
            fixed(low),
            fixed(high)
        ))
    })
}

fn product(factors: &[String], result: &str) -> Result<(), Broken> {
    let mut range = (1.0, 1.0);
    for factor in numbers(factors)? {
        let corners = [
            range.0 * factor.low(),
            range.0 * factor.high(),
            range.1 * factor.low(),
            range.1 * factor.high(),
        ];
        range = (
            corners.iter().copied().fold(f64::INFINITY, f64::min),
            corners.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
    }
    overlaps(range, number(result)?)
        .then_some(())
        .ok_or_else(|| {
            Broken(format!(
                "{} = {result}, but the product lies in {} … {}",
                factors.join(" × "),
                fixed(range.0),
                fixed(range.1)
            ))
        })
}

fn sum(terms: &[String], total: &str) -> Result<(), Broken> {
    let read = numbers(terms)?;
    let range = (
        read.iter().map(|t| t.low()).sum::<f64>(),
        read.iter().map(|t| t.high()).sum::<f64>(),
    );
    overlaps(range, number(total)?)
        .then_some(())
        .ok_or_else(|| {
            Broken(format!(
                "{} = {total}, but the terms as printed sum to {} … {}",
                terms.join(" + "),
                fixed(range.0),
                fixed(range.1)
            ))
        })
}

fn bound(value: &str, (low, high): (f64, f64), why: &str) -> Result<(), Broken> {
    let v = number(value)?;
    (v.high() >= low - EPS && v.low() <= high + EPS)
        .then_some(())
        .ok_or_else(|| {
            Broken(format!(
                "{value} is {why}, so between {} and {}",
                fixed(low),
                fixed(high)
            ))
        })
}

fn order(values: &[String], descending: bool) -> Result<(), Broken> {
    let read = numbers(values)?;
    let name = if descending {
        "largest-first"
    } else {
        "smallest-first"
    };
    for (i, pair) in read.windows(2).enumerate() {
        let (first, second) = if descending {
            (pair[0], pair[1])
        } else {
            (pair[1], pair[0])
        };
        if first.high() + EPS < second.low() {
            return Err(Broken(format!(
                "{} is printed before {} in {name} order",
                values[i],
                values[i + 1]
            )));
        }
    }
    Ok(())
}

/// One quantity printed twice (also across figures: [`Relation::Quantity`]): at the same precision, the same number; at two, numbers that
/// round from one value.
pub fn same(a: &str, b: &str) -> Result<(), Broken> {
    let (x, y) = (number(a)?, number(b)?);
    let holds = if (x.half_unit - y.half_unit).abs() <= EPS * x.half_unit.max(1e-12) {
        (x.value - y.value).abs() <= x.half_unit * 1e-6
    } else {
        overlaps((x.low(), x.high()), y)
    };
    holds
        .then_some(())
        .ok_or_else(|| Broken(format!("one quantity printed as {a} and as {b}")))
}

/// The printed probabilities are the softmax of the printed logits, to first order in the
/// logits' rounding: a change δ of the logits moves pᵢ by pᵢ(δᵢ − Σⱼ pⱼδⱼ).
fn softmax(logits: &[String], probs: &[String]) -> Result<(), Broken> {
    if logits.len() != probs.len() || logits.is_empty() {
        return Err(Broken(format!(
            "a softmax of {} logits printed with {} probabilities",
            logits.len(),
            probs.len()
        )));
    }
    let (l, p) = (numbers(logits)?, numbers(probs)?);
    let max = l.iter().map(|x| x.value).fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = l.iter().map(|x| (x.value - max).exp()).collect();
    let total: f64 = exps.iter().sum();
    let mean_slack: f64 = exps
        .iter()
        .zip(&l)
        .map(|(e, x)| e / total * x.half_unit)
        .sum();
    for (i, (e, printed)) in exps.iter().zip(&p).enumerate() {
        let exact = e / total;
        let slack = exact * (l[i].half_unit + mean_slack) + printed.half_unit;
        if (exact - printed.value).abs() > slack + EPS {
            return Err(Broken(format!(
                "softmax of the printed logits gives {} for the {}th, printed {}",
                fixed(exact),
                i + 1,
                probs[i]
            )));
        }
    }
    Ok(())
}

/// The printed parts add up to 1 (100%).
fn whole(parts: &[String]) -> Result<(), Broken> {
    let read = numbers(parts)?;
    let low: f64 = read.iter().map(|p| p.low()).sum();
    let high: f64 = read.iter().map(|p| p.high()).sum();
    (low <= 1.0 + EPS && high >= 1.0 - EPS)
        .then_some(())
        .ok_or_else(|| {
            Broken(format!(
                "{} make a whole, but as printed they sum to {} … {}",
                parts.join(" + "),
                fixed(low),
                fixed(high)
            ))
        })
}

/// `output` is `f(input − minus)`, all three as printed.
fn shifted(f: Func, [input, minus, output]: [&String; 3]) -> Result<(), Broken> {
    let (x, m, y) = (number(input)?, number(minus)?, number(output)?);
    let shifted = Printed {
        value: x.value - m.value,
        half_unit: x.half_unit + m.half_unit,
    };
    let (low, high) = range_of(|v| f.apply(v), shifted);
    overlaps((low, high), y).then_some(()).ok_or_else(|| {
        Broken(format!(
            "{}({input} − {minus}) = {output}, but it lies in {} … {}",
            f.name(),
            fixed(low),
            fixed(high)
        ))
    })
}

/// `change` is `to − from` in units of `unit`.
fn difference([from, to, change]: [&String; 3], unit: f64) -> Result<(), Broken> {
    let (a, b) = (number(from)?, number(to)?);
    let range = ((b.low() - a.high()) / unit, (b.high() - a.low()) / unit);
    overlaps(range, number(change)?)
        .then_some(())
        .ok_or_else(|| {
            Broken(format!(
                "{to} − {from} is printed as a change of {change}, but it lies in {} … {}",
                fixed(range.0),
                fixed(range.1)
            ))
        })
}

/// A list of probabilities printed largest first, and with `rest` (what the others share) a
/// whole, as the candidate lists of `next-token` and `temperature` print them; numbers that do
/// not read as printed numbers ("<0.01%") are left out of the order, and the whole is declared
/// only when every part reads.
pub(crate) fn ranked_whole(shown: Vec<String>, rest: String) -> Vec<Relation> {
    let mut parts = shown.clone();
    parts.push(rest);
    let mut out = vec![Relation::Order {
        values: shown.into_iter().filter(|p| printed(p).is_some()).collect(),
        descending: true,
    }];
    if parts.iter().all(|p| printed(p).is_some()) {
        out.push(Relation::Whole { parts });
    }
    out
}

fn number(text: &str) -> Result<Printed, Broken> {
    printed(text).ok_or_else(|| Broken(format!("{text:?} is not a printed number")))
}

fn numbers(texts: &[String]) -> Result<Vec<Printed>, Broken> {
    texts.iter().map(|t| number(t)).collect()
}

/// The least and greatest of `f` over the values that round to `x` (sampled, so that
/// functions with a minimum inside the interval, as GELU and SiLU have, are covered).
fn range_of(f: impl Fn(f64) -> f64, x: Printed) -> (f64, f64) {
    const SAMPLES: usize = 64;
    (0..=SAMPLES)
        .map(|i| f(x.low() + (x.high() - x.low()) * i as f64 / SAMPLES as f64))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        })
}

fn overlaps((low, high): (f64, f64), y: Printed) -> bool {
    high + EPS >= y.low() && low - EPS <= y.high()
}

fn fixed(x: f64) -> String {
    format!("{x:.4}")
}

/// How many numbers a figure's text shows (the text of its `<text>` and `<tspan>` elements,
/// split at spaces and punctuation that cannot be part of a number), so that a kind printing
/// numbers without declaring their relations is found.
pub fn numbers_in(svg: &str) -> usize {
    let mut count = 0;
    let mut rest = svg;
    while let Some(start) = rest.find('>') {
        rest = &rest[start + 1..];
        let end = rest.find('<').unwrap_or(rest.len());
        let text = crate::svg::unescape_html(&rest[..end]);
        count += text
            .split(|c: char| c.is_whitespace() || "()[]=×:;/|·".contains(c))
            .filter(|word| {
                let word = word.trim_matches(|c: char| ".,;:".contains(c));
                word.chars().any(|c| c.is_ascii_digit()) && printed(word).is_some()
            })
            .count();
        rest = &rest[end..];
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> String {
        text.to_string()
    }

    #[test]
    fn printed_numbers_read_as_figures_print_them() {
        let p = printed("−1.06").unwrap();
        assert_eq!((p.value, p.half_unit), (-1.06, 0.005));
        let p = printed("4.7%").unwrap();
        assert!((p.value - 0.047).abs() < 1e-12 && (p.half_unit - 0.0005).abs() < 1e-12);
        assert_eq!(printed(".42").unwrap().value, 0.42);
        assert_eq!(printed("50,257").unwrap().value, 50257.0);
        assert_eq!(printed("+0.8").unwrap().value, 0.8);
        assert_eq!(printed("<0.01%"), None);
        let p = printed("38.6M").unwrap();
        assert!((p.value - 38.6e6).abs() < 1e-6 && (p.half_unit - 0.05e6).abs() < 1e-6);
        assert!((printed("2.4K").unwrap().value - 2400.0).abs() < 1e-9);
        assert_eq!(printed("M"), None);
        assert_eq!(printed("head"), None);
    }

    /// The reader's findings on modern-llm.html: SiLU(3.06) is not 2.93, and 2.93 × −1.06 is
    /// not −3.07; the same numbers drawn from one source hold.
    #[test]
    fn the_gated_mlp_slips_are_caught_and_consistent_numbers_pass() {
        let silu = |input: &str, output: &str| Relation::Function {
            f: Func::Silu,
            input: s(input),
            output: s(output),
        };
        // SiLU of a value that rounds to 3.06 lies in 2.9175 … 2.9284: 2.93 and 2.92 both
        // round from it, 2.95 does not.
        assert!(silu("3.06", "2.93").check().is_ok());
        assert!(silu("3.06", "2.92").check().is_ok());
        assert!(silu("3.06", "2.95").check().is_err());
        assert!(silu("1.98", "1.76").check().is_err());
        let product = |a: &str, b: &str, c: &str| Relation::Product {
            factors: vec![s(a), s(b)],
            result: s(c),
        };
        let broken = product("2.93", "−1.06", "−3.07").check().unwrap_err();
        assert!(broken.0.contains("−3.07"), "{broken}");
        assert!(product("2.93", "−1.06", "−3.11").check().is_ok());
    }

    #[test]
    fn sums_bounds_orders_and_sameness_are_checked_at_the_printed_precision() {
        let sum = |terms: &[&str], total: &str| Relation::Sum {
            terms: terms.iter().map(|t| s(t)).collect(),
            total: s(total),
        };
        // attention.html's ×v[1] column: printed terms summing to 0.558 against a total 0.557
        // hold only within the terms' rounding, and fail once it is exceeded.
        assert!(sum(&["0.300", "0.258"], "0.557").check().is_ok());
        assert!(sum(&["0.300", "0.258"], "0.555").check().is_err());
        let rms = Relation::Bound {
            value: s("1.01"),
            low: 0.0,
            high: 1.0,
            why: "the rms of x ÷ rms(x)",
        };
        assert!(rms.check().is_err());
        let order = |values: &[&str]| Relation::Order {
            values: values.iter().map(|v| s(v)).collect(),
            descending: true,
        };
        assert!(order(&["41%", "12%", "12%"]).check().is_ok());
        assert!(order(&["12%", "41%"]).check().is_err());
        let same = |a: &str, b: &str| Relation::Same { a: s(a), b: s(b) };
        // training.html's 0.128 against modern-llm.html's 0.129: one quantity printed at one
        // precision prints one number, though the two could round from 0.1285.
        assert!(same("0.129", "0.128").check().is_err());
        assert!(same("0.129", "0.129").check().is_ok());
        assert!(same("0.13", "0.128").check().is_ok());
    }

    #[test]
    fn a_softmax_is_rederived_from_its_printed_logits() {
        let softmax = |probs: &[&str]| Relation::Softmax {
            logits: vec![s("2.0"), s("1.0"), s("0.0")],
            probs: probs.iter().map(|p| s(p)).collect(),
        };
        assert!(softmax(&["66.5%", "24.5%", "9.0%"]).check().is_ok());
        assert!(softmax(&["60.0%", "30.0%", "10.0%"]).check().is_err());
    }

    #[test]
    fn wholes_shifted_functions_and_changes_are_rederived() {
        let whole = |parts: &[&str]| Relation::Whole {
            parts: parts.iter().map(|p| s(p)).collect(),
        };
        assert!(whole(&["58.7%", "41.3%"]).check().is_ok());
        assert!(whole(&["60.0%", "39.0%"]).check().is_err());
        let shifted = |output: &str| Relation::Shifted {
            f: Func::Exp,
            input: s("2.50"),
            minus: s("4.00"),
            output: s(output),
        };
        // exp(2.5 − 4) = 22.31%.
        assert!(shifted("22.3%").check().is_ok());
        assert!(shifted("25.0%").check().is_err());
        let change = |c: &str| Relation::Change {
            from: s("42.1%"),
            to: s("36.9%"),
            change: s(c),
            unit: 0.01,
        };
        assert!(change("−5.2").check().is_ok());
        assert!(change("−5.0").check().is_err());
    }

    #[test]
    fn numbers_are_counted_in_text_not_in_markup() {
        let svg = r#"<svg width="300"><text x="4">SiLU(3.06) = 2.92 × −1.06</text><text>head 2</text><rect width="5"/></svg>"#;
        assert_eq!(numbers_in(svg), 4);
        assert_eq!(numbers_in(r#"<svg><text>tokens</text></svg>"#), 0);
    }
}
