//! The site's own records under `.tracebook/` (the external links' cache, the printed values):
//! written as JSON atomically (a temporary file beside it, then a rename), in a folder that
//! carries a `.gitignore`, since they are this machine's and not for version control.

use serde::Serialize;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Written beside the records so git leaves the folder alone without a line in the site's own
/// .gitignore (CI keeps the link cache with actions/cache instead).
const GITIGNORE: &str = "# tracebook's caches: not for version control\n*\n";

/// Writes `value` as pretty JSON to `path`.
pub fn save(path: &Path, value: &impl Serialize) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(ignore, GITIGNORE)?;
    }
    let mut json = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    json.push('\n');
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    // One temporary name per writer, so two builds in one process never share one.
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    std::fs::write(&temp, json)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
