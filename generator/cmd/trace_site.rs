//! `tracebook trace` over a site: every prompt of tracebook.toml and content/, missing or stale only.

use super::builtin_model::resolve_model;
use super::trace::{needs_writing, progress, write_one, Args};
use anyhow::bail;
use indicatif::HumanBytes;
use std::path::Path;
use tracebook_model::Model;
use tracebook_site::{collect_prompts, NamedPrompt};
use tracebook_trace::{DigestCache, Expected, TraceOptions};

pub fn run(root: &Path, args: &Args) -> anyhow::Result<()> {
    let site = match collect_prompts(root) {
        Ok(site) => site,
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            bail!(
                "{} problem(s) in the site; nothing was traced",
                diagnostics.len()
            );
        }
    };
    let prompts: Vec<&NamedPrompt> = match &args.only {
        Some(only) => match site.get(only) {
            Some(p) => vec![p],
            None => bail!(
                "no prompt named {only:?} in {}\n  hint: the site's prompts are: {}",
                root.display(),
                site.prompts
                    .iter()
                    .map(|p| p.name.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        None => site.prompts.iter().collect(),
    };
    if prompts.is_empty() {
        println!("the site names no prompts: nothing to trace");
        return Ok(());
    }
    let options = TraceOptions {
        precision: args.precision.unwrap_or(site.config.trace.precision),
        top_k: args.top_k.unwrap_or(site.config.trace.top_k),
    };
    let spec = args.model.as_deref().unwrap_or(&site.config.model.id);
    let files = resolve_model(spec, root, !args.offline)?;
    if spec != site.config.model.id {
        eprintln!(
            "note: tracing with --model {spec:?}, but tracebook.toml names [model] id = {:?}: \
             `tracebook build` and `check` will call these traces stale until you set\n  \
             [model]\n  id = {spec:?}\nin {} (the model a site names is the one its traces \
             must come from)",
            site.config.model.id,
            root.join(tracebook_site::CONFIG_FILE).display()
        );
    }
    let sha = files.weights_sha256(&DigestCache::user())?;

    let mut todo = Vec::new();
    for prompt in &prompts {
        let path = site.trace_path(root, prompt);
        let expected = Expected {
            model_id: &files.id,
            prompt: &prompt.spec,
            options: &options,
            weights_sha256: Some(&sha),
        };
        let reason =
            needs_writing(&path, &expected).or_else(|| args.force.then(|| "--force".into()));
        if let Some(reason) = reason {
            todo.push((prompt, path, reason));
        }
    }
    let fresh = prompts.len() - todo.len();
    if todo.is_empty() {
        println!("all {fresh} traces are up to date (model {})", files.id);
        return Ok(());
    }

    eprintln!(
        "loading model {} from {}",
        files.id,
        files.describe_weights()
    );
    let model = Model::load_hashed(files, sha)?;
    let bar = progress(todo.len() as u64);
    let (mut written, mut bytes, mut failures) = (0, 0, Vec::new());
    for (prompt, path, reason) in &todo {
        bar.set_message(format!("{} ({reason})", prompt.name));
        match write_one(&model, prompt.name.as_str(), &prompt.spec, &options, path) {
            Ok(n) => {
                bar.suspend(|| println!("  wrote {} ({reason})", path.display()));
                written += 1;
                bytes += n;
            }
            Err(err) => failures.push(format!(
                "prompt {:?} ({}): {err:#}",
                prompt.name.as_str(),
                prompt.declared
            )),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "wrote {written} trace(s) ({}) to {}, {fresh} up to date, model {}",
        HumanBytes(bytes),
        root.join("traces").display(),
        model.files.id
    );
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("error: {f}");
        }
        bail!("{} prompt(s) could not be traced", failures.len());
    }
    Ok(())
}
