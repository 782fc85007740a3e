//! A tensor of a trace as tables a person reads. What each axis counts comes from the trace's
//! one description of its tensors ([`tracebook_trace::axis_names`]): the last two axes are a
//! grid, and every axis before them a block of its own (`layer 2, head 3`), so a 3-D tensor is
//! a grid per head, per layer or per target. Rows and columns over the prompt's positions are
//! labelled with its tokens, targets with their text, token ids with theirs. Wide rows show
//! their first columns and say how many are left, unless every column is asked for.

use tracebook_trace::{NamedToken, Tensor, TensorKind, Trace};

/// Columns shown of a row before the rest is counted, unless all are asked for.
const COLUMNS: usize = 8;

/// One axis of the tensor being printed.
struct Axis {
    /// What it counts (`heads`, `queries`, ...), or `·` where the trace does not say.
    word: &'static str,
    /// A label for each index: the prompt's tokens, the targets' texts, or empty for numbers.
    labels: Vec<String>,
}

impl Axis {
    fn label(&self, i: usize) -> String {
        match self.labels.get(i) {
            Some(label) => format!("{i:>3} {label}"),
            None if self.word == "·" => format!("{i:>3}"),
            None => format!("{} {i}", self.singular()),
        }
    }

    /// The word for one index of the axis: `head`, `query`, `layer`.
    fn singular(&self) -> &str {
        match self.word {
            "queries" => "query",
            "vocab" => "token id",
            word => word.strip_suffix('s').unwrap_or(word),
        }
    }
}

/// The axes of `name`, of `shape`, in `trace`.
fn axes(trace: &Trace, name: &str, shape: &[usize]) -> Vec<Axis> {
    let words = tracebook_trace::axis_names(name).filter(|w| w.len() == shape.len());
    let tokens: Vec<String> = (trace.meta.tokens.iter())
        .map(|t| format!("{:?}", t.text))
        .collect();
    (0..shape.len())
        .map(|i| {
            let word = words.as_ref().map_or("·", |w| w[i]);
            let labels = match word {
                "positions" | "queries" | "keys" if shape[i] == tokens.len() => tokens.clone(),
                "targets" => targets(trace, name)
                    .iter()
                    .map(|t| format!("{:?}", t.text))
                    .collect(),
                _ => Vec::new(),
            };
            Axis { word, labels }
        })
        .collect()
}

/// The targets of the experiment whose table `name` is.
fn targets<'a>(trace: &'a Trace, name: &str) -> &'a [NamedToken] {
    let meta = &trace.meta;
    if name.starts_with("ablation.") {
        meta.ablation.as_ref().map_or(&[], |a| &a.targets)
    } else {
        meta.attribution.as_ref().map_or(&[], |a| &a.targets)
    }
}

/// `name` of `trace` as labelled tables; every column when `all_columns`.
pub fn table(trace: &Trace, name: &str, tensor: &Tensor, all_columns: bool) -> String {
    let shape = &tensor.shape;
    let axes = axes(trace, name, shape);
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let words: Vec<&str> = axes.iter().map(|a| a.word).collect();
    let mut out = format!("{name}  {} ({})\n", dims.join("×"), words.join(" × "));
    let cell = Cell {
        trace,
        ids: TensorKind::of(name) == TensorKind::Index,
        columns: if all_columns { usize::MAX } else { COLUMNS },
    };
    match shape.len() {
        0 => out += &format!("{}\n", cell.row(&tensor.data)),
        1 if axes[0].labels.is_empty() => out += &format!("{}\n", cell.row(&tensor.data)),
        1 => out += &cell.grid(&tensor.data, 1, &axes[0], None),
        n => {
            let (outer, grid) = axes.split_at(n - 2);
            let size = shape[n - 2] * shape[n - 1];
            for (b, block) in tensor.data.chunks(size.max(1)).enumerate() {
                if !outer.is_empty() {
                    out += &format!("\n{}\n", block_title(outer, &shape[..n - 2], b));
                }
                out += &cell.grid(block, shape[n - 1], &grid[0], Some(&grid[1]));
            }
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// `layer 2, head 3`: the indices of block `b` along the `outer` axes of `shape`.
fn block_title(outer: &[Axis], shape: &[usize], mut b: usize) -> String {
    let mut parts = Vec::new();
    for (axis, &n) in outer.iter().zip(shape).rev() {
        let i = b % n.max(1);
        b /= n.max(1);
        parts.push(match axis.labels.get(i) {
            Some(label) => format!("{} {i} {label}", axis.singular()),
            None => format!("{} {i}", axis.singular()),
        });
    }
    parts.reverse();
    parts.join(", ")
}

/// How the values print.
struct Cell<'a> {
    trace: &'a Trace,
    /// Token ids: an integer and its text.
    ids: bool,
    /// The most columns shown of a row.
    columns: usize,
}

impl Cell<'_> {
    fn width(&self) -> usize {
        if self.ids {
            18
        } else {
            10
        }
    }

    /// A grid of `data`, rows of `width` values: a row per index of `rows`, a column per
    /// index of `columns` (one column when there is none), with a header naming the columns.
    fn grid(&self, data: &[f32], width: usize, rows: &Axis, columns: Option<&Axis>) -> String {
        let count = data.len() / width.max(1);
        let label_width = (0..count)
            .map(|i| rows.label(i).chars().count())
            .max()
            .unwrap_or(3);
        let mut out = String::new();
        if let Some(columns) = columns {
            let heads: Vec<String> = (0..width.min(self.columns))
                .map(|j| {
                    let head = match columns.labels.get(j) {
                        Some(label) => label.clone(),
                        None => j.to_string(),
                    };
                    format!("{:>w$}", clip(&head, self.width()), w = self.width())
                })
                .collect();
            out += &format!("{:label_width$}  {}\n", columns.word, heads.join(" "));
        }
        for (i, values) in data.chunks(width.max(1)).enumerate() {
            out += &format!("{:label_width$}  {}\n", rows.label(i), self.row(values));
        }
        out
    }

    /// The first columns of `values`, and how many more there are.
    fn row(&self, values: &[f32]) -> String {
        let shown: Vec<String> = (values.iter().take(self.columns))
            .map(|&v| format!("{:>w$}", self.value(v), w = self.width()))
            .collect();
        let mut text = shown.join(" ");
        if values.len() > self.columns {
            text += &format!("  … {} more (--all-columns)", values.len() - self.columns);
        }
        text
    }

    fn value(&self, v: f32) -> String {
        if self.ids {
            let id = v as u32;
            match self.trace.meta.token_texts.get(&id) {
                Some(text) => clip(&format!("{id} {text:?}"), self.width()),
                None => id.to_string(),
            }
        } else {
            number(v)
        }
    }
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
