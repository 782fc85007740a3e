//! A checkpoint folder in Hugging Face layout (config.json, model.safetensors,
//! tokenizer.json) plus what `--resume` needs: training_log.json and optimizer.safetensors.
//!
//! Snapshots live under `snapshots/step-NNNNNN/` in the same layout and are carried into
//! every new version of the folder by hard links.

use super::adamw::AdamW;
use super::error::{TrainError, TrainResult};
use super::folder;
use super::log::{TrainingLog, LOG_FILE};
use super::params::Params;
use super::settings::WeightsDtype;
use crate::config::ModelConfig;
use crate::weights::Weights;
use candle_core::{DType, Device, Tensor};
use safetensors::tensor::{Dtype, TensorView};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

pub const OPTIMIZER_FILE: &str = "optimizer.safetensors";
pub const SNAPSHOTS: &str = "snapshots";

/// Everything a checkpoint is made of, borrowed from the running trainer.
pub struct CheckpointParts<'a> {
    pub config: &'a ModelConfig,
    pub params: &'a Params,
    pub optimizer: &'a AdamW,
    pub log: &'a TrainingLog,
    pub dtype: WeightsDtype,
    pub tokenizer_json: &'a str,
    /// Snapshots taken since the last checkpoint: (folder name, model.safetensors bytes).
    pub new_snapshots: &'a [(String, Vec<u8>)],
}

/// Write a complete new version of checkpoint folder `out`, atomically.
pub fn save(out: &Path, parts: &CheckpointParts) -> TrainResult<()> {
    folder::replace(out, |dir| {
        write_model_files(dir, parts.config, parts.tokenizer_json)?;
        write_file(
            &dir.join("model.safetensors"),
            &model_bytes(parts.params, parts.dtype)?,
        )?;
        write_file(&dir.join(LOG_FILE), parts.log.to_json().as_bytes())?;
        save_optimizer(&dir.join(OPTIMIZER_FILE), parts)?;
        carry_snapshots(&out.join(SNAPSHOTS), &dir.join(SNAPSHOTS))?;
        for (name, bytes) in parts.new_snapshots {
            let snap = dir.join(SNAPSHOTS).join(name);
            std::fs::create_dir_all(&snap).map_err(|e| TrainError::write(&snap, e))?;
            write_model_files(&snap, parts.config, parts.tokenizer_json)?;
            write_file(&snap.join("model.safetensors"), bytes)?;
        }
        Ok(())
    })
}

/// model.safetensors as `save_pretrained` writes it: GPT-2's keys under `transformer.`, the
/// Llama family's as named (`model.…`), tied embeddings (no lm_head), `format: pt` metadata.
pub fn model_bytes(params: &Params, dtype: WeightsDtype) -> TrainResult<Vec<u8>> {
    let (st_dtype, candle_dtype) = match dtype {
        WeightsDtype::F32 => (Dtype::F32, DType::F32),
        WeightsDtype::F16 => (Dtype::F16, DType::F16),
    };
    let mut data = Vec::new();
    for (name, var) in params.iter() {
        let t = var.as_tensor().to_dtype(candle_dtype)?.flatten_all()?;
        let bytes: Vec<u8> = match dtype {
            WeightsDtype::F32 => t
                .to_vec1::<f32>()?
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
            WeightsDtype::F16 => t
                .to_vec1::<half::f16>()?
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        };
        data.push((saved_key(name), var.dims().to_vec(), bytes));
    }
    let views = data.iter().map(|(name, shape, bytes)| {
        let view = TensorView::new(st_dtype, shape.clone(), bytes)
            .expect("shape and byte length agree by construction");
        (name.clone(), view)
    });
    let metadata = HashMap::from([("format".to_string(), "pt".to_string())]);
    safetensors::serialize(views, Some(metadata))
        .map_err(|e| candle_core::Error::Msg(e.to_string()).into())
}

/// The key `save_pretrained` gives canonical weight `name`: GPT2LMHeadModel keeps its
/// transformer under `transformer.`; a Llama-family name already starts with `model.`, and the
/// head (`lm_head.`) sits beside the transformer in both.
fn saved_key(name: &str) -> String {
    if name.starts_with("model.") || name.starts_with("lm_head.") || name == "final_logits_bias" {
        name.to_string()
    } else {
        format!("transformer.{name}")
    }
}

