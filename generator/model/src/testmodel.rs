//! Checkpoints of each architecture tracebook traces (GPT-2 and the Llama family) with
//! deterministic pseudo-random weights, for tests and CI.
//!
//! The folder looks exactly like one `save_pretrained` writes (config.json, model.safetensors,
//! tokenizer.json), so the same loading code and Python's `transformers` both read it.

use crate::config::{DecoderConfig, Family, Gpt2Config, ModelConfig};
use crate::error::{ModelError, Result};
use crate::weights::expected;
use safetensors::tensor::{Dtype, TensorView};
use std::path::Path;
use tracebook_tokenizer::Tokenizer;
use tracebook_trace::{SplitMix64, WEIGHTS_FILE, WEIGHTS_INDEX};

/// Which key layout to write (both exist in the wild).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLayout {
    /// `h.0.attn.c_attn.weight`, as in openai-community/gpt2's model.safetensors.
    Bare,
    /// `transformer.h.0.attn.c_attn.weight`, as `save_pretrained` writes.
    Transformer,
}

/// How the weights are stored on disk (the forward pass always computes in f32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredDtype {
    F32,
    F16,
    BF16,
}

#[derive(Debug, Clone)]
pub struct TestModelSpec {
    pub config: ModelConfig,
    pub seed: u64,
    pub layout: KeyLayout,
    pub dtype: StoredDtype,
    /// Split the weights over this many `model-0000i-of-0000n.safetensors` files with a
    /// `model.safetensors.index.json`, as `save_pretrained` does for large models (1: one file).
    pub shards: usize,
}

/// The shapes `dev test-model --shape` knows: (name, layers, heads, width).
pub const SHAPES: [(&str, usize, usize, usize); 5] = [
    ("tiny", 2, 4, 64),
    ("small", 12, 12, 768),
    ("medium", 24, 16, 1024),
    ("large", 36, 20, 1280),
    ("xl", 48, 25, 1600),
];

impl TestModelSpec {
    /// 2 layers, 4 heads, 64 wide, GPT-2's full vocabulary and context.
    pub fn tiny() -> Self {
        Self::shape("tiny").expect("a known shape")
    }

    /// GPT-2 small's shape: 12 layers, 12 heads, 768 wide (124M parameters).
    pub fn small() -> Self {
        Self::shape("small").expect("a known shape")
    }

    /// One of `SHAPES` by name: tiny, small, or GPT-2 medium, large and XL's sizes.
    pub fn shape(name: &str) -> Option<Self> {
        let &(_, n_layer, n_head, n_embd) = SHAPES.iter().find(|s| s.0 == name)?;
        Some(TestModelSpec {
            config: Gpt2Config::gpt2(n_layer, n_head, n_embd, 1024).into(),
            seed: 0x7261_6365_626f_6f6b,
            layout: KeyLayout::Transformer,
            dtype: StoredDtype::F32,
            shards: 1,
        })
    }
}

impl TestModelSpec {
    /// The tiny shape (2 layers, 4 query heads sharing 2 key/value heads, 64 wide, heads of
    /// 16, GPT-2's vocabulary) in `family`'s architecture.
    pub fn family(family: Family) -> Self {
        TestModelSpec {
            config: ModelConfig::Decoder(DecoderConfig::tiny(family)),
            ..Self::tiny()
        }
    }
}

