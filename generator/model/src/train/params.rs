//! The trainable weights: one candle `Var` per tensor of the checkpoint, initialised as GPT-2
//! was (Llama models the same way), and shared with the forward pass (a model built from them
//! sees every optimiser update).

use super::error::TrainResult;
use super::rng::Rng;
use super::settings::PositionInit;
use crate::config::ModelConfig;
use crate::weights::{expected, Weights};
use candle_core::{Device, Tensor, Var};
use std::collections::{BTreeMap, HashMap};

/// GPT-2's initialiser range: weights are drawn from N(0, 0.02²).
const INIT_STD: f64 = 0.02;

/// The projections that write into the residual stream, by the end of their names.
const RESIDUAL_WRITERS: [&str; 3] = ["c_proj.weight", "o_proj.weight", "down_proj.weight"];

/// A norm's gain: GPT-2's `ln_1`, `ln_2`, `ln_f`; Llama's `input_layernorm`,
/// `post_attention_layernorm`, `model.norm`.
fn is_norm(name: &str) -> bool {
    name.contains("ln_") || name.contains("layernorm") || name.ends_with("norm.weight")
}

/// The token embedding, which the unembedding shares in every model tracebook trains.
pub fn tied_embedding(config: &ModelConfig) -> &'static str {
    match config {
        ModelConfig::Gpt2(_) => "wte.weight",
        ModelConfig::Decoder(_) => "model.embed_tokens.weight",
    }
}

/// A `rows × width` table of sinusoids, row `p` holding sin(p·ωᵢ) in column 2i and cos(p·ωᵢ)
/// in column 2i + 1, ωᵢ = 10000^(−2i/width) (Vaswani et al., 2017), scaled to a root mean
/// square of `INIT_STD`.
fn sinusoids(rows: usize, width: usize) -> Vec<f32> {
    let scale = INIT_STD * std::f64::consts::SQRT_2;
    let mut out = Vec::with_capacity(rows * width);
    for p in 0..rows {
        for c in 0..width {
            let i = (c / 2) as f64;
            let angle = p as f64 / 10000f64.powf(2.0 * i / width as f64);
            let value = if c % 2 == 0 { angle.sin() } else { angle.cos() };
            out.push((value * scale) as f32);
        }
    }
    out
}

/// Every weight of the model by canonical name (`h.0.attn.c_attn.weight`, ...), in the order of
/// `weights::expected`, which is also the order the optimiser and the checkpoints use.
pub struct Params {
    names: Vec<String>,
    vars: Vec<Var>,
}

impl Params {
    /// Fresh weights: N(0, 0.02) matrices and embeddings, the projections that write into the
    /// residual stream (GPT-2's `c_proj`, Llama's `o_proj` and `down_proj`) scaled by
    /// 1/√(2·layers), zero biases, unit norm gains; GPT-2's position table as `positions`
    /// says (drawn either way, so that every other weight is the same for both).
    pub fn init(
        config: &ModelConfig,
        positions: PositionInit,
        rng: &mut Rng,
    ) -> TrainResult<Params> {
        let residual_std = INIT_STD / (2.0 * config.n_layer() as f64).sqrt();
        let mut tensors = BTreeMap::new();
        for (name, shape) in expected(config) {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = if name.ends_with(".bias") {
                vec![0.0; n]
            } else if is_norm(&name) {
                vec![1.0; n]
            } else {
                let std = if RESIDUAL_WRITERS.iter().any(|w| name.ends_with(w)) {
                    residual_std
                } else {
                    INIT_STD
                };
                let drawn: Vec<f32> = (0..n).map(|_| (rng.normal() * std) as f32).collect();
                if name == "wpe.weight" && positions == PositionInit::Sinusoid {
                    sinusoids(shape[0], shape[1])
                } else {
                    drawn
                }
            };
            tensors.insert(name, Tensor::from_vec(values, shape, &Device::Cpu)?);
        }
        Params::from_tensors(config, tensors)
    }

    /// Weights from a checkpoint, named as `weights::expected` names them.
    pub fn from_tensors(
        config: &ModelConfig,
        mut tensors: BTreeMap<String, Tensor>,
    ) -> TrainResult<Params> {
        let mut names = Vec::new();
        let mut vars = Vec::new();
        for (name, shape) in expected(config) {
            let tensor = tensors.remove(&name).ok_or_else(|| {
                candle_core::Error::Msg(format!("no tensor {name} among the weights"))
            })?;
            if tensor.dims() != shape.as_slice() {
                return Err(candle_core::Error::Msg(format!(
                    "tensor {name} has shape {:?}, expected {shape:?}",
                    tensor.dims()
                ))
                .into());
            }
            vars.push(Var::from_tensor(
                &tensor.to_dtype(candle_core::DType::F32)?,
            )?);
            names.push(name);
        }
        Ok(Params { names, vars })
    }

