//! Files a push to GitHub would be refused for: any file of the site's folder over GitHub's
//! limit (100 MiB) that git would commit, that is, not ignored by the site's `.gitignore`
//! files, `.git/info/exclude` or the user's global excludes (read as git reads them, by the
//! `ignore` crate). A model made or downloaded into the site is the usual one: its weights
//! stay on the author's machine, and the site commits its traces.

use crate::base::diagnostic::Diagnostic;
use std::path::Path;

/// GitHub refuses a push with a file larger than this.
pub const GITHUB_LIMIT: u64 = 100 * 1024 * 1024;

/// A warning for each file under `root` larger than `limit` bytes that git would commit.
pub fn warnings(root: &Path, limit: u64) -> Vec<Diagnostic> {
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    let mut found: Vec<(String, u64)> = walk
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| {
            let size = e.metadata().ok()?.len();
            let path = e.path().strip_prefix(root).ok()?;
            (size > limit).then(|| (path.to_string_lossy().replace('\\', "/"), size))
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|(path, size)| {
            let folder = Path::new(&path)
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or(path.clone(), |p| format!("{}/", p.display()));
            Diagnostic::file(
                &path,
                format!(
                    "{path} is {} MB and git would commit it: GitHub refuses a push with a file over 100 MiB",
                    size / 1_000_000
                ),
            )
            .with_hint(format!(
                "add `{folder}` to .gitignore: a model's weights stay on your machine, and the site commits its traces (the build reads those); or track the file with Git LFS"
            ))
            .as_warning()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::warnings;

    #[test]
    fn a_large_file_git_would_commit_is_named_and_an_ignored_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("models/big")).unwrap();
        std::fs::create_dir_all(root.join("scratch")).unwrap();
        std::fs::write(root.join(".gitignore"), "public/\nscratch/\n").unwrap();
        // Sparse files: their size, without writing the bytes.
        for path in [
            "models/big/model.safetensors",
            "scratch/huge.bin",
            "small.txt",
        ] {
            let file = std::fs::File::create(root.join(path)).unwrap();
            let size = if path == "small.txt" { 10 } else { 2_000 };
            file.set_len(size).unwrap();
        }
        let found = warnings(root, 1_000);
        assert_eq!(found.len(), 1, "{found:?}");
        let text = found[0].to_string();
        assert!(text.contains("models/big/model.safetensors"), "{text}");
        assert!(text.contains("add `models/big/` to .gitignore"), "{text}");
        assert!(
            text.starts_with("warning") || text.contains("warning:"),
            "{text}"
        );
        // Ignored where git says so: the folder in .gitignore.
        std::fs::write(root.join(".gitignore"), "scratch/\nmodels/\n").unwrap();
        assert!(warnings(root, 1_000).is_empty());
    }
}
