//! Errors of reading, writing and querying traces: each names the file and says how to fix it.

use std::fmt;
use std::path::PathBuf;

/// Where trace JSON came from: a file, or text handed to `Trace::from_json`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Origin(pub Option<PathBuf>);

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(path) => write!(f, "{}", path.display()),
            None => f.write_str("trace JSON"),
        }
    }
}

/// The fix for a trace that cannot be used as it is.
const REGENERATE: &str = "run `tracebook trace` to regenerate it \
     (`tracebook trace --prompt TEXT --out FILE` for an ad-hoc trace)";

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{path}: cannot read the trace: {source}\n  hint: {}", read_hint(.source))]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot write the trace: {source}\n  hint: check that its folder exists and is writable")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{origin}: not valid JSON (line {line}, column {column}: {message})\n  hint: the file is damaged; {REGENERATE}")]
    NotJson {
        origin: Origin,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{origin}: not a tracebook trace: {reason}\n  hint: is this the right file? {REGENERATE}"
    )]
    WrongFormat { origin: Origin, reason: String },
    #[error("{origin}: trace format version {found}, but tracebook {} reads versions 1 to {supported}\n  hint: run `tracebook trace` with this tracebook to regenerate it (`tracebook trace --prompt TEXT --out FILE` for an ad-hoc trace), or read it with the tracebook that wrote it", env!("CARGO_PKG_VERSION"))]
    UnknownVersion {
        origin: Origin,
        found: String,
        supported: u32,
    },
    #[error("{origin}: does not match trace format version {version} (line {line}, column {column}: {message})\n  hint: {REGENERATE}")]
    Schema {
        origin: Origin,
        version: u32,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{origin}: tensor {name:?} is corrupt: {problem}\n  hint: {REGENERATE}")]
    CorruptTensor {
        origin: Origin,
        name: String,
        problem: String,
    },
    #[error("{origin}: no tensor {name:?}{}\n  hint: {}", did_you_mean(.suggestion), inspect_hint(.origin))]
    UnknownTensor {
        origin: Origin,
        name: String,
        suggestion: Option<String>,
    },
    #[error("tensor {name:?}: shape {shape:?} holds {} values, but {len} were given\n  hint: this is a bug in the code recording the tensor", describe_product(.shape))]
    ShapeMismatch {
        name: String,
        shape: Vec<usize>,
        len: usize,
    },
    #[error("tensor {name:?} was recorded twice\n  hint: this is a bug in the code recording the trace; each name is recorded once")]
    DuplicateTensor { name: String },
}

fn read_hint(source: &std::io::Error) -> &'static str {
    match source.kind() {
        std::io::ErrorKind::NotFound => "run `tracebook trace` to create it",
        _ => "check that the file is readable",
    }
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default()
}

fn inspect_hint(origin: &Origin) -> String {
    match &origin.0 {
        Some(path) => format!("`tracebook inspect {}` lists its tensors", path.display()),
        None => "`tracebook inspect FILE` lists a trace's tensors".to_string(),
    }
}

fn describe_product(shape: &[usize]) -> String {
    match shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)) {
        Some(n) => n.to_string(),
        None => "too many".to_string(),
    }
}
