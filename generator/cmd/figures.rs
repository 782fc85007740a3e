//! `tracebook figures [KIND]`: the figure kinds, one line each, or one kind's options, defaults
//! and an example block, from the reference compiled into the binary (the figures README).

use tracebook_figures::reference::{kind_reference, kind_references, SHARED_OPTIONS};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A kind to describe in full (its options, defaults and an example block).
    pub kind: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.kind {
        None => {
            let refs = kind_references();
            let width = refs.iter().map(|r| r.kind.len()).max().unwrap_or(0);
            println!(
                "{} figure kinds (`tracebook figures KIND` for one in full):\n",
                refs.len()
            );
            for r in refs {
                println!("  {:width$}  {}", r.kind, first_clause(&r.draws));
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
            println!("figure {}: {}\n", r.kind, r.draws);
            println!("options: {}\n", r.options);
            println!("{}\n", SHARED_OPTIONS.replace('`', ""));
            println!("example:\n\n{}", example(&r.kind, &r.options));
            Ok(())
        }
    }
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
