//! The site's own figure kinds: every `figures/NAME.svg` (a tera template writing one `<svg>`)
//! with `figures/NAME.toml` beside it declaring its options (docs/authoring.md, "Figure kinds
//! of your own"). Each is read and compiled here, so a template's syntax error or a broken
//! declaration is reported at its file's line and column before any page is drawn.

use crate::base::diagnostic::{Diagnostic, Diagnostics};
use crate::base::source::SourceFile;
use std::path::Path;
use tracebook_figures::own::OwnKind;

/// The folder of the site's own kinds.
pub const FIGURES_DIR: &str = "figures";

/// The site's own kinds at `root`, for `tracebook figures`; the problems of those that
/// cannot be read, as diagnostics.
pub fn of_site(root: &Path) -> (Vec<OwnKind>, Diagnostics) {
    let mut out = Diagnostics::new();
    let kinds = load(root, &mut out);
    (kinds, out)
}

/// Every kind of `root/figures/`, sorted by name; a kind that cannot be read is reported and
/// left out.
pub fn load(root: &Path, out: &mut Diagnostics) -> Vec<OwnKind> {
    let Ok(entries) = std::fs::read_dir(root.join(FIGURES_DIR)) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".svg").map(String::from))
        .collect();
    names.sort();
    let mut kinds = Vec::new();
    for name in names {
        match read(root, &name) {
            Ok(kind) => kinds.push(kind),
            Err(diagnostic) => out.push(diagnostic),
        }
    }
    kinds
}

fn read(root: &Path, name: &str) -> Result<OwnKind, Diagnostic> {
    let template = SourceFile::read(root, &Path::new(FIGURES_DIR).join(format!("{name}.svg")))?;
    let declared = Path::new(FIGURES_DIR).join(format!("{name}.toml"));
    let declaration = match root.join(&declared).is_file() {
        true => Some(SourceFile::read(root, &declared)?),
        false => None,
    };
    OwnKind::new(
        name,
        (&template.name, &template.text),
        declaration
            .as_ref()
            .map(|d| (d.name.as_str(), d.text.as_str())),
    )
    .map_err(|e| {
        let file = match &declaration {
            Some(d) if d.name == e.file => d,
            _ => &template,
        };
        let diagnostic = match e.range {
            Some(range) => file.error(range, e.message),
            None => Diagnostic::file(&file.name, e.message),
        };
        diagnostic.with_optional_hint(e.hint)
    })
}