/// Write config.json, model.safetensors (or shards and their index) and tokenizer.json into `dir`.
pub fn write_test_model(dir: &Path, spec: &TestModelSpec) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| ModelError::io(dir, e))?;
    let config_path = dir.join("config.json");
    std::fs::write(&config_path, spec.config.to_hf_json())
        .map_err(|e| ModelError::io(&config_path, e))?;

    let mut rng = SplitMix64::new(spec.seed);
    // Only GPT-2 checkpoints come in two layouts.
    let prefix = match (spec.layout, &spec.config) {
        (KeyLayout::Transformer, ModelConfig::Gpt2(_)) => "transformer.",
        _ => "",
    };
    let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = expected(&spec.config)
        .into_iter()
        .map(|(name, shape)| {
            let values = init_values(&name, &shape, &spec.config, &mut rng);
            let key = if name.starts_with("lm_head.") || prefix.is_empty() {
                name
            } else {
                format!("{prefix}{name}")
            };
            (key, shape, encode(&values, spec.dtype))
        })
        .collect();
    let dtype = match spec.dtype {
        StoredDtype::F32 => Dtype::F32,
        StoredDtype::F16 => Dtype::F16,
        StoredDtype::BF16 => Dtype::BF16,
    };
    let shards = spec.shards.clamp(1, tensors.len());
    let per_shard = tensors.len().div_ceil(shards);
    let mut weight_map = serde_json::Map::new();
    for (i, chunk) in tensors.chunks(per_shard).enumerate() {
        let file = if shards == 1 {
            WEIGHTS_FILE.to_string()
        } else {
            format!("model-{:05}-of-{:05}.safetensors", i + 1, shards)
        };
        let views = chunk.iter().map(|(name, shape, bytes)| {
            weight_map.insert(name.clone(), file.clone().into());
            let view = TensorView::new(dtype, shape.clone(), bytes)
                .expect("shape and byte length agree by construction");
            (name.clone(), view)
        });
        let path = dir.join(&file);
        safetensors::serialize_to_file(views.collect::<Vec<_>>(), None, &path).map_err(|e| {
            ModelError::Safetensors {
                path: path.clone(),
                message: e.to_string(),
            }
        })?;
    }
    if shards > 1 {
        let index = serde_json::json!({ "metadata": {}, "weight_map": weight_map });
        let path = dir.join(WEIGHTS_INDEX);
        std::fs::write(&path, index.to_string()).map_err(|e| ModelError::io(&path, e))?;
    }

    let tokenizer_path = dir.join("tokenizer.json");
    let json = Tokenizer::builtin_gpt2()?.to_json()?;
    std::fs::write(&tokenizer_path, json).map_err(|e| ModelError::io(&tokenizer_path, e))
}

/// The values as little-endian bytes of `dtype` (rounded to nearest for the half types).
pub(crate) fn encode(values: &[f32], dtype: StoredDtype) -> Vec<u8> {
    match dtype {
        StoredDtype::F32 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        StoredDtype::F16 => values
            .iter()
            .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
            .collect(),
        StoredDtype::BF16 => values
            .iter()
            .flat_map(|v| half::bf16::from_f32(*v).to_le_bytes())
            .collect(),
    }
}

/// Values scaled so activations stay O(1) and attention is neither uniform nor one-hot;
/// LayerNorm gains and all biases are non-trivial so a forward that ignored them would fail.
/// Norm gains are 1 ± 0.3 (Gemma stores the gain minus one).
fn init_values(
    name: &str,
    shape: &[usize],
    config: &ModelConfig,
    rng: &mut SplitMix64,
) -> Vec<f32> {
    let n: usize = shape.iter().product();
    let d = config.width() as f32;
    let gemma = matches!(config, ModelConfig::Decoder(c) if c.gemma_norm);
    let (center, spread) = match name.rsplit('.').next() {
        Some("weight") if name.contains("norm") => (if gemma { 0.0 } else { 1.0 }, 0.3),
        _ if name.contains("embed_tokens") => (0.0, 0.5),
        _ if name.contains("q_proj") || name.contains("k_proj") => (0.0, 1.5 / d.sqrt()),
        _ if name.contains("down_proj") || name.contains("o_proj") => (0.0, 0.5 / (4.0 * d).sqrt()),
        Some("weight") if name.contains("ln_") => (1.0, 0.3),
        Some("bias") if name.contains("ln_") => (0.0, 0.2),
        Some("bias") => (0.0, 0.1),
        _ if name.starts_with("wte") || name.starts_with("lm_head") => (0.0, 0.5),
        _ if name.starts_with("wpe") => (0.0, 0.2),
        _ if name.contains("c_attn") => (0.0, 1.5 / d.sqrt()),
        _ if name.contains("mlp.c_proj") => (0.0, 0.5 / (4.0 * d).sqrt()),
        _ => (0.0, 1.0 / d.sqrt()),
    };
    (0..n).map(|_| center + spread * uniform(rng)).collect()
}

/// Uniform in [-√3, √3): zero mean, unit variance.
pub(crate) fn uniform(rng: &mut SplitMix64) -> f32 {
    let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    (unit * 2.0 - 1.0) * 3f32.sqrt()
}
