//! No function in the crate's code (tests aside) is longer than 60 lines, signature and
//! closing brace included: a figure kind reads as small named steps (layout, data,
//! drawing). The source is rustfmt's, so a function ends at the first line that closes it
//! at its own indentation.

use std::fs;
use std::path::Path;

const MOST: usize = 60;

/// Every function longer than [`MOST`] lines in `file`, as "file:line name (n lines)".
fn long_functions(file: &Path, out: &mut Vec<String>) {
    let text = fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim_start().starts_with("#[cfg(test)]") {
            return;
        }
        let Some((indent, name)) = function_start(line) else {
            i += 1;
            continue;
        };
        // The signature may run over several lines; a declaration without a body ends in `;`.
        let mut open = i;
        while open < lines.len() && !lines[open].trim_end().ends_with('{') {
            if lines[open].trim_end().ends_with(';') {
                break;
            }
            open += 1;
        }
        if open == lines.len() || lines[open].trim_end().ends_with(';') {
            i = open + 1;
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        let end = (open + 1..lines.len())
            .find(|&j| lines[j].trim_end() == close)
            .unwrap_or_else(|| panic!("{}:{}: {name} never closes", file.display(), i + 1));
        let length = end - i + 1;
        if length > MOST {
            out.push(format!(
                "{}:{} {name} ({length} lines)",
                file.display(),
                i + 1
            ));
        }
        i = end + 1;
    }
}

/// The indentation and name of a line that starts a function.
fn function_start(line: &str) -> Option<(usize, String)> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let mut rest = trimmed;
    // Any visibility: `pub`, `pub(crate)`, `pub(super)`, `pub(in path)`.
    if let Some(scoped) = rest.strip_prefix("pub(") {
        rest = scoped.split_once(") ").map_or(rest, |(_, after)| after);
    }
    for prefix in ["pub ", "const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    let name: String = name
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    Some((indent, name))
}

fn walk(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            walk(&path, out);
        } else if name.ends_with(".rs")
            && !name.ends_with("_tests.rs")
            && !name.starts_with("test_")
        {
            long_functions(&path, out);
        }
    }
}

#[test]
fn no_function_is_longer_than_sixty_lines() {
    let mut long = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut long,
    );
    assert!(
        long.is_empty(),
        "split these functions:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_reader_finds_a_long_function_and_skips_tests() {
    let dir = std::env::temp_dir().join(format!("tracebook-fnlen-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let body = "    let x = 1;\n".repeat(MOST);
    let source = format!(
        "pub fn short() {{\n}}\n\nfn long(\n    a: u8,\n) -> u8 {{\n{body}    a\n}}\n\npub(in crate::kinds) fn scoped() {{\n{body}}}\n\n#[cfg(test)]\nmod tests {{\n    fn also_long() {{\n{body}    }}\n}}\n"
    );
    let file = dir.join("sample.rs");
    fs::write(&file, source).unwrap();
    let mut found = Vec::new();
    long_functions(&file, &mut found);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].ends_with(":4 long (65 lines)"), "{found:?}");
    assert!(
        found[1].contains(" scoped ("),
        "pub(in path) is read too: {found:?}"
    );
}
