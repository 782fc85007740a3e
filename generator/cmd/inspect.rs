//! `tracebook inspect`: list a trace's tensors, or print one as plain JSON numbers.

use std::path::PathBuf;
use tracebook_trace::Trace;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The trace file.
    pub file: PathBuf,
    /// Print this tensor's values instead of the list.
    #[arg(long)]
    pub tensor: Option<String>,
    /// Machine-readable output: the listing, or the tensor, as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let trace = Trace::read(&args.file)?;
    let out = match &args.tensor {
        Some(name) => {
            let tensor = trace.tensor(name)?;
            if args.json {
                serde_json::json!({ "name": name, "shape": tensor.shape, "data": tensor.data })
                    .to_string()
            } else {
                serde_json::to_string(&tensor.data)?
            }
        }
        None if args.json => listing_json(&trace).to_string(),
        None => listing_text(&trace),
    };
    println!("{out}");
    Ok(())
}

fn listing_json(trace: &Trace) -> serde_json::Value {
    let tensors: Vec<_> = trace
        .tensor_names()
        .map(|name| {
            serde_json::json!({
                "name": name,
                "shape": trace.shape(name),
                "encoding": trace.encoding(name).map(|e| e.to_string()),
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
        "prompt    {:?}\nmodel     {} (weights sha256 {})\ntokens    {}\nprecision {}\n\n",
        meta.prompt.text,
        meta.model.id,
        &meta.model.weights_sha256[..meta.model.weights_sha256.len().min(12)],
        meta.tokens.len(),
        meta.options.precision,
    );
    let width = trace.tensor_names().map(str::len).max().unwrap_or(0);
    for name in trace.tensor_names() {
        let shape = trace.shape(name).unwrap_or(&[]);
        let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
        let encoding = trace
            .encoding(name)
            .map(|e| e.to_string())
            .unwrap_or_default();
        out += &format!("{name:width$}  {:<14} {encoding}\n", dims.join("×"));
    }
    out
}
