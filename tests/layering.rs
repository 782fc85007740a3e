//! No circle between modules, in any crate of the workspace: read as a graph of the paths
//! each module names (`crate::…` and `super::…`, in `use` lines and in code, comments and
//! tests left out), every crate is a stack that can be read from the bottom up. A circle
//! fails with its modules and the line of each import that closes it.
//!
//! The site crate's top-level modules are the stages of a build, declared in lib.rs in the
//! order a build goes through them (base, load, resolve, render, write, then the commands
//! that run them): a module may name only its own stage or one declared before it. An
//! upward import fails with its file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One module: its file, and what it names, as (module it points into, file line).
struct Module {
    file: PathBuf,
    uses: Vec<(String, usize)>,
}

/// The crate whose root file is `root`, every module it declares (tests aside).
fn crate_modules(root: &Path) -> BTreeMap<String, Module> {
    let mut out = BTreeMap::new();
    collect(root, String::new(), root.parent().unwrap(), &mut out);
    out
}

/// Reads `file` as module `path`, whose child modules live in `dir`.
fn collect(file: &Path, path: String, dir: &Path, out: &mut BTreeMap<String, Module>) {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let code = code_lines(&text);
    let mut children = Vec::new();
    let mut attribute_path: Option<String> = None;
    for (_, line) in &code {
        if let Some(p) = line
            .strip_prefix("#[path = \"")
            .and_then(|r| r.strip_suffix("\"]"))
        {
            attribute_path = Some(p.to_string());
            continue;
        }
        let declared = ["pub(crate) mod ", "pub(super) mod ", "pub mod ", "mod "]
            .iter()
            .find_map(|p| line.strip_prefix(p)?.strip_suffix(';'));
        if let Some(name) = declared {
            let child = match attribute_path.take() {
                Some(p) => file.parent().unwrap().join(p),
                None if dir.join(format!("{name}.rs")).exists() => dir.join(format!("{name}.rs")),
                None => dir.join(name).join("mod.rs"),
            };
            children.push((name.to_string(), child));
        }
        attribute_path = None;
    }
    out.insert(
        path.clone(),
        Module {
            file: file.to_path_buf(),
            uses: Vec::new(),
        },
    );
    let uses = named_paths(&code, &path);
    out.get_mut(&path).unwrap().uses = uses;
    for (name, child) in children {
        let child_path = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}::{name}")
        };
        let child_dir = if child.file_name().is_some_and(|n| n == "mod.rs") {
            child.parent().unwrap().to_path_buf()
        } else {
            child.with_extension("")
        };
        collect(&child, child_path, &child_dir, out);
    }
}

/// The lines of `text` before its tests, trimmed, without comments, numbered from 1.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .filter(|(_, l)| !l.starts_with("//"))
        .collect()
}

/// Every module path named after `crate::` or `super::` (`super::super::` climbs twice; a
/// braced group names each of its items), made absolute; with its line.
fn named_paths(code: &[(usize, String)], module: &str) -> Vec<(String, usize)> {
    let segments: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let mut out = Vec::new();
    for (number, line) in code {
        let mut rest = line.as_str();
        while let Some(at) = ["crate::", "super::"]
            .iter()
            .filter_map(|p| rest.find(p))
            .min()
        {
            let before = rest[..at].chars().last();
            rest = &rest[at..];
            let at_boundary = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            let base = if let Some(after) = rest.strip_prefix("crate::") {
                rest = after;
                Some(String::new())
            } else {
                let mut up = 0;
                while let Some(after) = rest.strip_prefix("super::") {
                    rest = after;
                    up += 1;
                }
                (up <= segments.len()).then(|| segments[..segments.len() - up].join("::"))
            };
            let Some(base) = base.filter(|_| at_boundary) else {
                continue;
            };
            for item in items(rest) {
                let full = if base.is_empty() {
                    item
                } else {
                    format!("{base}::{item}")
                };
                out.push((full, *number));
            }
        }
    }
    out
}