    /// Weights named and ordered as given (an encoder-decoder's, which `weights::expected`
    /// does not list).
    pub fn named(tensors: Vec<(String, Tensor)>) -> TrainResult<Params> {
        let mut names = Vec::new();
        let mut vars = Vec::new();
        for (name, tensor) in tensors {
            vars.push(Var::from_tensor(
                &tensor.to_dtype(candle_core::DType::F32)?,
            )?);
            names.push(name);
        }
        Ok(Params { names, vars })
    }

    /// Each weight as a tensor the forward pass reads (sharing storage with the variables,
    /// gradients tracked unless `detached`), by name.
    pub fn tensors(&self, detached: bool) -> HashMap<String, Tensor> {
        self.iter()
            .map(|(name, var)| {
                let t = var.as_tensor();
                (
                    name.to_string(),
                    if detached { t.detach() } else { t.clone() },
                )
            })
            .collect()
    }

    /// The weights as the forward pass reads them; they share storage with the variables.
    pub fn weights(&self) -> Weights {
        let tensors: HashMap<String, Tensor> = self
            .iter()
            .map(|(name, var)| (name.to_string(), var.as_tensor().clone()))
            .collect();
        Weights::from_tensors(tensors)
    }

    /// The same weights without gradient tracking (still shared storage), for evaluation.
    pub fn detached_weights(&self) -> Weights {
        let tensors: HashMap<String, Tensor> = self
            .iter()
            .map(|(name, var)| (name.to_string(), var.as_tensor().detach()))
            .collect();
        Weights::from_tensors(tensors)
    }

    /// (name, variable) in checkpoint order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Var)> {
        self.names.iter().map(String::as_str).zip(&self.vars)
    }

    /// Where the weight called `name` is in checkpoint order.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub fn vars(&self) -> &[Var] {
        &self.vars
    }

    /// How many numbers the model has.
    pub fn count(&self) -> usize {
        self.vars.iter().map(|v| v.elem_count()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::settings::Architecture;

    #[test]
    fn init_follows_gpt2() {
        let config = Architecture::gpt2(2, 2, 32, 8).config();
        let params = Params::init(&config, PositionInit::Normal, &mut Rng::new(1)).unwrap();
        let get = |n: &str| {
            let (_, v) = params.iter().find(|(name, _)| *name == n).unwrap();
            v.as_tensor()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap()
        };
        let std = |xs: &[f32]| (xs.iter().map(|x| x * x).sum::<f32>() / xs.len() as f32).sqrt();
        assert!((std(&get("wte.weight")) - 0.02).abs() < 0.001);
        assert!((std(&get("h.1.mlp.c_proj.weight")) - 0.01).abs() < 0.001);
        assert!(get("h.0.ln_1.weight").iter().all(|&x| x == 1.0));
        assert!(get("h.0.attn.c_attn.bias").iter().all(|&x| x == 0.0));
        assert_eq!(
            params.count(),
            50257 * 32 + 8 * 32 + 2 * 32 + 2 * (12 * 32 * 32 + 13 * 32)
        );
    }

    #[test]
    fn sinusoid_positions_change_only_the_position_table() {
        let config = Architecture::gpt2(2, 2, 32, 16).config();
        let normal = Params::init(&config, PositionInit::Normal, &mut Rng::new(1)).unwrap();
        let sine = Params::init(&config, PositionInit::Sinusoid, &mut Rng::new(1)).unwrap();
        for ((name, a), (_, b)) in normal.iter().zip(sine.iter()) {
            let same = a
                .as_tensor()
                .eq(b.as_tensor())
                .unwrap()
                .flatten_all()
                .unwrap()
                .min(0)
                .unwrap()
                .to_scalar::<u8>()
                .unwrap()
                == 1;
            assert_eq!(same, name != "wpe.weight", "{name}");
        }
        let (_, wpe) = sine.iter().find(|(n, _)| *n == "wpe.weight").unwrap();
        let rows = wpe.as_tensor().to_vec2::<f32>().unwrap();
        // Position 0: sin 0 = 0 and cos 0 = 1 in every pair, at the table's scale.
        assert!(rows[0].iter().step_by(2).all(|&x| x == 0.0));
        let top = (0.02 * 2f64.sqrt()) as f32;
        assert!(rows[0]
            .iter()
            .skip(1)
            .step_by(2)
            .all(|&x| (x - top).abs() < 1e-7));
        let rms = (rows.iter().flatten().map(|x| x * x).sum::<f32>() / (16.0 * 32.0)).sqrt();
        assert!((rms - 0.02).abs() < 0.002, "{rms}");
        // One step back is the same rotation everywhere: the first pair turns by 1 radian.
        for (p, row) in rows.iter().enumerate().skip(1) {
            let (s, c) = (row[0] / top, row[1] / top);
            assert!((s - (p as f32).sin()).abs() < 1e-5 && (c - (p as f32).cos()).abs() < 1e-5);
        }
    }
}
