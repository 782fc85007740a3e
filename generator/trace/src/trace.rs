//! A trace in memory: its metadata and its named, encoded tensors; reading and writing files.

use crate::codec::{self, Base, Compression, Encoding, Prediction};
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
use std::sync::OnceLock;

/// One run of the model on one prompt: metadata and every recorded tensor.
#[derive(Clone, Debug)]
pub struct Trace {
    pub meta: TraceMeta,
    tensors: BTreeMap<String, Stored>,
    /// The file the trace was read from, named in errors.
    origin: Origin,
}

/// A tensor as it is kept: encoded (and compressed), exactly the bytes the file holds.
#[derive(Clone, Debug)]
struct Stored {
    shape: Vec<usize>,
    encoding: Encoding,
    /// When set, the values are this prediction plus what `bytes` decode to.
    predict: Option<Prediction>,
    compression: Option<Compression>,
    bytes: Vec<u8>,
    /// The inflated bytes of a compressed tensor, once it has been read: figures read the
    /// same tensor many times, and inflating costs more than decoding.
    inflated: OnceLock<Vec<u8>>,
}

/// Stored tensors are equal when the file would hold the same for them.
impl PartialEq for Stored {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.shape,
            self.encoding,
            &self.predict,
            self.compression,
            &self.bytes,
        ) == (
            &other.shape,
            other.encoding,
            &other.predict,
            other.compression,
            &other.bytes,
        )
    }
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

    /// Add a tensor, encoded with `meta.options.precision` and the kind its name implies. It may
    /// be stored as its difference from a prediction by tensors inserted before it (the tracer
    /// inserts in the forward pass's order), so the order can change the bytes, never the bound.
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
        let predicted = match encoding {
            Encoding::Int8Rows => self.predicted(name, &shape, data, bytes.len()),
            _ => None,
        };
        let stored = predicted.unwrap_or_else(|| {
            let (compression, bytes) = codec::pack(bytes);
            Stored {
                shape,
                encoding,
                predict: None,
                compression,
                bytes,
                inflated: OnceLock::new(),
            }
        });
        self.tensors.insert(name.to_string(), stored);
        Ok(())
    }

    /// The tensor stored as its difference from a prediction by tensors already in the trace
    /// (see `codec::Prediction::candidates`), when that takes at most half of `plain_len`, the
    /// uncompressed size of its plain encoding. Plain `int8_rows` data seldom compresses by
    /// half, so the writer need not compress both to compare them (which doubles its time).
    fn predicted(
        &self,
        name: &str,
        shape: &[usize],
        data: &[f32],
        plain_len: usize,
    ) -> Option<Stored> {
        Prediction::candidates(name)
            .into_iter()
            .find_map(|predict| {
                let bases = self.bases_for_writing(&predict)?;
                let prediction = predict.apply(&as_bases(&bases), shape).ok()?;
                let bytes = codec::encode_difference(shape, data, &prediction)?;
                let (compression, bytes) = codec::pack(bytes);
                (bytes.len() <= plain_len / 2).then(|| Stored {
                    shape: shape.to_vec(),
                    encoding: Encoding::Int8Rows,
                    predict: Some(predict),
                    compression,
                    bytes,
                    inflated: OnceLock::new(),
                })
            })
    }

    /// The decoded bases of `predict` when each is in the trace and the chain of predictions
    /// stays within `codec::MAX_DEPTH`.
    fn bases_for_writing(&self, predict: &Prediction) -> Option<Vec<Tensor>> {
        predict
            .from
            .iter()
            .map(|base| {
                let stored = self.tensors.get(base)?;
                let data = (self.depth(base) < codec::MAX_DEPTH)
                    .then(|| self.values(base, 0).ok())
                    .flatten()?;
                let shape = stored.shape.clone();
                Some(Tensor { shape, data })
            })
            .collect()
    }

    /// How many levels of bases decoding `name` goes through (0 for a tensor without one),
    /// counted only as far as `codec::MAX_DEPTH + 1`: a trace read from a file may hold
    /// longer chains or cycles, which only fail when decoded.
    fn depth(&self, name: &str) -> usize {
        self.depth_within(name, codec::MAX_DEPTH + 1)
    }

    fn depth_within(&self, name: &str, budget: usize) -> usize {
        match self.tensors.get(name).and_then(|t| t.predict.as_ref()) {
            None => 0,
            Some(_) if budget == 0 => 1,
            Some(p) => p
                .from
                .iter()
                .map(|b| 1 + self.depth_within(b, budget - 1))
                .max()
                .unwrap_or(1),
        }
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
        Ok(Tensor {
            shape: stored.shape.clone(),
            data: self.values(name, 0)?,
        })
    }

    /// The decoded values of a tensor known to exist, `depth` levels down a chain of bases.
    fn values(&self, name: &str, depth: usize) -> Result<Vec<f32>, TraceError> {
        let stored = &self.tensors[name];
        let corrupt = |problem| self.corrupt(name, problem);
        if stored.predict.is_some() && depth >= codec::MAX_DEPTH {
            return Err(corrupt(format!(
                "it is predicted, but is a base {depth} levels down a chain of predictions \
                 (at most {} levels are allowed)",
                codec::MAX_DEPTH
            )));
        }
        let bytes = match (stored.compression, stored.inflated.get()) {
            (None, _) => &stored.bytes,
            (Some(_), Some(inflated)) => inflated,
            (Some(c), None) => {
                let len = stored.encoding.byte_len(&stored.shape).unwrap_or(0);
                let inflated = codec::unpack(c, &stored.bytes, len).map_err(corrupt)?;
                stored.inflated.get_or_init(|| inflated)
            }
        };
        let mut data = codec::decode(stored.encoding, &stored.shape, bytes).map_err(corrupt)?;
        let Some(predict) = &stored.predict else {
            return Ok(data);
        };
        predict.check_arity().map_err(corrupt)?;
        let bases = predict
            .from
            .iter()
            .map(|base| match self.tensors.get(base) {
                Some(t) => Ok(Tensor {
                    shape: t.shape.clone(),
                    data: self.values(base, depth + 1)?,
                }),
                None => Err(corrupt(format!("its base {base:?} is not in the trace"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let prediction = predict
            .apply(&as_bases(&bases), &stored.shape)
            .map_err(corrupt)?;
        // prediction + residual (f32 addition commutes: the same bits in either order).
        data.iter_mut().zip(prediction).for_each(|(d, p)| *d += p);
        Ok(data)
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
                    predict: t.predict.as_ref(),
                    compression: t.compression,
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
            // A compressed tensor's length is checked when it is inflated.
            let len = match t.compression {
                None => bytes.len(),
                Some(_) => t.encoding.byte_len(&t.shape).unwrap_or(usize::MAX),
            };
            codec::check_len(t.encoding, &t.shape, len)
                .map_err(|problem| trace.corrupt(&name, problem))?;
            let stored = Stored {
                shape: t.shape,
                encoding: t.encoding,
                predict: t.predict,
                compression: t.compression,
                bytes,
                inflated: OnceLock::new(),
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

fn as_bases(tensors: &[Tensor]) -> Vec<Base<'_>> {
    tensors
        .iter()
        .map(|t| Base {
            shape: &t.shape,
            data: &t.data,
        })
        .collect()
}

impl Stored {
    fn value_count(&self) -> usize {
        codec::value_count(&self.shape).expect("a stored shape was checked when stored")
    }
}