fn write_model_files(dir: &Path, config: &ModelConfig, tokenizer_json: &str) -> TrainResult<()> {
    write_file(&dir.join("config.json"), config.to_hf_json().as_bytes())?;
    write_file(&dir.join("tokenizer.json"), tokenizer_json.as_bytes())
}

fn write_file(path: &Path, bytes: &[u8]) -> TrainResult<()> {
    std::fs::write(path, bytes).map_err(|e| TrainError::write(path, e))
}

/// Moments (and the f32 weights when model.safetensors holds fewer bits) by parameter name.
fn save_optimizer(path: &Path, parts: &CheckpointParts) -> TrainResult<()> {
    let mut tensors = HashMap::new();
    for (i, (name, var)) in parts.params.iter().enumerate() {
        let moment = |values: &Vec<f32>| Tensor::from_slice(values, var.shape(), &Device::Cpu);
        tensors.insert(format!("m.{name}"), moment(&parts.optimizer.first[i])?);
        tensors.insert(format!("v.{name}"), moment(&parts.optimizer.second[i])?);
        if parts.dtype != WeightsDtype::F32 {
            tensors.insert(format!("param.{name}"), var.as_tensor().clone());
        }
    }
    candle_core::safetensors::save(&tensors, path).map_err(|e| match e {
        candle_core::Error::Io(io) => TrainError::write(path, io),
        other => other.into(),
    })
}

/// Hard-link (or copy) every file of the old snapshots folder into the new one.
fn carry_snapshots(from: &Path, to: &Path) -> TrainResult<()> {
    if !from.is_dir() {
        return Ok(());
    }
    for entry in std::fs::read_dir(from).map_err(|e| TrainError::write(from, e))? {
        let entry = entry.map_err(|e| TrainError::write(from, e))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            std::fs::create_dir_all(&dst).map_err(|e| TrainError::write(&dst, e))?;
            carry_snapshots(&src, &dst)?;
        } else if std::fs::hard_link(&src, &dst).is_err() {
            std::fs::copy(&src, &dst).map_err(|e| TrainError::write(&dst, e))?;
        }
    }
    Ok(())
}

/// What `--resume` reads back: weights, optimiser state and the log so far.
pub struct Restored {
    pub params: Params,
    pub first: Vec<Vec<f32>>,
    pub second: Vec<Vec<f32>>,
    pub log: TrainingLog,
}

pub fn load(out: &Path, config: &ModelConfig) -> TrainResult<Restored> {
    folder::recover(out)?;
    let log_path = out.join(LOG_FILE);
    if !log_path.is_file() {
        return Err(TrainError::Checkpoint {
            path: out.to_path_buf(),
            problem: "there is no checkpoint to resume here (no training_log.json)".into(),
            hint: "drop --resume to start a new run, or point --out at a folder `tracebook train` wrote".into(),
        });
    }
    let log = TrainingLog::load(&log_path)?;
    let opt_path = out.join(OPTIMIZER_FILE);
    let unreadable = |e: candle_core::Error| TrainError::Checkpoint {
        path: opt_path.clone(),
        problem: format!("cannot read the optimiser state: {e}"),
        hint: "the checkpoint is incomplete; start a new run in another --out folder".into(),
    };
    let mut state = candle_core::safetensors::load(&opt_path, &Device::Cpu).map_err(unreadable)?;
    let weights = if state.keys().any(|k| k.starts_with("param.")) {
        None
    } else {
        Some(Weights::load(&[out.join("model.safetensors")], config)?)
    };
    let mut tensors = BTreeMap::new();
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for (name, _) in crate::weights::expected(config) {
        let mut take = |key: String| {
            state
                .remove(&key)
                .ok_or_else(|| unreadable(candle_core::Error::Msg(format!("no tensor {key}"))))
        };
        let flat = |t: Tensor| t.flatten_all()?.to_vec1::<f32>();
        first.push(flat(take(format!("m.{name}"))?)?);
        second.push(flat(take(format!("v.{name}"))?)?);
        let param = match &weights {
            Some(w) => w.get(&name)?,
            None => take(format!("param.{name}"))?,
        };
        tensors.insert(name, param);
    }
    let params = Params::from_tensors(config, tensors)?;
    Ok(Restored {
        params,
        first,
        second,
        log,
    })
}
