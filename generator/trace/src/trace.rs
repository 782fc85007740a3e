//! A trace in memory: its metadata and its named, encoded tensors; reading and writing files.

use crate::codec::{self, bound, Base, Compression, Derivation, Encoding, Prediction};
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
    /// The tables of the meta's experiments (ablation, patching) offered as tensors, made on
    /// first use: set `meta.ablation` and `meta.patching` before reading tensors.
    tables: OnceLock<BTreeMap<String, Tensor>>,
}

/// A tensor as it is kept: exactly what the file holds for it.
#[derive(Clone, Debug, PartialEq)]
struct Stored {
    shape: Vec<usize>,
    body: Body,
}

/// Stored values, or the computation that gives them.
#[derive(Clone, Debug)]
enum Body {
    /// Encoded (and maybe compressed) bytes, maybe on top of a version-2 prediction.
    Encoded(Encoded),
    /// Version 3: exactly this computation of the decoded bases; nothing stored.
    Derived {
        derive: Derivation,
        /// The values once computed, kept for sums only: the residual stream is a chain of
        /// them that every later block's figures decode again.
        sums: OnceLock<Vec<f32>>,
    },
}

#[derive(Clone, Debug)]
struct Encoded {
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
impl PartialEq for Body {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Body::Encoded(a), Body::Encoded(b)) => {
                (a.encoding, &a.predict, a.compression, &a.bytes)
                    == (b.encoding, &b.predict, b.compression, &b.bytes)
            }
            (Body::Derived { derive: a, .. }, Body::Derived { derive: b, .. }) => a == b,
            _ => false,
        }
    }
}

