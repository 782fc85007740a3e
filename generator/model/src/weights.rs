//! Reading a checkpoint's `model.safetensors` (GPT-2 or the Llama family): memory-mapped (or from bytes already in memory, as in the
//! browser), either key layout, checked against the config.
//!
//! Tensors are copied out of the map one at a time (f16 and bf16 matrices as stored, the rest
//! as f32), and each one's pages are released as soon as it is copied, so peak memory stays
//! near one copy of the weights as stored rather than two, or an f32 copy of half-precision ones.

use crate::config::{DecoderConfig, Gpt2Config, ModelConfig};
use crate::error::{ModelError, Result};
use candle_core::{DType, Device, Shape, Tensor};
use candle_nn::var_builder::SimpleBackend;
use candle_nn::VarBuilder;
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tracebook_trace::weights::tensor_values;

/// The two key layouts in the wild: `h.0.attn...` (openai-community/gpt2) and
/// `transformer.h.0.attn...` (what `save_pretrained` writes for GPT2LMHeadModel).
const PREFIXES: [&str; 2] = ["", "transformer."];

/// Every tensor the forward pass needs, on the CPU, by canonical name (no prefix): f16 and
/// bf16 matrices as stored, everything else as f32.
pub struct Weights {
    path: PathBuf,
    tensors: HashMap<String, Tensor>,
    /// How the tensors were stored (`f32`, `f16`, `bf16`), in file order, once each.
    stored: Vec<String>,
}

/// One memory-mapped safetensors file.
#[cfg(feature = "native")]
struct Shard {
    path: PathBuf,
    mmap: memmap2::Mmap,
}

#[cfg(feature = "native")]
impl Shard {
    fn open(path: &Path) -> Result<Shard> {
        let file = std::fs::File::open(path).map_err(|e| ModelError::io(path, e))?;
        // SAFETY: the map is read-only and private; tracebook never writes the file while it runs.
        let mmap = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| ModelError::io(path, e))?;
        Ok(Shard {
            path: path.to_path_buf(),
            mmap,
        })
    }

    fn parse(&self) -> Result<SafeTensors<'_>> {
        SafeTensors::deserialize(&self.mmap).map_err(|e| ModelError::Safetensors {
            path: self.path.clone(),
            message: e.to_string(),
        })
    }
}

impl Weights {
    /// Load and check the weights named by `config` from one `model.safetensors` or from the
    /// shards of a sharded checkpoint (every tensor in one of them).
    #[cfg(feature = "native")]
    pub fn load(paths: &[PathBuf], config: &ModelConfig) -> Result<Weights> {
        let shards = paths
            .iter()
            .map(|p| Shard::open(p))
            .collect::<Result<Vec<_>>>()?;
        let parsed = shards
            .iter()
            .map(Shard::parse)
            .collect::<Result<Vec<_>>>()?;
        Weights::read(&parsed, paths, config, |i, data| {
            release(&shards[i].mmap, data)
        })
    }

