//! A trace in memory: its metadata and its named, encoded tensors; reading and writing files.

use crate::codec::{self, Encoding};
use crate::error::{Origin, TraceError};
use crate::file::{self, FileOut, TensorOut};
use crate::kind::TensorKind;
use crate::meta::TraceMeta;
use crate::suggest;
use crate::tensor::Tensor;
use crate::{atomic, json_style, FORMAT, FORMAT_VERSION};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use std::collections::BTreeMap;
use std::path::Path;

/// One run of the model on one prompt: metadata and every recorded tensor.
#[derive(Clone, Debug)]
pub struct Trace {
    pub meta: TraceMeta,
    tensors: BTreeMap<String, Stored>,
    /// The file the trace was read from, named in errors.
    origin: Origin,
}

/// A tensor as it is kept: encoded, exactly the bytes the file holds.
#[derive(Clone, Debug, PartialEq)]
struct Stored {
    shape: Vec<usize>,
    encoding: Encoding,
    bytes: Vec<u8>,
}

/// Two traces are equal when their metadata and stored tensors are; where they came from
/// does not matter.
impl PartialEq for Trace {
    fn eq(&self, other: &Self) -> bool {
        self.meta == other.meta && self.tensors == other.tensors
    }
}

impl Trace {
    pub fn new(meta: TraceMeta) -> Self {
        Trace {
            meta,
            tensors: BTreeMap::new(),
            origin: Origin::default(),
        }
    }

    /// Add a tensor, encoded with `meta.options.precision` and the kind its name implies.
    pub fn insert(
        &mut self,
        name: &str,
        shape: Vec<usize>,
        data: &[f32],
    ) -> Result<(), TraceError> {
        if self.tensors.contains_key(name) {
            return Err(TraceError::DuplicateTensor {
                name: name.to_string(),
            });
        }
        if codec::value_count(&shape) != Some(data.len()) {
            return Err(TraceError::ShapeMismatch {
                name: name.to_string(),
                shape,
                len: data.len(),
            });
        }
        let preferred = TensorKind::of(name).encoding(self.meta.options.precision);
        let (encoding, bytes) = codec::encode(preferred, &shape, data);
        let stored = Stored {
            shape,
            encoding,
            bytes,
        };
        self.tensors.insert(name.to_string(), stored);
        Ok(())
    }

    /// Tensor names in sorted order.
    pub fn tensor_names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        self.tensors.get(name).map(|t| t.shape.as_slice())
    }

    /// How the tensor is stored: the encoding its kind asks for, or f32 where that could not
    /// hold its values.
    pub fn encoding(&self, name: &str) -> Option<Encoding> {
        self.tensors.get(name).map(|t| t.encoding)
    }

    /// The tensor's decoded values.
    pub fn tensor(&self, name: &str) -> Result<Tensor, TraceError> {
        let stored = self
            .tensors
            .get(name)
            .ok_or_else(|| TraceError::UnknownTensor {
                origin: self.origin.clone(),
                name: name.to_string(),
                suggestion: suggest::closest(name, self.tensor_names()).map(str::to_string),
            })?;
        let data = codec::decode(stored.encoding, &stored.shape, &stored.bytes)
            .map_err(|problem| self.corrupt(name, problem))?;
        Ok(Tensor {
            shape: stored.shape.clone(),
            data,
        })
    }

    /// The number of values over all tensors.
    pub fn stored_values(&self) -> usize {
        self.tensors.values().map(|t| t.value_count()).sum()
    }

    /// The file this trace was read from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.origin.0.as_deref()
    }

    /// The trace file's text: indented JSON (see `json_style`) ending in a newline, byte-identical for equal traces.
    pub fn to_json(&self) -> String {
        let tensors = self
            .tensors
            .iter()
            .map(|(name, t)| {
                let out = TensorOut {
                    shape: &t.shape,
                    encoding: t.encoding,
                    data: BASE64.encode(&t.bytes),
                };
                (name.as_str(), out)
            })
            .collect();
        let file = FileOut {
            format: FORMAT,
            version: FORMAT_VERSION,
            meta: &self.meta,
            tensors,
        };
        let mut text = json_style::to_string(&file)
            .expect("a trace serializes: its maps have string or integer keys");
        text.push('\n');
        text
    }

    /// Parse trace JSON, checking its format, version and every tensor's data.
    pub fn from_json(text: &str) -> Result<Trace, TraceError> {
        Trace::parse(text, Origin::default())
    }

    /// Read a trace file; every error names `path` and says how to fix it.
    pub fn read(path: &Path) -> Result<Trace, TraceError> {
        let bytes = std::fs::read(path).map_err(|source| TraceError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let origin = Origin(Some(path.to_path_buf()));
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            TraceError::NotJson {
                origin: origin.clone(),
                line: 1 + valid.iter().filter(|&&b| b == b'\n').count(),
                column: 1 + valid.len() - line_start,
                message: "not UTF-8 text".to_string(),
            }
        })?;
        Trace::parse(&text, origin)
    }

    /// Write the trace file atomically: readers never see a partial trace.
    pub fn write(&self, path: &Path) -> Result<(), TraceError> {
        atomic::write_atomic(path, self.to_json().as_bytes()).map_err(|source| TraceError::Write {
            path: path.to_path_buf(),
            source,
        })
    }

    fn parse(text: &str, origin: Origin) -> Result<Trace, TraceError> {
        let file = file::parse(text, &origin)?;
        let mut trace = Trace {
            meta: file.meta,
            tensors: BTreeMap::new(),
            origin,
        };
        for (name, t) in file.tensors {
            let bytes = BASE64
                .decode(&t.data)
                .map_err(|e| trace.corrupt(&name, format!("its data is not valid base64 ({e})")))?;
            codec::check_len(t.encoding, &t.shape, bytes.len())
                .map_err(|problem| trace.corrupt(&name, problem))?;
            let stored = Stored {
                shape: t.shape,
                encoding: t.encoding,
                bytes,
            };
            trace.tensors.insert(name, stored);
        }
        Ok(trace)
    }

    fn corrupt(&self, name: &str, problem: String) -> TraceError {
        TraceError::CorruptTensor {
            origin: self.origin.clone(),
            name: name.to_string(),
            problem,
        }
    }
}

impl Stored {
    fn value_count(&self) -> usize {
        codec::value_count(&self.shape).expect("a stored shape was checked when stored")
    }
}
