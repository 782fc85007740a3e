//! Replacing a file all at once: readers see the old bytes or the new, never a partial file.

#[cfg(unix)]
use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Write `bytes` to `path` through a temporary file in the same directory: write, fsync, then
/// rename over the target. On any error the temporary file is removed and the target is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "the path does not name a file")
    })?;
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // Like fs::write: readable by others as the umask allows, not tempfile's owner-only 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// Make the rename itself durable where the platform allows; a failure here loses nothing
/// that was promised (the new file is complete either way), so it is not reported.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}