impl Encoded {
    /// `bytes` of `encoding`, compressed where that makes them smaller.
    fn packed(encoding: Encoding, bytes: Vec<u8>) -> Encoded {
        let (compression, bytes) = codec::pack(bytes);
        Encoded {
            encoding,
            predict: None,
            compression,
            bytes,
            inflated: OnceLock::new(),
        }
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
            tables: OnceLock::new(),
        }
    }

    /// Add a tensor, encoded with `meta.options.precision` and the kind its name implies.
    pub fn insert(
        &mut self,
        name: &str,
        shape: Vec<usize>,
        data: &[f32],
    ) -> Result<(), TraceError> {
        self.check_new(name, &shape, data)?;
        let encoding = TensorKind::of(name).encoding(self.meta.options.precision);
        let (encoding, bytes) = codec::encode(encoding, &shape, data);
        let body = Body::Encoded(Encoded::packed(encoding, bytes));
        self.tensors
            .insert(name.to_string(), Stored { shape, body });
        Ok(())
    }

    /// Add a tensor that the model computed as `derive` of tensors already in the trace: it
    /// is stored as that computation, and decodes to exactly it (`data`, the values the model
    /// computed, differ from that by the rounding of the bases).
    ///
    /// A sum whose last base was stored lossily re-encodes that base as `data` minus the other
    /// decoded bases, so the rounding of the residual stream does not build up block after
    /// block: each sum is within the bound of its last base's encoding of the value the
    /// model computed, and the re-encoded base (what a block added) carries the rounding of
    /// the stream before it instead (the bounds are in `docs/trace-format.md`).
    pub fn insert_derived(
        &mut self,
        name: &str,
        shape: Vec<usize>,
        data: &[f32],
        derive: Derivation,
    ) -> Result<(), TraceError> {
        self.check_new(name, &shape, data)?;
        let bad = |problem: String| TraceError::CorruptTensor {
            origin: Origin::default(),
            name: name.to_string(),
            problem,
        };
        derive.check().map_err(bad)?;
        if let Some(missing) = derive.from.iter().find(|b| !self.tensors.contains_key(*b)) {
            return Err(bad(format!("its base {missing:?} is not in the trace")));
        }
        if derive.op == codec::DeriveOp::Sum && derive.from.len() > 1 {
            self.absorb(&derive.from, data)?;
        }
        let body = Body::Derived {
            derive,
            sums: OnceLock::new(),
        };
        self.tensors
            .insert(name.to_string(), Stored { shape, body });
        // The values must follow from the bases; a shape that does not fit fails here, where
        // the writer can still say so, rather than in every reader.
        self.values(name, 0, 0).map(drop)
    }

    /// Re-encode the last of `bases` (when it is stored lossily and plainly) as `sum` minus
    /// the other decoded bases.
    fn absorb(&mut self, bases: &[String], sum: &[f32]) -> Result<(), TraceError> {
        let (last, others) = bases.split_last().expect("a sum of two or more bases");
        let Some(Body::Encoded(encoded)) = self.tensors.get(last).map(|t| &t.body) else {
            return Ok(());
        };
        if encoded.encoding == Encoding::F32 || encoded.predict.is_some() {
            return Ok(());
        }
        let mut rest = sum.to_vec();
        for other in others {
            let decoded = self.values(other, 0, 0)?;
            if decoded.len() != rest.len() {
                return Ok(());
            }
            rest.iter_mut().zip(&decoded).for_each(|(r, d)| *r -= d);
        }
        let shape = self.tensors[last].shape.clone();
        let encoding = TensorKind::of(last).encoding(self.meta.options.precision);
        let (encoding, bytes) = codec::encode(encoding, &shape, &rest);
        let body = Body::Encoded(Encoded::packed(encoding, bytes));
        self.tensors.insert(last.clone(), Stored { shape, body });
        Ok(())
    }

    fn check_new(&self, name: &str, shape: &[usize], data: &[f32]) -> Result<(), TraceError> {
        if self.tensors.contains_key(name) {
            return Err(TraceError::DuplicateTensor {
                name: name.to_string(),
            });
        }
        if codec::value_count(shape) != Some(data.len()) {
            return Err(TraceError::ShapeMismatch {
                name: name.to_string(),
                shape: shape.to_vec(),
                len: data.len(),
            });
        }
        Ok(())
    }

    /// Tensor names: the stored ones in sorted order, then the experiments' tables
    /// (`intervention::TABLES`, `attribution::TABLES`) the meta holds.
    pub fn tensor_names(&self) -> impl Iterator<Item = &str> {
        (self.tensors.keys().chain(self.tables().keys())).map(String::as_str)
    }

    /// Whether `name` is one of the experiments' tables rather than a stored tensor.
    pub fn is_table(&self, name: &str) -> bool {
        !self.tensors.contains_key(name) && self.tables().contains_key(name)
    }

    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        match self.tensors.get(name) {
            Some(t) => Some(t.shape.as_slice()),
            None => self.tables().get(name).map(|t| t.shape.as_slice()),
        }
    }

    fn tables(&self) -> &BTreeMap<String, Tensor> {
        self.tables.get_or_init(|| {
            let (a, p) = (self.meta.ablation.as_ref(), self.meta.patching.as_ref());
            let attribution = self
                .meta
                .attribution
                .iter()
                .flat_map(crate::attribution::tables);
            (crate::intervention::tables(a, p).into_iter())
                .chain(attribution)
                .map(|(name, t)| (name.to_string(), t))
                .collect()
        })
    }

    /// How the tensor is stored: the encoding its kind asks for, or f32 where that could not
    /// hold its values; None for a derived tensor (or none of that name).
    pub fn encoding(&self, name: &str) -> Option<Encoding> {
        match &self.tensors.get(name)?.body {
            Body::Encoded(e) => Some(e.encoding),
            Body::Derived { .. } => None,
        }
    }

    /// The computation a derived tensor is, None for a stored one.
    pub fn derivation(&self, name: &str) -> Option<&Derivation> {
        match &self.tensors.get(name)?.body {
            Body::Derived { derive, .. } => Some(derive),
            Body::Encoded(_) => None,
        }
    }

    /// The tensor's decoded values.
    pub fn tensor(&self, name: &str) -> Result<Tensor, TraceError> {
        if !self.tensors.contains_key(name) {
            if let Some(table) = self.tables().get(name) {
                return Ok(table.clone());
            }
        }
        Ok(Tensor {
            shape: self.stored(name)?.shape.clone(),
            data: self.values(name, 0, 0)?,
        })
    }

    /// The tensor called `name`, or an error that suggests the closest name.
    fn stored(&self, name: &str) -> Result<&Stored, TraceError> {
        self.tensors
            .get(name)
            .ok_or_else(|| TraceError::UnknownTensor {
                origin: self.origin.clone(),
                name: name.to_string(),
                suggestion: suggest::closest(name, self.tensor_names()).map(str::to_string),
            })
    }

    /// The decoded values of a tensor known to exist, `depth` levels down a chain of
    /// version-2 predictions and `derived` levels down a chain of derivations.
    fn values(&self, name: &str, depth: usize, derived: usize) -> Result<Vec<f32>, TraceError> {
        let stored = &self.tensors[name];
        let corrupt = |problem| self.corrupt(name, problem);
        let encoded = match &stored.body {
            Body::Encoded(encoded) => encoded,
            Body::Derived { derive, sums } => {
                if let Some(values) = sums.get() {
                    return Ok(values.clone());
                }
                // A chain longer than the trace has tensors goes round in a circle.
                if derived > self.tensors.len() {
                    return Err(corrupt(
                        "its derivation depends on itself through its bases".to_string(),
                    ));
                }
                let bases =
                    self.bases(name, &derive.from, |b| self.values(b, depth, derived + 1))?;
                let values = derive
                    .apply(&as_bases(&bases), &stored.shape)
                    .map_err(corrupt)?;
                if derive.op == codec::DeriveOp::Sum {
                    return Ok(sums.get_or_init(|| values).clone());
                }
                return Ok(values);
            }
        };
        if encoded.predict.is_some() && depth >= codec::MAX_DEPTH {
            return Err(corrupt(format!(
                "it is predicted, but is a base {depth} levels down a chain of predictions \
                 (at most {} levels are allowed)",
                codec::MAX_DEPTH
            )));
        }
        let bytes = match (encoded.compression, encoded.inflated.get()) {
            (None, _) => &encoded.bytes,
            (Some(_), Some(inflated)) => inflated,
            (Some(c), None) => {
                let len = encoded.encoding.byte_len(&stored.shape).unwrap_or(0);
                let inflated = codec::unpack(c, &encoded.bytes, len).map_err(corrupt)?;
                encoded.inflated.get_or_init(|| inflated)
            }
        };
        let mut data = codec::decode(encoded.encoding, &stored.shape, bytes).map_err(corrupt)?;
        let Some(predict) = &encoded.predict else {
            return Ok(data);
        };
        predict.check_arity().map_err(corrupt)?;
        let bases = self.bases(name, &predict.from, |b| self.values(b, depth + 1, derived))?;
        let prediction = predict
            .apply(&as_bases(&bases), &stored.shape)
            .map_err(corrupt)?;
        // prediction + residual (f32 addition commutes: the same bits in either order).
        data.iter_mut().zip(prediction).for_each(|(d, p)| *d += p);
        Ok(data)
    }

    /// The bases `from` of `name`, each decoded by `decode`.
    fn bases(
        &self,
        name: &str,
        from: &[String],
        decode: impl Fn(&str) -> Result<Vec<f32>, TraceError>,
    ) -> Result<Vec<Tensor>, TraceError> {
        from.iter()
            .map(|base| match self.tensors.get(base) {
                Some(t) => Ok(Tensor {
                    shape: t.shape.clone(),
                    data: decode(base)?,
                }),
                None => Err(self.corrupt(name, format!("its base {base:?} is not in the trace"))),
            })
            .collect()
    }

    /// Each value's bound on how far the value the model computed can be from it: the
    /// tensor's encoding bound where it is stored, propagated from its bases where it is
    /// derived (`codec::bound`, and the table in `docs/trace-format.md`).
    pub fn bound(&self, name: &str) -> Result<Vec<f64>, TraceError> {
        if self.is_table(name) {
            // The experiments' numbers are kept as computed (f32 in the meta).
            return Ok(vec![0.0; self.tables()[name].data.len()]);
        }
        self.stored(name)?;
        Ok(self.bounded(name, 0)?.1)
    }

    /// Values and bounds of a tensor known to exist.
    fn bounded(&self, name: &str, depth: usize) -> Result<(Vec<f32>, Vec<f64>), TraceError> {
        let stored = &self.tensors[name];
        let values = self.values(name, 0, 0)?;
        if depth > self.tensors.len() {
            return Err(self.corrupt(name, "its derivation depends on itself".to_string()));
        }
        let derive = match &stored.body {
            Body::Encoded(_) if name == "loss.per_token" => {
                let lse = self.values("logits.lse", 0, 0)?;
                let top = self.tensor("logits.topk_values")?;
                let k = top.shape.last().copied().unwrap_or(1).max(1);
                let row_max: Vec<f32> = top.data.chunks(k).map(|r| r[0]).collect();
                let precision = self.meta.options.precision;
                let bound = bound::loss(precision, &values, &lse, &row_max);
                return Ok((values, bound));
            }
            Body::Encoded(e) => {
                let own = bound::stored(e.encoding, &stored.shape, &values);
                let Some(others) = self.absorbed_into(name) else {
                    return Ok((values, own));
                };
                let others = others
                    .iter()
                    .map(|o| Ok(self.bounded(o, depth + 1)?.1))
                    .collect::<Result<Vec<_>, TraceError>>()?;
                let others: Vec<&[f64]> = others.iter().map(Vec::as_slice).collect();
                return Ok((values, bound::absorbed(&own, &others)));
            }
            Body::Derived { derive, .. } => derive,
        };
        let absorbing = self.absorbing(derive);
        let last_own = match absorbing {
            Some(last) => {
                let Body::Encoded(e) = &self.tensors[last].body else {
                    unreachable!("absorbing() names stored tensors only")
                };
                let last_values = self.values(last, 0, 0)?;
                Some(bound::stored(
                    e.encoding,
                    &self.tensors[last].shape,
                    &last_values,
                ))
            }
            None => None,
        };
        let mut bases = Vec::new();
        for base in &derive.from {
            // An absorbing sum's bound needs only its last base's own bound.
            let (v, b) = if absorbing.is_some() {
                (self.values(base, 0, 0)?, Vec::new())
            } else {
                self.bounded(base, depth + 1)?
            };
            bases.push((self.tensors[base].shape.clone(), v, b));
        }
        let bases: Vec<bound::Bounded> = bases
            .iter()
            .map(|(shape, values, bound)| bound::Bounded {
                shape,
                values,
                bound,
            })
            .collect();
        let b = bound::derived(derive, &stored.shape, &values, &bases, last_own.as_deref());
        Ok((values, b))
    }

    /// The stored tensor whose encoding absorbed the rounding of the other bases of `derive`
    /// (a sum of two or more whose last base is stored lossily and plainly), as the writer
    /// re-encodes it (`absorb`).
    fn absorbing<'d>(&self, derive: &'d Derivation) -> Option<&'d str> {
        let (last, others) = derive.from.split_last()?;
        if derive.op != codec::DeriveOp::Sum || others.is_empty() {
            return None;
        }
        match &self.tensors.get(last)?.body {
            Body::Encoded(e) if e.encoding != Encoding::F32 && e.predict.is_none() => Some(last),
            _ => None,
        }
    }

    /// The other bases of the sum that absorbed into `name`, if one did.
    fn absorbed_into(&self, name: &str) -> Option<Vec<String>> {
        self.tensors.values().find_map(|t| match &t.body {
            Body::Derived { derive, .. } if self.absorbing(derive) == Some(name) => {
                Some(derive.from[..derive.from.len() - 1].to_vec())
            }
            _ => None,
        })
    }

    /// The log-sum-exp of the logits at token `position`, which its probabilities are computed
    /// against (`exact_math::prob`): `logits.lse`, or for the last position of a trace
    /// written before `logits.lse` existed, the log-sum-exp of `logits.last` (in f64).
    pub fn lse_at(&self, position: usize) -> Result<f32, TraceError> {
        if self.shape("logits.lse").is_some() || position + 1 != self.meta.tokens.len() {
            let lse = self.tensor("logits.lse")?;
            return lse.data.get(position).copied().ok_or_else(|| {
                self.corrupt(
                    "logits.lse",
                    format!("it has no value for position {position}"),
                )
            });
        }
        let logits = self.tensor("logits.last")?.data;
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f64 = logits.iter().map(|&l| f64::from(l - max).exp()).sum();
        Ok((f64::from(max) + sum.ln()) as f32)
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
                let out = match &t.body {
                    Body::Encoded(e) => TensorOut {
                        shape: &t.shape,
                        encoding: Some(e.encoding),
                        predict: e.predict.as_ref(),
                        derive: None,
                        compression: e.compression,
                        data: Some(BASE64.encode(&e.bytes)),
                    },
                    Body::Derived { derive, .. } => TensorOut {
                        shape: &t.shape,
                        encoding: None,
                        predict: None,
                        derive: Some(derive),
                        compression: None,
                        data: None,
                    },
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
            tables: OnceLock::new(),
        };
        for (name, t) in file.tensors {
            let body = match (t.derive, t.encoding, t.data) {
                (Some(derive), None, None) if t.predict.is_none() && t.compression.is_none() => {
                    derive
                        .check()
                        .map_err(|problem| trace.corrupt(&name, problem))?;
                    Body::Derived {
                        derive,
                        sums: OnceLock::new(),
                    }
                }
                (None, Some(encoding), Some(data)) => {
                    let bytes = BASE64.decode(&data).map_err(|e| {
                        trace.corrupt(&name, format!("its data is not valid base64 ({e})"))
                    })?;
                    // A compressed tensor's length is checked when it is inflated.
                    let len = match t.compression {
                        None => bytes.len(),
                        Some(_) => encoding.byte_len(&t.shape).unwrap_or(usize::MAX),
                    };
                    codec::check_len(encoding, &t.shape, len)
                        .map_err(|problem| trace.corrupt(&name, problem))?;
                    Body::Encoded(Encoded {
                        encoding,
                        predict: t.predict,
                        compression: t.compression,
                        bytes,
                        inflated: OnceLock::new(),
                    })
                }
                (Some(_), _, _) => {
                    return Err(trace.corrupt(
                        &name,
                        "it is derived, so it has no \"encoding\", \"data\", \"predict\" or \
                         \"compression\""
                            .to_string(),
                    ))
                }
                (None, _, _) => {
                    return Err(trace.corrupt(
                        &name,
                        "it has neither \"derive\" nor both \"encoding\" and \"data\"".to_string(),
                    ))
                }
            };
            let shape = t.shape;
            codec::value_count(&shape).ok_or_else(|| {
                trace.corrupt(&name, format!("its shape {shape:?} is too large to exist"))
            })?;
            trace.tensors.insert(name, Stored { shape, body });
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
