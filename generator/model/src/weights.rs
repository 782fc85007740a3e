//! Reading a GPT-2 `model.safetensors`: memory-mapped, either key layout, checked against the config.
//!
//! Tensors are copied out of the map one at a time as f32, and each one's pages are released as soon
//! as it is copied, so peak memory stays near one copy of the weights rather than two.

use crate::config::Gpt2Config;
use crate::error::{ModelError, Result};
use candle_core::{Device, Tensor};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The two key layouts in the wild: `h.0.attn...` (openai-community/gpt2) and
/// `transformer.h.0.attn...` (what `save_pretrained` writes for GPT2LMHeadModel).
const PREFIXES: [&str; 2] = ["", "transformer."];

/// Every tensor the forward pass needs, as f32 on the CPU, by canonical name (no prefix).
pub struct Weights {
    path: PathBuf,
    tensors: HashMap<String, Tensor>,
}

impl Weights {
    /// Load and check the weights named by `config`.
    pub fn load(path: &Path, config: &Gpt2Config) -> Result<Weights> {
        let file = std::fs::File::open(path).map_err(|e| ModelError::io(path, e))?;
        // SAFETY: the map is read-only and private; tracebook never writes the file while it runs.
        let mmap = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| ModelError::io(path, e))?;
        let st = SafeTensors::deserialize(&mmap).map_err(|e| ModelError::Safetensors {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let prefix = detect_prefix(&st, path)?;
        let mut tensors = HashMap::new();
        for (name, shape) in expected(config) {
            let key = format!("{prefix}{name}");
            let view = st
                .tensor(&key)
                .map_err(|_| missing(path, &st, &name, config))?;
            if view.shape() != shape.as_slice() {
                return Err(ModelError::Weights {
                    path: path.to_path_buf(),
                    message: format!(
                        "tensor {key} has shape {:?}, but config.json implies {:?}",
                        view.shape(),
                        shape
                    ),
                    hint: "config.json does not describe these weights; use the config.json that came with them".into(),
                });
            }
            let values = to_f32(view.dtype(), view.data()).ok_or_else(|| ModelError::Weights {
                path: path.to_path_buf(),
                message: format!("tensor {key} has dtype {:?}", view.dtype()),
                hint: "tracebook reads F32, F16 and BF16 weights".into(),
            })?;
            release(&mmap, view.data());
            tensors.insert(name, Tensor::from_vec(values, shape, &Device::Cpu)?);
        }
        Ok(Weights {
            path: path.to_path_buf(),
            tensors,
        })
    }

    /// Tensors already in memory, by canonical name; a training run passes its variables, whose
    /// storage the optimiser updates in place, so a model built from them sees every update.
    pub fn from_tensors(tensors: HashMap<String, Tensor>) -> Weights {
        Weights {
            path: PathBuf::from("(in-memory weights)"),
            tensors,
        }
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

/// Canonical names and shapes of every tensor a GPT-2 forward pass reads.
pub fn expected(config: &Gpt2Config) -> Vec<(String, Vec<usize>)> {
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
    names
}

fn detect_prefix(st: &SafeTensors, path: &Path) -> Result<&'static str> {
    PREFIXES
        .into_iter()
        .find(|p| st.names().iter().any(|n| **n == format!("{p}wte.weight")))
        .ok_or_else(|| ModelError::Weights {
            path: path.to_path_buf(),
            message: "no token embedding (wte.weight or transformer.wte.weight) in this file".into(),
            hint: "is this a GPT-2 family checkpoint? tracebook reads GPT2LMHeadModel / GPT2Model weights"
                .into(),
        })
}

fn missing(path: &Path, st: &SafeTensors, name: &str, config: &Gpt2Config) -> ModelError {
    let layers = (0..)
        .take_while(|l| {
            let needle = format!("h.{l}.");
            st.names()
                .iter()
                .any(|n| n.starts_with(&needle) || n.contains(&format!(".{needle}")))
        })
        .count();
    let message = if layers != config.n_layer {
        format!(
            "tensor {name} is missing: the file holds {layers} layers but config.json says n_layer = {}",
            config.n_layer
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

fn to_f32(dtype: Dtype, bytes: &[u8]) -> Option<Vec<f32>> {
    let words = |n: usize| bytes.chunks_exact(n);
    Some(match dtype {
        Dtype::F32 => words(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::F16 => words(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::BF16 => words(2)
            .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        _ => return None,
    })
}

/// Tell the kernel the pages of a tensor already copied are no longer needed.
fn release(mmap: &memmap2::Mmap, data: &[u8]) {
    let offset = data.as_ptr() as usize - mmap.as_ptr() as usize;
    // SAFETY: the mapping is private and read-only, so dropped pages are re-read from the file
    // if anything touches them again; no live reference relies on their old contents.
    let _ = unsafe {
        mmap.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, data.len())
    };
}