    /// Load and check the weights named by `config` from the bytes of one safetensors file
    /// already in memory (the browser downloads the file; there is nothing to map), named
    /// `path` in messages.
    pub fn from_safetensors(bytes: &[u8], path: &Path, config: &ModelConfig) -> Result<Weights> {
        let parsed = SafeTensors::deserialize(bytes).map_err(|e| ModelError::Safetensors {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Weights::read(&[parsed], &[path.to_path_buf()], config, |_, _| ())
    }

    /// Copy every tensor `config` names out of the parsed files (`paths[i]` names `parsed[i]`):
    /// f16 and bf16 matrices as stored, everything else as f32 (the forward pass converts a
    /// half-precision matrix where it uses it), calling `copied(i, bytes)` once a tensor's bytes
    /// in file `i` are no longer needed.
    fn read(
        parsed: &[SafeTensors],
        paths: &[PathBuf],
        config: &ModelConfig,
        mut copied: impl FnMut(usize, &[u8]),
    ) -> Result<Weights> {
        let path = paths.first().cloned().unwrap_or_default();
        let prefix = detect_prefix(parsed, &path, config)?;
        let mut tensors = HashMap::new();
        let mut stored = Vec::new();
        for (name, shape) in expected(config) {
            let key = key_of(prefix, &name);
            let Some(i) = parsed.iter().position(|st| st.tensor(&key).is_ok()) else {
                return Err(missing(&path, parsed, &name, config));
            };
            let (file, view) = (&paths[i], parsed[i].tensor(&key).expect("found above"));
            // An int4 matrix packs two columns in a byte.
            let stored_shape: Vec<usize> = match (view.dtype(), view.shape()) {
                (Dtype::U8, [rows, half]) => vec![*rows, half * 2],
                (_, stored) => stored.to_vec(),
            };
            if stored_shape != shape {
                return Err(ModelError::Weights {
                    path: file.clone(),
                    message: format!(
                        "tensor {key} has shape {:?}, but config.json implies {:?}",
                        view.shape(),
                        shape
                    ),
                    hint: "config.json does not describe these weights; use the config.json that came with them".into(),
                });
            }
            let dtype = match view.dtype() {
                Dtype::I8 => "int8".to_string(),
                Dtype::U8 => "int4".to_string(),
                other => format!("{other:?}").to_lowercase(),
            };
            if !stored.contains(&dtype) {
                stored.push(dtype);
            }
            let tensor = match (view.dtype(), shape.len()) {
                // Half-precision matrices stay as stored (half the memory of f32); the forward
                // pass converts each where it uses it, and f16/bf16 → f32 is exact.
                (Dtype::F16 | Dtype::BF16, 2..) => {
                    let dtype = if view.dtype() == Dtype::F16 {
                        DType::F16
                    } else {
                        DType::BF16
                    };
                    Tensor::from_raw_buffer(view.data(), dtype, &shape, &Device::Cpu)?
                }
                _ => {
                    let values = tensor_values(&parsed[i], &key, &view)
                        .map_err(|message| unreadable(file, view.dtype(), message))?;
                    Tensor::from_vec(values, shape, &Device::Cpu)?
                }
            };
            copied(i, view.data());
            tensors.insert(name, tensor);
        }
        Ok(Weights {
            path,
            tensors,
            stored,
        })
    }

    /// How the weights were stored on disk: `f32`, `f16`, `bf16`, or several joined by `+`
    /// (some uploads keep LayerNorms in f32). Tracing always computes in f32.
    pub fn stored_dtype(&self) -> String {
        if self.stored.is_empty() {
            "f32".into()
        } else {
            self.stored.join("+")
        }
    }

    /// Tensors already in memory, by canonical name; a training run passes its variables, whose
    /// storage the optimiser updates in place, so a model built from them sees every update.
    pub fn from_tensors(tensors: HashMap<String, Tensor>) -> Weights {
        Weights {
            path: PathBuf::from("(in-memory weights)"),
            tensors,
            stored: Vec::new(),
        }
    }

    /// The weights as candle-nn's `VarBuilder` sees a checkpoint: by canonical name, shapes
    /// checked; the model's parts load themselves from it (`vb.pp("h.0").pp("attn")`).
    pub fn var_builder(&self) -> VarBuilder<'_> {
        VarBuilder::from_backend(Box::new(Backend(self)), DType::F32, Device::Cpu)
    }

    /// The tensor called `name` (canonical, without prefix).
    pub fn get(&self, name: &str) -> Result<Tensor> {
        self.tensors
            .get(name)
            .cloned()
            .ok_or_else(|| ModelError::Weights {
                path: self.path.clone(),
                message: format!("tensor {name} was not loaded"),
                hint: "this is a bug in tracebook; please report it".into(),
            })
    }
}

/// The loaded weights behind a `VarBuilder`: every tensor is on the CPU, read and checked
/// against the config by `Weights::read`, so a lookup only hands out its `Tensor` (a
/// reference-counted handle: no copy, the peak memory stays one copy of the weights). Vectors
/// come as f32; matrices stored in f16 or bf16 come as stored, and stay so in memory.
struct Backend<'a>(&'a Weights);

