//! `tracebook new-kind NAME`: starts a figure kind of the site's own, `figures/NAME.svg` (a
//! template drawing one head's attention from the last token, as bars) and `figures/NAME.toml`
//! (its options), which a block ```` ```figure NAME ```` then draws.

use anyhow::bail;
use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The kind's name: lowercase letters, digits and `-` (e.g. `neuron-strip`).
    pub name: String,
}

const TEMPLATE: &str = include_str!("new_kind/starter.svg");
const DECLARATION: &str = include_str!("new_kind/starter.toml");

pub fn run(root: &Path, args: Args) -> anyhow::Result<()> {
    let name = args.name.strip_suffix(".svg").unwrap_or(&args.name);
    super::new::require_site(root)?;
    // The same checks as a kind found in figures/ (a built-in name, a bad file name).
    let path = format!("{}/{name}.svg", tracebook_site::FIGURES_DIR);
    if let Err(e) = tracebook_figures::own::OwnKind::new(name, (&path, TEMPLATE), None) {
        bail!(
            "{}{}",
            e.message,
            e.hint.map(|h| format!("\n  hint: {h}")).unwrap_or_default()
        );
    }
    let dir = root.join(tracebook_site::FIGURES_DIR);
    let (svg, toml) = (
        dir.join(format!("{name}.svg")),
        dir.join(format!("{name}.toml")),
    );
    if svg.exists() || toml.exists() {
        bail!(
            "{path} or its .toml already exists: nothing was written\n  hint: choose another name, or edit the kind that is there"
        );
    }
    std::fs::create_dir_all(&dir)?;
    std::fs::write(&toml, DECLARATION)?;
    std::fs::write(&svg, TEMPLATE)?;
    outln!(
        "wrote {path} and {}/{name}.toml; draw it in an article with\n\n```figure {name}\nprompt = \"NAME\"\nlayer = 0\nhead = 0\ncaption = \"Where the last token looks.\"\n```",
        tracebook_site::FIGURES_DIR
    );
    Ok(())
}
