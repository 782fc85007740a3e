//! `tracebook inspect`: list a trace's tokens (with their positions) and tensors, or print one
//! as tables labelled with the tokens, heads, layers and targets (a grid per head of a 3-D
//! tensor; `--all-columns` for every column; `--json`: its numbers for tools). Token ids (the
//! `*_ids` tensors) print as integers, with each id's token text beside it.

use std::path::PathBuf;
use tracebook_trace::{TensorKind, Trace};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The trace file.
    pub file: PathBuf,
    /// Print this tensor's values instead of the list: a grid, rows labelled with the
    /// prompt's tokens, one grid per head (layer, target) of a 3-D tensor.
    #[arg(long)]
    pub tensor: Option<String>,
    /// Print every column of the tensor's rows, not only the first 8.
    #[arg(long, requires = "tensor")]
    pub all_columns: bool,
    /// Machine-readable output: the listing, or the tensor, as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let trace = Trace::read(&args.file)?;
    let out = match &args.tensor {
        Some(name) => {
            let tensor = trace.tensor(name)?;
            let ids = TensorKind::of(name) == TensorKind::Index;
            let data: Vec<serde_json::Value> =
                tensor.data.iter().map(|&v| number(v, ids)).collect();
            match (args.json, ids) {
                (true, true) => serde_json::json!({
                    "name": name,
                    "shape": tensor.shape,
                    "data": data,
                    "token_texts": token_texts(&trace, &tensor.data),
                })
                .to_string(),
                (true, false) => {
                    serde_json::json!({ "name": name, "shape": tensor.shape, "data": data })
                        .to_string()
                }
                (false, _) => super::inspect_table::table(&trace, name, &tensor, args.all_columns),
            }
        }
        None if args.json => listing_json(&trace).to_string(),
        None => listing_text(&trace),
    };
    super::ui::print_out(&out)
}

fn listing_json(trace: &Trace) -> serde_json::Value {
    let tensors: Vec<_> = trace
        .tensor_names()
        .map(|name| {
            serde_json::json!({
                "name": name,
                "shape": trace.shape(name),
                "encoding": trace.encoding(name).map(|e| e.to_string()),
                "derive": trace.derivation(name),
                "experiment": trace.is_table(name),
                "bound": trace.bound(name).ok().map(|b| b.into_iter().fold(0.0, f64::max)),
            })
        })
        .collect();
    serde_json::json!({
        "model": trace.meta.model.id,
        "prompt": trace.meta.prompt.text,
        "tokens": trace.meta.tokens.len(),
        "precision": trace.meta.options.precision.to_string(),
        "tensors": tensors,
    })
}

fn listing_text(trace: &Trace) -> String {
    let meta = &trace.meta;
    let mut out = format!(
        "prompt    {:?}\nmodel     {} (weights sha256 {})\ntokens    {}: {}\nprecision {}\n\n",
        meta.prompt.text,
        meta.model.shown(),
        &meta.model.weights_sha256[..meta.model.weights_sha256.len().min(12)],
        meta.tokens.len(),
        meta.tokens
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{i} {:?}", t.text))
            .collect::<Vec<_>>()
            .join("  "),
        meta.options.precision,
    );
    let width = trace.tensor_names().map(str::len).max().unwrap_or(0);
    for name in trace.tensor_names() {
        let shape = trace.shape(name).unwrap_or(&[]);
        let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
        let stored = match (trace.encoding(name), trace.derivation(name)) {
            (Some(encoding), _) => encoding.to_string(),
            (None, Some(derive)) => format!("= {}({})", derive.op.as_str(), derive.from.join(", ")),
            (None, None) if trace.is_table(name) => "experiment (meta)".to_string(),
            (None, None) => String::new(),
        };
        let bound = match trace.bound(name) {
            Ok(b) => match b.into_iter().fold(0.0, f64::max) {
                0.0 => "exact".to_string(),
                worst => format!("± {worst:.2e}"),
            },
            Err(_) => String::new(),
        };
        out += &format!(
            "{name:width$}  {:<14} {bound:<11} {stored}\n",
            dims.join("×")
        );
    }
    out
}

/// An id as an integer; any other value as the number it is.
fn number(value: f32, id: bool) -> serde_json::Value {
    if id && value.fract() == 0.0 && value >= 0.0 && value <= u32::MAX as f32 {
        serde_json::Value::from(value as u32)
    } else {
        serde_json::Value::from(value)
    }
}

/// The text of every id among `data`, by id.
fn token_texts(trace: &Trace, data: &[f32]) -> serde_json::Map<String, serde_json::Value> {
    data.iter()
        .filter_map(|&v| {
            let id = v as u32;
            let text = trace.meta.token_texts.get(&id)?;
            Some((id.to_string(), serde_json::Value::from(text.as_str())))
        })
        .collect()
}