impl SimpleBackend for Backend<'_> {
    fn get(
        &self,
        shape: Shape,
        name: &str,
        _: candle_nn::Init,
        dtype: DType,
        device: &Device,
    ) -> candle_core::Result<Tensor> {
        let tensor = self.get_unchecked(name, dtype, device)?;
        if tensor.shape() != &shape {
            candle_core::bail!(
                "tensor {name} has shape {:?}, the model expects {shape:?}",
                tensor.dims()
            );
        }
        Ok(tensor)
    }

    fn get_unchecked(
        &self,
        name: &str,
        dtype: DType,
        device: &Device,
    ) -> candle_core::Result<Tensor> {
        let tensor = self
            .0
            .tensors
            .get(name)
            .ok_or_else(|| candle_core::Error::Msg(format!("tensor {name} was not loaded")))?;
        // A matrix stored in half precision is handed out as stored (see `Weights::read`).
        let stored_half = matches!(tensor.dtype(), DType::F16 | DType::BF16) && tensor.rank() >= 2;
        let tensor = if stored_half {
            tensor.clone()
        } else {
            tensor.to_dtype(dtype)?
        };
        tensor.to_device(device)
    }

    fn contains_tensor(&self, name: &str) -> bool {
        self.0.tensors.contains_key(name)
    }
}

/// A tensor whose values cannot be read, with what to do about it.
fn unreadable(path: &Path, dtype: Dtype, message: String) -> ModelError {
    let hint = match dtype {
        Dtype::I8 => {
            "an int8 matrix needs its F32 row scales beside it; rebuild the browser model with \
             `tracebook build`"
        }
        Dtype::U8 => {
            "an int4 matrix needs its group codes and row units beside it; rebuild the browser \
             model with `tracebook build`"
        }
        _ => {
            "tracebook reads F32, F16 and BF16 weights, and int8 and int4 matrices with their \
             scales (a site's browser model)"
        }
    };
    ModelError::Weights {
        path: path.to_path_buf(),
        message,
        hint: hint.into(),
    }
}

/// Canonical names and shapes of every tensor the forward pass of `config`'s family reads, in
/// the order test models write them.
pub fn expected(config: &ModelConfig) -> Vec<(String, Vec<usize>)> {
    match config {
        ModelConfig::Gpt2(c) => expected_gpt2(c),
        ModelConfig::Decoder(c) => expected_decoder(c),
    }
}

fn expected_gpt2(config: &Gpt2Config) -> Vec<(String, Vec<usize>)> {
    let (d, inner) = (config.n_embd, config.inner());
    let mut names = vec![
        ("wte.weight".to_string(), vec![config.vocab_size, d]),
        ("wpe.weight".to_string(), vec![config.n_positions, d]),
        ("ln_f.weight".to_string(), vec![d]),
        ("ln_f.bias".to_string(), vec![d]),
    ];
    for l in 0..config.n_layer {
        let p = format!("h.{l}.");
        for (suffix, shape) in [
            ("ln_1.weight", vec![d]),
            ("ln_1.bias", vec![d]),
            ("attn.c_attn.weight", vec![d, 3 * d]),
            ("attn.c_attn.bias", vec![3 * d]),
            ("attn.c_proj.weight", vec![d, d]),
            ("attn.c_proj.bias", vec![d]),
            ("ln_2.weight", vec![d]),
            ("ln_2.bias", vec![d]),
            ("mlp.c_fc.weight", vec![d, inner]),
            ("mlp.c_fc.bias", vec![inner]),
            ("mlp.c_proj.weight", vec![inner, d]),
            ("mlp.c_proj.bias", vec![d]),
        ] {
            names.push((format!("{p}{suffix}"), shape));
        }
    }
    if !config.tie_word_embeddings {
        names.push(("lm_head.weight".to_string(), vec![config.vocab_size, d]));
    }
    names
}

