//! The browser model: the site's model read from this machine (a folder, the built-in model,
//! or the Hugging Face cache) and written as one safetensors file at the precision
//! `[live] precision` names, for readers to download once.
//!
//! Weight matrices (2-D tensors) become f16 or int8 with per-row scales
//! ([`tracebook_trace::int8`]); vectors (biases, LayerNorms) stay f32 with int8 (they are a
//! sliver of the size and the LayerNorm gains are the most sensitive) and become f16 with
//! f16. Buffers a checkpoint may carry besides its weights (the causal masks `attn.bias` and
//! `attn.masked_bias` of older uploads) are left out: the forward pass builds its own mask.

use crate::base::diagnostic::Diagnostic;
use crate::load::config::LivePrecision;
use safetensors::{Dtype, SafeTensors, View};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use tracebook_trace::weights::tensor_values;
use tracebook_trace::{
    int4, int8, weight_files, DigestCache, BUILTIN_MODEL_ID, BUILTIN_MODEL_SHA256, WEIGHTS_FILE,
    WEIGHTS_INDEX,
};

/// The site's model as found on this machine (its weights are read only to convert them).
pub struct SourceModel {
    /// Where it was read from, for messages.
    pub origin: String,
    pub config_json: Vec<u8>,
    pub weights: Weights,
    pub tokenizer_json: Option<Vec<u8>>,
}

/// Where the weights are.
pub enum Weights {
    /// The model built into tracebook.
    Builtin,
    /// The weights file, or the shards of a sharded checkpoint in index order.
    Files(Vec<PathBuf>),
}

impl SourceModel {
    /// The weights' identity as traces record it (cached by path, size and modification
    /// time, so the files are not read again).
    pub fn weights_sha256(&self) -> std::io::Result<String> {
        match &self.weights {
            Weights::Builtin => Ok(BUILTIN_MODEL_SHA256.to_string()),
            Weights::Files(files) => DigestCache::user().weights_sha256(files),
        }
    }

    /// The bytes of each weights file.
    fn weight_bytes(&self) -> Result<Vec<Cow<'static, [u8]>>, Diagnostic> {
        match &self.weights {
            Weights::Builtin => Ok(vec![Cow::Borrowed(
                super::builtin::file(WEIGHTS_FILE).expect("embedded"),
            )]),
            Weights::Files(files) => files.iter().map(|f| read(f).map(Cow::Owned)).collect(),
        }
    }
}

/// Reads the files of model `spec` as `[model] id` names it, relative to the site `root`.
pub fn locate(spec: &str, root: &Path) -> Result<SourceModel, Diagnostic> {
    let dir = root.join(spec);
    if dir.is_dir() {
        return from_dir(&dir);
    }
    if spec == BUILTIN_MODEL_ID {
        let file = |name| super::builtin::file(name).expect("embedded").to_vec();
        return Ok(SourceModel {
            origin: format!("the built-in model {BUILTIN_MODEL_ID}"),
            config_json: file("config.json"),
            weights: Weights::Builtin,
            tokenizer_json: Some(file("tokenizer.json")),
        });
    }
    let repo = hf_hub::Cache::from_env().model(spec.to_string());
    if let Some(config) = repo.get("config.json") {
        if let Some(snapshot) = config.parent() {
            return from_dir(snapshot);
        }
    }
    Err(Diagnostic::file(
        crate::load::config::CONFIG_FILE,
        format!(
            "[live] needs the weights of model `{spec}` to write the browser model, and they are \
             not on this machine (no folder {spec} in the site, and not in the Hugging Face cache)"
        ),
    )
    .with_hint(
        "run `tracebook trace` once on this machine (it downloads the model into the cache), \
         point [model] id at a local model folder, or set [live] enabled = false",
    ))
}

fn read(path: &Path) -> Result<Vec<u8>, Diagnostic> {
    std::fs::read(path).map_err(|e| {
        Diagnostic::file(
            &path.display().to_string(),
            format!("cannot read the model file for [live]: {e}"),
        )
    })
}

