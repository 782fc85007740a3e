//! A reader for the block-style YAML subset GitHub workflows use (mappings, sequences, plain
//! and quoted scalars, `|` blocks, `[a, b]` lists), enough to check a workflow's structure
//! without a YAML dependency. Malformed indentation panics with the line.

#![allow(dead_code)]

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub enum Yaml {
    Map(BTreeMap<String, Yaml>),
    Seq(Vec<Yaml>),
    Str(String),
}

impl Yaml {
    pub fn get(&self, key: &str) -> &Yaml {
        match self {
            Yaml::Map(map) => map
                .get(key)
                .unwrap_or_else(|| panic!("no key `{key}` in {self:?}")),
            _ => panic!("`{key}` looked up in a non-mapping {self:?}"),
        }
    }

    pub fn has(&self, key: &str) -> bool {
        matches!(self, Yaml::Map(map) if map.contains_key(key))
    }

    pub fn str(&self) -> &str {
        match self {
            Yaml::Str(s) => s,
            _ => panic!("not a scalar: {self:?}"),
        }
    }

    pub fn seq(&self) -> &[Yaml] {
        match self {
            Yaml::Seq(items) => items,
            _ => panic!("not a sequence: {self:?}"),
        }
    }
}

/// Parses a whole document.
pub fn parse(text: &str) -> Yaml {
    assert!(!text.contains('\t'), "YAML forbids tabs for indentation");
    let mut lines: Vec<(usize, String)> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| (l.len() - l.trim_start().len(), l.trim().to_string()))
        .collect();
    let mut at = 0;
    let doc = block(&mut lines, &mut at, 0);
    assert_eq!(at, lines.len(), "unparsed from: {:?}", lines.get(at));
    doc
}

fn block(lines: &mut Vec<(usize, String)>, at: &mut usize, indent: usize) -> Yaml {
    if lines[*at].1.starts_with("- ") || lines[*at].1 == "-" {
        return sequence(lines, at, indent);
    }
    let mut map = BTreeMap::new();
    while *at < lines.len() && lines[*at].0 == indent {
        let line = lines[*at].1.clone();
        let (key, value) = match line.split_once(": ") {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (
                line.strip_suffix(':')
                    .unwrap_or_else(|| panic!("expected `key:` at {line:?}")),
                "",
            ),
        };
        *at += 1;
        let node = if value == "|" || value == ">" {
            let mut text = String::new();
            while *at < lines.len() && lines[*at].0 > indent {
                text.push_str(&lines[*at].1);
                text.push('\n');
                *at += 1;
            }
            Yaml::Str(text)
        } else if !value.is_empty() {
            scalar(value)
        } else if *at < lines.len()
            && (lines[*at].0 > indent || (lines[*at].0 == indent && lines[*at].1.starts_with('-')))
        {
            let child = lines[*at].0;
            block(lines, at, child)
        } else {
            Yaml::Str(String::new())
        };
        assert!(
            map.insert(unquote(key), node).is_none(),
            "duplicate key {key}"
        );
    }
    if *at < lines.len() {
        assert!(lines[*at].0 < indent, "bad indentation at {:?}", lines[*at]);
    }
    Yaml::Map(map)
}

fn sequence(lines: &mut Vec<(usize, String)>, at: &mut usize, indent: usize) -> Yaml {
    let mut items = Vec::new();
    while *at < lines.len() && lines[*at].0 == indent && lines[*at].1.starts_with('-') {
        let rest = lines[*at].1[1..].trim().to_string();
        if rest.is_empty() {
            *at += 1;
            let child = lines[*at].0;
            items.push(block(lines, at, child));
        } else if rest.contains(": ") || rest.ends_with(':') {
            // "- key: value" opens a mapping whose keys sit two columns in.
            lines[*at] = (indent + 2, rest);
            items.push(block(lines, at, indent + 2));
        } else {
            items.push(scalar(&rest));
            *at += 1;
        }
    }
    Yaml::Seq(items)
}

fn scalar(value: &str) -> Yaml {
    match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        Some(list) => Yaml::Seq(
            list.split(',')
                .map(|v| Yaml::Str(unquote(v.trim())))
                .collect(),
        ),
        None => Yaml::Str(unquote(value)),
    }
}

fn unquote(value: &str) -> String {
    let quoted = value.len() >= 2
        && ((value.starts_with('"') && value.ends_with('"'))
            || (value.starts_with('\'') && value.ends_with('\'')));
    if quoted {
        value[1..value.len() - 1].to_string()
    } else {
        value.to_string()
    }
}
