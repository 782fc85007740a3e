//! `tracebook eject-templates`: copy the built-in templates into the site's templates/ to edit
//! them; a template the site already has is kept, never overwritten.

use super::ui::Ui;
use anyhow::Context;
use std::path::Path;
use tracebook_site::DEFAULT_TEMPLATES;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(root: &Path, ui: &Ui, _args: Args) -> anyhow::Result<()> {
    super::new::require_site(root)?;
    let dir = root.join("templates");
    let (mut written, mut kept) = (Vec::new(), Vec::new());
    for (name, text) in DEFAULT_TEMPLATES {
        let path = dir.join(name);
        if path.exists() {
            kept.push(*name);
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(*name);
    }
    if !written.is_empty() {
        ui.say(format!(
            "wrote {} into {}: edit them, and delete the ones you keep as they are (a site's \
             template replaces the built-in one of the same name; docs/authoring.md lists every \
             block and variable)",
            written.join(", "),
            dir.display()
        ));
    }
    if !kept.is_empty() {
        ui.say(format!("kept the site's own {}", kept.join(", ")));
    }
    Ok(())
}
