//! A tensor of a trace as a table a person reads: rows labelled with the prompt's tokens and
//! their positions, a block per head for the heads' tensors, the key tokens over the columns of
//! an attention pattern. Which axis is which comes from the trace's shapes: a first axis as long
//! as the model has heads, then one as long as the prompt, is heads × tokens; a first axis as
//! long as the prompt is tokens. Wide rows show their first columns and say how many are left.

use tracebook_trace::{Tensor, Trace};

/// Columns shown of a row before the rest is counted.
const COLUMNS: usize = 8;

/// What one axis of a tensor runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    Head,
    Token,
    Other,
}

/// The axes of the tensor `name` of `shape` in `trace`.
fn axes(trace: &Trace, name: &str, shape: &[usize]) -> Vec<Axis> {
    let tokens = trace.meta.tokens.len();
    let heads = trace.meta.model.config.n_head;
    let key_axis = |n: usize| {
        let attention = name.ends_with(".pattern") || name.ends_with(".scores");
        if attention && n == tokens {
            Axis::Token
        } else {
            Axis::Other
        }
    };
    if trace.is_table(name) {
        // The experiments' tables are by layer, head, position or target, not by token.
        return vec![Axis::Other; shape.len()];
    }
    match shape {
        [h, t, n] if *h == heads && *t == tokens => vec![Axis::Head, Axis::Token, key_axis(*n)],
        [t, _] if *t == tokens => vec![Axis::Token, Axis::Other],
        [t] if *t == tokens => vec![Axis::Token],
        _ => vec![Axis::Other; shape.len()],
    }
}

/// `name` of `trace` as a labelled table.
pub fn table(trace: &Trace, name: &str, tensor: &Tensor) -> String {
    let axes = axes(trace, name, &tensor.shape);
    let words: Vec<&str> = axes
        .iter()
        .zip(&tensor.shape)
        .map(|(axis, _)| match axis {
            Axis::Head => "heads",
            Axis::Token => "tokens",
            Axis::Other => "·",
        })
        .collect();
    let dims: Vec<String> = tensor.shape.iter().map(usize::to_string).collect();
    let mut out = format!("{name}  {} ({})\n", dims.join("×"), words.join(" × "));
    let labels: Vec<String> = trace
        .meta
        .tokens
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{i:>3} {:?}", t.text))
        .collect();
    let row_label = |axis: Axis, i: usize| match axis {
        Axis::Token => labels.get(i).cloned().unwrap_or_else(|| i.to_string()),
        _ => format!("{i:>3}"),
    };
    let label_width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(3);
    match (axes.as_slice(), tensor.shape.as_slice()) {
        ([Axis::Head, rows, columns], [heads, n, m]) => {
            for head in 0..*heads {
                out += &format!("\nhead {head}\n");
                let block = &tensor.data[head * n * m..(head + 1) * n * m];
                out += &matrix(
                    block,
                    *m,
                    |i| row_label(*rows, i),
                    *columns,
                    trace,
                    label_width,
                );
            }
        }
        ([rows, columns], [_, m]) => {
            out += &matrix(
                &tensor.data,
                *m,
                |i| row_label(*rows, i),
                *columns,
                trace,
                label_width,
            );
        }
        ([rows], _) => {
            out += &matrix(
                &tensor.data,
                1,
                |i| row_label(*rows, i),
                Axis::Other,
                trace,
                label_width,
            );
        }
        _ => {
            out += &format!("{}\n", row(&tensor.data));
        }
    }
    out
}

/// Rows of `width` values from `data`, each after its label; a header of the key tokens when
/// the columns are tokens.
fn matrix(
    data: &[f32],
    width: usize,
    label: impl Fn(usize) -> String,
    columns: Axis,
    trace: &Trace,
    label_width: usize,
) -> String {
    let mut out = String::new();
    if columns == Axis::Token {
        let keys: Vec<String> = trace
            .meta
            .tokens
            .iter()
            .take(COLUMNS)
            .map(|t| format!("{:>10}", clip(&format!("{:?}", t.text), 10)))
            .collect();
        out += &format!("{:label_width$}  {}\n", "", keys.join(" "));
    }
    for (i, values) in data.chunks(width.max(1)).enumerate() {
        out += &format!("{:label_width$}  {}\n", label(i), row(values));
    }
    out
}

/// The first [`COLUMNS`] values, 4 significant digits, and how many more there are.
fn row(values: &[f32]) -> String {
    let shown: Vec<String> = values
        .iter()
        .take(COLUMNS)
        .map(|&v| format!("{:>10}", number(v)))
        .collect();
    let mut text = shown.join(" ");
    if values.len() > COLUMNS {
        text += &format!("  … {} more", values.len() - COLUMNS);
    }
    text
}

/// `v` with 4 significant digits, as the site prints numbers; very large and very small
/// ones in exponent form, to keep the columns narrow.
fn number(v: f32) -> String {
    let v = f64::from(v);
    if v != 0.0 && (v.abs() >= 1e5 || v.abs() < 1e-4) {
        format!("{v:.3e}")
    } else {
        tracebook_site::significant(v, 4)
    }
}

/// `text` cut to `n` characters, with … when cut.
fn clip(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_string()
    } else {
        text.chars().take(n - 1).collect::<String>() + "…"
    }
}