fn from_dir(dir: &Path) -> Result<SourceModel, Diagnostic> {
    let files = weight_files(dir)
        .map_err(|e| {
            let index = dir.join(WEIGHTS_INDEX).display().to_string();
            let message = e.to_string();
            let message = message
                .strip_prefix(&format!("{index}: "))
                .unwrap_or(&message);
            Diagnostic::file(&index, message)
        })?
        .ok_or_else(|| {
            Diagnostic::file(
                &dir.display().to_string(),
                format!("the model folder has no {WEIGHTS_FILE} for [live] to convert"),
            )
            .with_hint("tracebook reads safetensors checkpoints; see docs/authoring.md, \"Models\"")
        })?;
    let tokenizer = dir.join("tokenizer.json");
    Ok(SourceModel {
        origin: dir.display().to_string(),
        config_json: read(&dir.join("config.json"))?,
        weights: Weights::Files(files),
        tokenizer_json: tokenizer.is_file().then(|| read(&tokenizer)).transpose()?,
    })
}

/// One tensor of the browser model.
struct Owned {
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

impl View for &Owned {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// The browser model's `model.safetensors`: every tensor of `source` at `precision`.
pub fn convert(source: &SourceModel, precision: LivePrecision) -> Result<Vec<u8>, Diagnostic> {
    let bad = |message: String| {
        Diagnostic::file(&source.origin, message)
            .with_hint("is this a safetensors checkpoint? `tracebook trace` reads it and says more")
    };
    let mut tensors: Vec<(String, Owned)> = Vec::new();
    for shard in source.weight_bytes()? {
        let parsed = SafeTensors::deserialize(&shard)
            .map_err(|e| bad(format!("cannot read the weights for [live]: {e}")))?;
        for (name, view) in parsed.tensors() {
            let scales = [int8::SCALE_SUFFIX, int4::CODE_SUFFIX, int4::UNIT_SUFFIX];
            if is_buffer(&name) || scales.iter().any(|suffix| name.ends_with(suffix)) {
                continue;
            }
            let shape = view.shape().to_vec();
            let values = tensor_values(&parsed, &name, &view)
                .map_err(|message| bad(format!("cannot convert for [live]: {message}")))?;
            convert_one(name, shape, &values, precision, &mut tensors);
        }
    }
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    // One metadata entry: safetensors keeps them in a HashMap, whose order (and so the file's
    // bytes, its digest and the readers' cache) would change from build to build with two.
    let info = std::collections::HashMap::from([(
        "tracebook_precision".to_string(),
        precision.name().to_string(),
    )]);
    safetensors::serialize(tensors.iter().map(|(n, t)| (n.as_str(), t)), Some(info))
        .map_err(|e| bad(format!("cannot write the browser model: {e}")))
}

/// Causal-mask buffers some checkpoints carry; the forward pass never reads them.
fn is_buffer(name: &str) -> bool {
    name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias")
}

fn convert_one(
    name: String,
    shape: Vec<usize>,
    values: &[f32],
    precision: LivePrecision,
    out: &mut Vec<(String, Owned)>,
) {
    let matrix = shape.len() == 2;
    match precision {
        LivePrecision::F16 => {
            let bytes = values
                .iter()
                .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
                .collect();
            out.push((name, owned(Dtype::F16, shape, bytes)));
        }
        LivePrecision::Int8 if matrix => {
            let (bytes, scales) = int8::quantize_rows(values, shape[1]);
            let rows = scales.len();
            out.push((
                format!("{name}{}", int8::SCALE_SUFFIX),
                owned(Dtype::F32, vec![rows], f32_bytes(&scales)),
            ));
            let bytes = bytes.into_iter().map(|b| b as u8).collect();
            out.push((name, owned(Dtype::I8, shape, bytes)));
        }
        LivePrecision::Int4 if matrix && shape[1].is_multiple_of(2) => {
            let q = int4::quantize(values, shape[1]).expect("even columns");
            let groups = shape[1].div_ceil(int4::GROUP);
            out.push((
                format!("{name}{}", int4::CODE_SUFFIX),
                owned(Dtype::U8, vec![shape[0], groups], q.codes),
            ));
            out.push((
                format!("{name}{}", int4::UNIT_SUFFIX),
                owned(Dtype::F32, vec![shape[0]], f32_bytes(&q.units)),
            ));
            out.push((
                name,
                owned(Dtype::U8, vec![shape[0], shape[1] / 2], q.packed),
            ));
        }
        // A matrix of odd width stays at int8.
        LivePrecision::Int4 if matrix => convert_one(name, shape, values, LivePrecision::Int8, out),
        LivePrecision::Int8 | LivePrecision::Int4 => {
            out.push((name, owned(Dtype::F32, shape, f32_bytes(values))))
        }
    }
}

fn owned(dtype: Dtype, shape: Vec<usize>, bytes: Vec<u8>) -> Owned {
    Owned {
        dtype,
        shape,
        bytes,
    }
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
