//! How inline values read in prose: fixed formats, so output never depends on the platform.

/// A computed inline value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Integer(i64),
    /// A token's text (shown with visible escapes for line breaks and tabs).
    Token(String),
    /// A text the model wrote (a translation), shown as prose.
    Text(String),
    /// A probability in [0, 1], shown as a percentage.
    Probability(f64),
    /// A tensor entry.
    Number(f32),
    Shape(Vec<usize>),
    /// A cross-reference: its text ("Figure 3") and its HTML (a link).
    Ref {
        text: String,
        html: String,
    },
    /// An in-text citation of works of the bibliography (keys as written): its text and HTML
    /// are filled in once every citation of the page is known (a style numbers them, or tells
    /// "2019a" from "2019b").
    Cite {
        keys: Vec<String>,
        text: String,
        html: String,
    },
    /// A worked sum of tensor entries, shown as `a + b = c`.
    Sum(Vec<f32>),
    /// A claim, checked: shows no text, only a marker.
    Claim(CheckedClaim),
    /// A number in the format the author asked for (`| percent`, `| digits(3)`).
    Formatted {
        text: String,
        inner: Box<Value>,
    },
}

/// A claim of the prose and what the trace said to it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedClaim {
    /// The expression as written.
    pub source: String,
    /// Its range in the article body.
    pub span: std::ops::Range<usize>,
    pub prompt: String,
    pub outcome: Outcome,
}

/// A claim's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// True of the trace, with the values that make it so.
    Holds(String),
    /// False of the trace, with the values that make it so.
    Fails(String),
    /// Not evaluated: the prompt's trace is missing or stale.
    Unchecked(String),
}

impl Value {
    /// The text the reader sees.
    pub fn text(&self) -> String {
        match self {
            Value::Integer(n) => n.to_string(),
            Value::Token(text) => visible(text),
            Value::Text(text) => text.clone(),
            // One rounding for every percentage of the site: the figures' (and tracebook.js's).
            Value::Probability(p) => tracebook_figures::percent(*p),
            Value::Number(x) => significant(f64::from(*x), 4),
            // Sizes with their thousands grouped, as the figures write them.
            Value::Claim(_) => String::new(),
            Value::Sum(terms) => worked_sum(terms),
            Value::Ref { text, .. } | Value::Cite { text, .. } => text.clone(),
            Value::Formatted { text, .. } => text.clone(),
            Value::Shape(dims) => dims
                .iter()
                .map(|&d| tracebook_figures::thousands(d))
                .collect::<Vec<_>>()
                .join("×"),
        }
    }

    /// A CSS class naming the kind of value.
    pub fn class(&self) -> &'static str {
        match self {
            Value::Formatted { inner, .. } => inner.class(),
            Value::Token(_) => "tb-value tb-token",
            Value::Text(_) => "tb-value tb-text",
            Value::Sum(_) => "tb-value tb-number tb-sum",
            _ => "tb-value tb-number",
        }
    }
}

impl Value {
    /// What kind of value this is, in words, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Integer(_) => "a whole number",
            Value::Token(_) => "a token",
            Value::Text(_) => "a text",
            Value::Probability(_) => "a probability",
            Value::Number(_) | Value::Formatted { .. } => "a number",
            Value::Shape(_) => "a shape",
            Value::Ref { .. } => "a reference",
            Value::Cite { .. } => "a citation",
            Value::Sum(_) => "a worked sum",
            Value::Claim(_) => "a claim",
        }
    }
}

/// Line breaks and tabs as `\n` and `\t`, so a token stays on one line.
fn visible(text: &str) -> String {
    text.replace('\n', "\\n")
        .replace('\t', "\\t")
        .replace('\r', "\\r")
}

/// `a + b − c = t`, every number with the same decimals (three significant digits for the
/// largest), and `t` the sum of the terms *as shown*, so the reader's own addition of the printed
/// terms gives the printed total exactly. (The sum of the unrounded terms is within half a unit
/// of the last decimal per term.)
pub fn worked_sum(terms: &[f32]) -> String {
    let largest = terms.iter().fold(0.0f64, |m, &t| m.max(f64::from(t).abs()));
    let decimals = if largest > 0.0 && largest.is_finite() {
        (2 - largest.log10().floor() as i32).clamp(0, 9)
    } else {
        0
    };
    let scale = 10f64.powi(decimals);
    let units: Vec<i64> = terms
        .iter()
        .map(|&t| (f64::from(t) * scale).round() as i64)
        .collect();
    let shown = |u: i64| {
        let text = format!(
            "{:.prec$}",
            u.unsigned_abs() as f64 / scale,
            prec = decimals as usize
        );
        (u < 0, text)
    };
    let mut out = String::new();
    for (i, &u) in units.iter().enumerate() {
        let (negative, text) = shown(u);
        match (i, negative) {
            (0, true) => out.push('−'),
            (0, false) => {}
            (_, true) => out.push_str(" − "),
            (_, false) => out.push_str(" + "),
        }
        out.push_str(&text);
    }
    let (negative, total) = shown(units.iter().sum());
    out.push_str(" = ");
    if negative {
        out.push('−');
    }
    out.push_str(&total);
    out
}

pub use tracebook_claims::significant;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_sums_add_up_as_printed() {
        assert_eq!(
            worked_sum(&[-0.02134, 0.06591]),
            "−0.0213 + 0.0659 = 0.0446"
        );
        assert_eq!(worked_sum(&[1.2345, -0.5]), "1.23 − 0.50 = 0.73");
        // 0.0004 + 0.0004 = 0.0008 unrounded, but 0.000 + 0.000 is what a reader sees.
        assert_eq!(
            worked_sum(&[1.0, 0.0004, 0.0004]),
            "1.00 + 0.00 + 0.00 = 1.00"
        );
        assert_eq!(worked_sum(&[-3.0, -4.5]), "−3.00 − 4.50 = −7.50");
        assert_eq!(worked_sum(&[0.0, 0.0]), "0 + 0 = 0");
    }

    #[test]
    fn percentages_round_as_the_figures_do() {
        assert_eq!(Value::Probability(0.2346).text(), "23.5%");
        assert_eq!(Value::Probability(0.98).text(), "98.0%");
        assert_eq!(Value::Probability(0.000123).text(), "0.01%");
        assert_eq!(Value::Probability(1e-9).text(), "<0.01%");
    }

    #[test]
    fn values_read_naturally() {
        assert_eq!(Value::Shape(vec![12, 768]).text(), "12×768");
        assert_eq!(Value::Shape(vec![1, 50257]).text(), "1×50,257");
        assert_eq!(
            Value::Shape(vec![1000, 0, 1234567]).text(),
            "1,000×0×1,234,567"
        );
        assert_eq!(Value::Token("\n".into()).text(), "\\n");
        assert_eq!(Value::Integer(-3).text(), "-3");
        assert_eq!(Value::Number(0.5).text(), "0.5000");
    }
}
