//! `tracebook figures [KIND]`: the figure kinds, one line each, or one kind's options, defaults
//! and an example block, from the reference compiled into the binary (the figures README); and
//! the site's own kinds (`figures/NAME.svg`), from their declarations.

use std::path::Path;
use tracebook_figures::own::{Declared, OwnKind};
use tracebook_figures::reference::{kind_reference, kind_references, SHARED_OPTIONS};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A kind to describe in full (its options, defaults and an example block).
    pub kind: Option<String>,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<()> {
    let (own, problems) = tracebook_site::own_kinds(root);
    for problem in problems.iter() {
        eprintln!("{problem}");
    }
    if let Some(kind) = (args.kind.as_deref()).and_then(|k| own.iter().find(|o| o.name == k)) {
        describe_own(kind);
        return Ok(());
    }
    match args.kind {
        None => {
            let refs = kind_references();
            let width = refs.iter().map(|r| r.kind.len()).max().unwrap_or(0);
            outln!(
                "{} figure kinds (`tracebook figures KIND` for one in full):\n",
                refs.len()
            );
            for r in refs {
                outln!("  {:width$}  {}", r.kind, first_clause(&r.draws));
            }
            if !own.is_empty() {
                outln!(
                    "\nthis site's own kinds ({}/NAME.svg):\n",
                    tracebook_site::FIGURES_DIR
                );
                let width = own.iter().map(|o| o.name.len()).max().unwrap_or(0);
                for o in &own {
                    outln!("  {:width$}  {}", o.name, o.declaration.description);
                }
            }
            Ok(())
        }
        Some(kind) => {
            let Some(r) = kind_reference(&kind) else {
                let names: Vec<String> = kind_references().into_iter().map(|r| r.kind).collect();
                anyhow::bail!(
                    "there is no figure kind `{kind}`\n  hint: the kinds are {}",
                    names.join(", ")
                );
            };
            outln!("figure {}: {}\n", r.kind, r.draws);
            outln!("options: {}\n", r.options);
            outln!("{}\n", SHARED_OPTIONS.replace('`', ""));
            outln!("example:\n\n{}", example(&r.kind, &r.options));
            Ok(())
        }
    }
}

/// An author's kind: what it draws, each option with its type, default, range and help, and a
/// block that draws it.
fn describe_own(kind: &OwnKind) {
    let d = &kind.declaration;
    outln!("figure {} ({}): {}\n", kind.name, kind.path, d.description);
    let prompt = match d.prompts {
        tracebook_figures::own::Prompts::One => "prompt = \"NAME\"",
        tracebook_figures::own::Prompts::Several => "prompts = [\"A\", \"B\"]",
    };
    outln!("options: {prompt}, caption");
    for (name, o) in &d.options {
        outln!("  {name}: {}", option_line(o));
    }
    outln!("\nexample:\n\n```figure {}", kind.name);
    outln!(
        "{}",
        prompt
            .replace("NAME", "robots")
            .replace("\"A\", \"B\"", "\"robots\", \"other\"")
    );
    for (name, o) in d.options.iter().filter(|(_, o)| o.default.is_none()) {
        let value = match o.kind {
            tracebook_figures::own::Type::String => format!(
                "{:?}",
                o.choices
                    .as_ref()
                    .and_then(|c| c.first())
                    .map_or("text", |c| c.as_str())
            ),
            tracebook_figures::own::Type::Boolean => "true".into(),
            _ => format!("{}", o.min.unwrap_or(0.0)),
        };
        outln!("{name} = {value}");
    }
    outln!("caption = \"What this figure shows.\"\n```");
}

/// An option's type, default, range, choices and help, on one line.
fn option_line(o: &Declared) -> String {
    let mut parts = vec![format!("{:?}", o.kind).to_lowercase()];
    match &o.default {
        Some(d) => parts.push(format!("default {d}")),
        None => parts.push("required".into()),
    }
    parts.extend(o.range());
    if let Some(c) = &o.choices {
        parts.push(format!("one of {}", c.join(", ")));
    }
    let help = if o.help.is_empty() {
        String::new()
    } else {
        format!(": {}", o.help)
    };
    format!("{}{help}", parts.join(", "))
}

/// What a kind draws, up to its first `;` or `,` clause, for the one-line list.
fn first_clause(draws: &str) -> &str {
    let end = draws.find([';', '(']).unwrap_or(draws.len());
    draws[..end].trim_end_matches([' ', ','])
}

/// A block that renders as it is (given a prompt called `robots`): the required options
/// filled with a first value.
fn example(kind: &str, options: &str) -> String {
    let mut lines = vec![
        format!("```figure {kind}"),
        "prompt = \"robots\"".to_string(),
    ];
    for (at, _) in options.match_indices(" (required") {
        // `layer, head (required)`: the bare names just before the mark share it.
        let names = options[..at]
            .rsplit(", ")
            .take_while(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .collect::<Vec<_>>();
        for name in names.into_iter().rev().filter(|n| *n != "prompt") {
            lines.push(format!("{name} = 0"));
        }
    }
    if let Some(i) = lines.iter().position(|l| l == "other = 0") {
        lines[i] = "other = \"another-prompt\"".to_string();
    }
    lines.push(format!("caption = \"What this {kind} figure shows.\""));
    lines.push("```".to_string());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_fill_the_required_options() {
        let compare = kind_reference("compare").unwrap();
        let block = example("compare", &compare.options);
        assert!(block.contains("other = \"another-prompt\""), "{block}");
        let heads = kind_reference("attention").unwrap();
        let block = example("attention", &heads.options);
        assert!(
            block.starts_with("```figure attention\nprompt = \"robots\"\nlayer = 0\nhead = 0\n"),
            "{block}"
        );
    }
}
