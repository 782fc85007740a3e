//! `tracebook trace`: run the model on prompts and write their traces.

pub use super::trace_args::Args;
use super::trace_write::{load_model, shown_name, write_one};
use indicatif::HumanBytes;
use std::path::Path;
use tracebook_trace::{PromptOptions, PromptSpec, TraceOptions, BUILTIN_MODEL_ID};

pub fn run(root: &Path, args: Args) -> anyhow::Result<()> {
    match (&args.prompt, &args.out) {
        (Some(text), Some(out)) => ad_hoc(root, &args, text, out),
        _ => super::trace_site::run(root, &args),
    }
}

fn ad_hoc(root: &Path, args: &Args, text: &str, out: &Path) -> anyhow::Result<()> {
    let model_id = args
        .model
        .clone()
        .unwrap_or_else(|| "openai-community/gpt2".to_string());
    let model = load_model(root, &model_id, args.offline).map_err(|err| match args.model {
        // No model named: GPT-2 was only the default, and the built-in one needs no network.
        None => anyhow::anyhow!(
            "{err:#}\n  hint: or trace with tracebook's built-in model, offline and from any folder: \
             --model {BUILTIN_MODEL_ID} (GPT-2's architecture and tokenizer, not OpenAI's weights; \
             the trace names it)"
        ),
        Some(_) => err,
    })?;
    let prompt = PromptSpec {
        text: text.to_string(),
        options: PromptOptions {
            generate: args.generate,
            ..PromptOptions::default()
        },
        model: None,
        model_name: None,
    };
    let options = TraceOptions {
        precision: args.precision.unwrap_or_default(),
        top_k: args.top_k.unwrap_or(20),
    };
    let shown = shown_name(None, &model_id, root);
    let written = write_one(&model, "", &prompt, &options, out, shown.as_deref())?;
    outln!("wrote {} ({})", out.display(), HumanBytes(written));
    Ok(())
}
