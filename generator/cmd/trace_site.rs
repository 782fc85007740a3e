//! `tracebook trace` over a site: every prompt of tracebook.toml and content/, missing or
//! stale only. Prompts are traced with their own `model` when they name one, else with the
//! site's `[model] id` (or `--model`); each model is loaded once, for its prompts.

use super::builtin_model::resolve_model;
use super::trace_args::Args;
use super::trace_write::{needs_writing, progress, shown_name, write_one};
use anyhow::bail;
use indicatif::HumanBytes;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracebook_model::AnyModel;
use tracebook_site::{collect_prompts, NamedPrompt, SitePrompts};
use tracebook_trace::{DigestCache, Expected, TraceOptions};

pub fn run(root: &Path, args: &Args) -> anyhow::Result<()> {
    let site = load(root)?;
    let prompts = selected(&site, root, args)?;
    if prompts.is_empty() {
        outln!("the site names no prompts: nothing to trace");
        return Ok(());
    }
    let options = TraceOptions {
        precision: args.precision.unwrap_or(site.config.trace.precision),
        top_k: args.top_k.unwrap_or(site.config.trace.top_k),
    };
    let default_model = args.model.as_deref().unwrap_or(&site.config.model.id);
    if default_model != site.config.model.id {
        note_other_model(root, default_model, &site.config.model.id);
    }
    let mut by_model: BTreeMap<&str, Vec<&NamedPrompt>> = BTreeMap::new();
    for prompt in prompts {
        let model = prompt.spec.model.as_deref().unwrap_or(default_model);
        by_model.entry(model).or_default().push(prompt);
    }
    let mut failures = Vec::new();
    for (model, prompts) in by_model {
        trace_with(root, &site, args, model, &prompts, &options, &mut failures)?;
    }
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("error: {f}");
        }
        bail!("{} prompt(s) could not be traced", failures.len());
    }
    Ok(())
}

fn load(root: &Path) -> anyhow::Result<SitePrompts> {
    collect_prompts(root).or_else(|diagnostics| {
        eprintln!("{diagnostics}");
        bail!(
            "{} problem(s) in the site; nothing was traced",
            diagnostics.len()
        )
    })
}

/// The prompts `--only` picks, or all of them.
fn selected<'s>(
    site: &'s SitePrompts,
    root: &Path,
    args: &Args,
) -> anyhow::Result<Vec<&'s NamedPrompt>> {
    let Some(only) = &args.only else {
        return Ok(site.prompts.iter().collect());
    };
    match site.get(only) {
        Some(p) => Ok(vec![p]),
        None => bail!(
            "no prompt named {only:?} in {}\n  hint: the site's prompts are: {}",
            root.display(),
            site.prompts
                .iter()
                .map(|p| p.name.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn note_other_model(root: &Path, spec: &str, configured: &str) {
    eprintln!(
        "note: tracing with --model {spec:?}, but tracebook.toml names [model] id = {configured:?}: \
         `tracebook build` and `check` will call these traces stale until you set\n  \
         [model]\n  id = {spec:?}\nin {} (the model a site names is the one its traces \
         must come from)",
        root.join(tracebook_site::CONFIG_FILE).display()
    );
}

/// Traces the `prompts` that use `model` and are missing or stale, loading it only if one is.
/// Whether every prompt's trace is fresh when the model's weights cannot be compared.
fn all_fresh_by_name(
    root: &Path,
    site: &SitePrompts,
    model_spec: &str,
    prompts: &[&NamedPrompt],
    options: &TraceOptions,
) -> bool {
    prompts.iter().all(|prompt| {
        let expected = Expected {
            model_id: model_spec,
            prompt: &prompt.spec,
            options,
            weights_sha256: None,
        };
        needs_writing(&site.trace_path(root, prompt), &expected).is_none()
    })
}

fn trace_with(
    root: &Path,
    site: &SitePrompts,
    args: &Args,
    model_spec: &str,
    prompts: &[&NamedPrompt],
    options: &TraceOptions,
    failures: &mut Vec<String>,
) -> anyhow::Result<()> {
    let files = match resolve_model(model_spec, root, !args.offline) {
        Ok(files) => files,
        // A model that is not on this machine (a reader's clone, CI without the folder) has
        // nothing to trace when its traces are fresh by what `check` compares without weights.
        Err(err) if !args.force && all_fresh_by_name(root, site, model_spec, prompts, options) => {
            outln!(
                "all {} traces of model {model_spec} are up to date (its weights are not here: \
                 checked by the model's name, as `check` does)",
                prompts.len()
            );
            drop(err);
            return Ok(());
        }
        Err(err) => return Err(err),
    };
    let sha = files.weights_sha256(&DigestCache::user())?;
    let mut todo: Vec<(&NamedPrompt, PathBuf, String)> = Vec::new();
    for prompt in prompts {
        let path = site.trace_path(root, prompt);
        let expected = Expected {
            model_id: &files.id,
            prompt: &prompt.spec,
            options,
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
        outln!("all {fresh} traces of model {} are up to date", files.id);
        return Ok(());
    }
    eprintln!(
        "loading model {} from {}",
        files.id,
        files.describe_weights()
    );
    let model = AnyModel::load_hashed(files, sha)?;
    let bar = progress(todo.len() as u64);
    let (mut written, mut bytes) = (0, 0);
    for (prompt, path, reason) in &todo {
        bar.set_message(format!("{} ({reason})", prompt.name));
        // `--model` other than the site's: the site's name is not this model's.
        let overridden = prompt.spec.model.is_none() && model_spec != site.config.model.id;
        let explicit = (!overridden)
            .then(|| site.config.model_name_for(&prompt.spec))
            .flatten();
        let shown = shown_name(explicit, model_spec, root);
        match write_one(
            &model,
            prompt.name.as_str(),
            &prompt.spec,
            options,
            path,
            shown.as_deref(),
        ) {
            Ok(n) => {
                bar.suspend(|| outln!("  wrote {} ({reason})", path.display()));
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
    outln!(
        "wrote {written} trace(s) ({}) to {}, {fresh} up to date, model {}",
        HumanBytes(bytes),
        root.join("traces").display(),
        model.files().id
    );
    Ok(())
}