/// The paths at the start of `rest`: `a::b` gives one, `{a::b, c}` one per item.
fn items(rest: &str) -> Vec<String> {
    let path = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect::<String>()
            .trim_end_matches(':')
            .to_string()
    };
    match rest.strip_prefix('{') {
        Some(group) => {
            let mut depth = 0;
            let mut item = String::new();
            let mut out = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(path(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(path(item.trim()));
            out.into_iter().filter(|p| !p.is_empty()).collect()
        }
        None => vec![path(rest)],
    }
}

/// The module a named path points into: its longest prefix that is a module.
fn resolve(modules: &BTreeMap<String, Module>, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find(|m| modules.contains_key(m))
}

/// The crate's graph: module → modules it names (itself and the crate root left out),
/// each with the line that names it first.
fn graph(modules: &BTreeMap<String, Module>) -> BTreeMap<String, BTreeMap<String, usize>> {
    modules
        .iter()
        .map(|(name, module)| {
            let mut edges = BTreeMap::new();
            for (path, line) in &module.uses {
                if let Some(target) = resolve(modules, path) {
                    if target != *name
                        && !target.is_empty()
                        && !name.starts_with(&format!("{target}::"))
                    {
                        edges.entry(target).or_insert(*line);
                    }
                }
            }
            (name.clone(), edges)
        })
        .collect()
}

/// Strongly connected components of more than one module (Tarjan's algorithm).
fn circles(graph: &BTreeMap<String, BTreeMap<String, usize>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, usize>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(v: &'g str, s: &mut State<'g>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph[v].keys() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(w, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(v, &mut state);
        }
    }
    state.out
}

/// Each circle of the crate at `root`, as its imports "file:line: a uses b".
fn circles_of(root: &Path) -> Vec<String> {
    let modules = crate_modules(root);
    let graph = graph(&modules);
    circles(&graph)
        .into_iter()
        .map(|component| {
            let mut lines = vec![format!("a circle of {} modules:", component.len())];
            for a in &component {
                for (b, line) in &graph[a] {
                    if component.contains(b) {
                        let file = modules[a].file.display();
                        lines.push(format!("  {file}:{line}: {a} uses {b}"));
                    }
                }
            }
            lines.join("\n")
        })
        .collect()
}

const CRATES: [&str; 8] = [
    "generator/main.rs",
    "generator/trace/src/lib.rs",
    "generator/claims/src/lib.rs",
    "generator/tokenizer/src/lib.rs",
    "generator/model/src/lib.rs",
    "generator/figures/src/lib.rs",
    "generator/site/src/lib.rs",
    "generator/live/src/lib.rs",
];

#[test]
fn no_crate_has_a_circle_of_modules() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut modules = 0;
    for root in CRATES {
        let root = repo.join(root);
        modules += crate_modules(&root).len();
        found.extend(circles_of(&root));
    }
    assert!(modules > 150, "only {modules} modules read");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_circle_is_found_and_told_by_its_imports() {
    let dir = std::env::temp_dir().join(format!("tracebook-layering-{}", std::process::id()));
    fs::create_dir_all(dir.join("b")).unwrap();
    fs::write(dir.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    fs::write(dir.join("a.rs"), "use crate::b::inner::{X, Y};\n").unwrap();
    fs::write(dir.join("b/mod.rs"), "mod inner;\n").unwrap();
    fs::write(
        dir.join("b/inner.rs"),
        "// crate::c in a comment\nfn f() { super::super::a::g() }\n",
    )
    .unwrap();
    fs::write(
        dir.join("c.rs"),
        "use crate::{a, b};\n#[cfg(test)]\nmod tests { use crate::a; }\n",
    )
    .unwrap();
    let found = circles_of(&dir.join("lib.rs"));
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("a circle of 2 modules:"),
        "{}",
        found[0]
    );
    assert!(found[0].contains("a.rs:1: a uses b::inner"), "{}", found[0]);
    assert!(
        found[0].contains("inner.rs:2: b::inner uses a"),
        "{}",
        found[0]
    );
}

/// The top-level modules of the crate at `root`, in the order its root file declares them.
fn declared_order(root: &Path) -> Vec<String> {
    let text = fs::read_to_string(root).unwrap();
    code_lines(&text)
        .iter()
        .filter_map(|(_, line)| {
            ["pub(crate) mod ", "pub mod ", "mod "]
                .iter()
                .find_map(|p| line.strip_prefix(p)?.strip_suffix(';'))
                .map(str::to_string)
        })
        .collect()
}

/// Every import in the crate at `root` from a stage to one declared after it, as
/// "file:line: module (stage) uses path (a later stage)".
fn upward_imports(root: &Path) -> Vec<String> {
    let order = declared_order(root);
    let rank = |module: &str| {
        let stage = module.split("::").next().unwrap_or("");
        order.iter().position(|s| s == stage)
    };
    let modules = crate_modules(root);
    let mut out = Vec::new();
    for (name, module) in &modules {
        let Some(from) = rank(name) else { continue };
        for (path, line) in &module.uses {
            let Some(to) = resolve(&modules, path).and_then(|target| rank(&target)) else {
                continue;
            };
            if to > from {
                out.push(format!(
                    "{}:{line}: {name} ({}) uses {path} ({}, declared after it in {})",
                    module.file.display(),
                    order[from],
                    order[to],
                    root.display()
                ));
            }
        }
    }
    out
}

#[test]
fn the_site_crate_imports_only_down_its_stages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("generator/site/src/lib.rs");
    let order = declared_order(&root);
    assert_eq!(
        order[..5],
        ["base", "load", "resolve", "render", "write"],
        "lib.rs declares the stages in a build's order"
    );
    let found = upward_imports(&root);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn an_upward_import_is_told_by_file_and_line() {
    let dir = std::env::temp_dir().join(format!("tracebook-stages-{}", std::process::id()));
    fs::create_dir_all(dir.join("load")).unwrap();
    fs::write(dir.join("lib.rs"), "mod load;\nmod render;\n").unwrap();
    fs::write(dir.join("load/mod.rs"), "pub mod site;\n").unwrap();
    fs::write(
        dir.join("load/site.rs"),
        "use std::fmt;\nuse crate::render::page;\n",
    )
    .unwrap();
    fs::write(
        dir.join("render.rs"),
        "pub mod page {}\nuse crate::load::site;\n",
    )
    .unwrap();
    let found = upward_imports(&dir.join("lib.rs"));
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("load/site.rs:2: load::site (load) uses render::page (render"),
        "{}",
        found[0]
    );
}

#[test]
fn docs_architecture_names_every_module_of_every_stage() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = repo.join("generator/site/src");
    let doc = fs::read_to_string(repo.join("docs/architecture.md")).unwrap();
    let mut missing = Vec::new();
    for stage in &declared_order(&src.join("lib.rs"))[..5] {
        let heading = format!("\n### {stage}:");
        let Some(start) = doc.find(&heading) else {
            missing.push(format!("no section `### {stage}: ...`"));
            continue;
        };
        let rest = &doc[start + heading.len()..];
        let end = ["\n## ", "\n### "]
            .iter()
            .filter_map(|h| rest.find(h))
            .min()
            .unwrap_or(rest.len());
        let section = &rest[..end];
        for module in declared_order(&src.join(stage).join("mod.rs")) {
            let named = [format!("`{module}`"), format!("`{module}/`")];
            if !named.iter().any(|n| section.contains(n)) {
                missing.push(format!("{stage}::{module} is not named in `### {stage}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md: {}",
        missing.join("; ")
    );
}