fn expected_decoder(config: &DecoderConfig) -> Vec<(String, Vec<usize>)> {
    let (d, inner, dh) = (
        config.hidden_size,
        config.intermediate_size,
        config.head_dim,
    );
    let (q, kv) = (
        config.num_attention_heads * dh,
        config.num_key_value_heads * dh,
    );
    let mut names = vec![
        (
            "model.embed_tokens.weight".to_string(),
            vec![config.vocab_size, d],
        ),
        ("model.norm.weight".to_string(), vec![d]),
    ];
    for l in 0..config.num_hidden_layers {
        let p = format!("model.layers.{l}.");
        let mut push =
            |suffix: &str, shape: Vec<usize>| names.push((format!("{p}{suffix}"), shape));
        push("input_layernorm.weight", vec![d]);
        for (proj, out) in [("q_proj", q), ("k_proj", kv), ("v_proj", kv)] {
            push(&format!("self_attn.{proj}.weight"), vec![out, d]);
            if config.qkv_bias {
                push(&format!("self_attn.{proj}.bias"), vec![out]);
            }
        }
        if config.qk_norm {
            push("self_attn.q_norm.weight", vec![dh]);
            push("self_attn.k_norm.weight", vec![dh]);
        }
        push("self_attn.o_proj.weight", vec![d, q]);
        if config.o_bias {
            push("self_attn.o_proj.bias", vec![d]);
        }
        push("post_attention_layernorm.weight", vec![d]);
        for (proj, shape) in [
            ("gate_proj", vec![inner, d]),
            ("up_proj", vec![inner, d]),
            ("down_proj", vec![d, inner]),
        ] {
            let out = shape[0];
            push(&format!("mlp.{proj}.weight"), shape);
            if config.mlp_bias {
                push(&format!("mlp.{proj}.bias"), vec![out]);
            }
        }
    }
    if !config.tie_word_embeddings {
        names.push(("lm_head.weight".to_string(), vec![config.vocab_size, d]));
    }
    names
}

/// The key of canonical tensor `name` in a file whose transformer keys carry `prefix`; the
/// language-model head sits beside the transformer, so it never carries one.
fn key_of(prefix: &str, name: &str) -> String {
    if name.starts_with("lm_head.") {
        name.to_string()
    } else {
        format!("{prefix}{name}")
    }
}

/// The prefix of a GPT-2 file's transformer keys (see `PREFIXES`); the Llama family's
/// checkpoints have one layout, whose keys are the canonical names.
fn detect_prefix(
    shards: &[SafeTensors],
    path: &Path,
    config: &ModelConfig,
) -> Result<&'static str> {
    let (prefixes, embedding, what): (&[&'static str], &str, &str) = match config {
        ModelConfig::Gpt2(_) => (
            &PREFIXES,
            "wte.weight",
            "GPT2LMHeadModel / GPT2Model weights",
        ),
        ModelConfig::Decoder(_) => (
            &[""],
            "model.embed_tokens.weight",
            "the weights of a ForCausalLM model (model.embed_tokens, model.layers.N, lm_head)",
        ),
    };
    prefixes
        .iter()
        .copied()
        .find(|p| {
            shards
                .iter()
                .any(|st| st.names().iter().any(|n| **n == format!("{p}{embedding}")))
        })
        .ok_or_else(|| ModelError::Weights {
            path: path.to_path_buf(),
            message: format!(
                "no token embedding ({}) in this file",
                prefixes
                    .iter()
                    .map(|p| format!("{p}{embedding}"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
            hint: format!(
                "is this a {} checkpoint, as its config.json says? tracebook reads {what}",
                config.model_type()
            ),
        })
}

fn missing(path: &Path, shards: &[SafeTensors], name: &str, config: &ModelConfig) -> ModelError {
    let (layer, field) = match config {
        ModelConfig::Gpt2(_) => ("h", "n_layer"),
        ModelConfig::Decoder(_) => ("layers", "num_hidden_layers"),
    };
    let layers = (0..)
        .take_while(|l| {
            let needle = format!("{layer}.{l}.");
            shards
                .iter()
                .flat_map(|st| st.names())
                .any(|n| n.starts_with(&needle) || n.contains(&format!(".{needle}")))
        })
        .count();
    let message = if name == "lm_head.weight" {
        "tensor lm_head.weight is missing, but config.json says tie_word_embeddings = false \
         (the unembedding is its own matrix)"
            .to_string()
    } else if layers != config.n_layer() {
        format!(
            "tensor {name} is missing: the file holds {layers} layers but config.json says {field} = {}",
            config.n_layer()
        )
    } else {
        format!("tensor {name} is missing")
    };
    ModelError::Weights {
        path: path.to_path_buf(),
        message,
        hint: "use the config.json that came with these weights".into(),
    }
}

/// Tell the kernel the pages of a tensor already copied are no longer needed.
#[cfg(feature = "native")]
fn release(mmap: &memmap2::Mmap, data: &[u8]) {
    let offset = data.as_ptr() as usize - mmap.as_ptr() as usize;
    // SAFETY: the mapping is private and read-only, so dropped pages are re-read from the file
    // if anything touches them again; no live reference relies on their old contents.
    let _ = unsafe {
        mmap.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, data.len())
    };
}
