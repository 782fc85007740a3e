//! `config.json` of a Llama-family checkpoint (`llama`, `mistral`, `qwen2`, `qwen3`, `gemma`):
//! the fields that change what the forward pass computes, resolved with each family's
//! `transformers` defaults, and every field that would change it in a way tracebook does not
//! compute refused by name.
//!
//! The config keeps the JSON it was read from: `with` edits a field and reads it again, and
//! `to_hf_json` writes it back, so a test model's config.json is exactly what `transformers` reads.

use crate::activation::Activation;
use serde_json::{Map, Value};

/// The decoder-only families that share tracebook's rotary forward pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Llama,
    Mistral,
    Qwen2,
    Qwen3,
    Gemma,
}

/// Every family by its `model_type`.
pub const FAMILIES: [(&str, Family); 5] = [
    ("llama", Family::Llama),
    ("mistral", Family::Mistral),
    ("qwen2", Family::Qwen2),
    ("qwen3", Family::Qwen3),
    ("gemma", Family::Gemma),
];

impl Family {
    pub fn from_model_type(name: &str) -> Option<Family> {
        FAMILIES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    pub fn model_type(self) -> &'static str {
        FAMILIES
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .expect("every family is listed")
    }

    /// The `architectures` entry `save_pretrained` writes for the causal LM.
    pub fn architecture(self) -> &'static str {
        match self {
            Family::Llama => "LlamaForCausalLM",
            Family::Mistral => "MistralForCausalLM",
            Family::Qwen2 => "Qwen2ForCausalLM",
            Family::Qwen3 => "Qwen3ForCausalLM",
            Family::Gemma => "GemmaForCausalLM",
        }
    }
}

/// How RoPE's frequencies are scaled: none, or Llama 3.1's smooth interpolation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RopeScaling {
    None,
    Llama3 {
        factor: f64,
        low_freq_factor: f64,
        high_freq_factor: f64,
        original_max_position_embeddings: f64,
    },
}

/// A Llama-family config, resolved: every size and switch the forward pass reads.
#[derive(Debug, Clone, PartialEq)]
pub struct DecoderConfig {
    /// The config.json this was read from (what `with` edits and `to_hf_json` writes).
    json: Map<String, Value>,
    pub family: Family,
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    /// Key/value heads: query head h reads key/value head h / (heads / kv heads).
    pub num_key_value_heads: usize,
    pub head_dim: usize,
    pub max_position_embeddings: usize,
    pub rms_norm_eps: f64,
    pub rope_theta: f64,
    pub rope_scaling: RopeScaling,
    pub activation: Activation,
    /// Biases on the q, k and v projections.
    pub qkv_bias: bool,
    /// A bias on the attention's output projection.
    pub o_bias: bool,
    /// Biases on the MLP's three projections.
    pub mlp_bias: bool,
    /// Qwen3: an RMSNorm over each head's q and k before the rotation.
    pub qk_norm: bool,
    /// Gemma: RMSNorm multiplies by `1 + w`, and the embeddings are scaled by √width.
    pub gemma_norm: bool,
    pub tie_word_embeddings: bool,
    /// Each layer's sliding window (a query sees the `w` latest keys, itself included), or
    /// None for full causal attention.
    pub windows: Vec<Option<usize>>,
}

/// Fields that change the computation in ways tracebook does not compute, with why.
const REFUSED: [(&str, &str); 12] = [
    ("num_local_experts", "a mixture of experts"),
    ("num_experts", "a mixture of experts"),
    ("n_routed_experts", "a mixture of experts"),
    ("moe_intermediate_size", "a mixture of experts"),
    ("attn_logit_softcapping", "attention soft-capping"),
    ("final_logit_softcapping", "logit soft-capping"),
    (
        "query_pre_attn_scalar",
        "a query scale other than 1/√head_dim",
    ),
    (
        "partial_rotary_factor",
        "rotation of part of each head only",
    ),
    ("attention_chunk_size", "chunked attention"),
    ("no_rope_layers", "layers without rotary positions"),
    ("use_bidirectional_attention", "bidirectional attention"),
    ("quantization_config", "quantized weights"),
];

type Fields = Map<String, Value>;

fn usize_field(json: &Fields, name: &str) -> Result<Option<usize>, String> {
    match json.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| format!("{name} must be a whole number, not {v}")),
    }
}

fn required(json: &Fields, name: &str) -> Result<usize, String> {
    match usize_field(json, name)? {
        Some(0) => Err(format!("{name} must be positive")),
        Some(n) => Ok(n),
        None => Err(format!("{name} is missing")),
    }
}

fn f64_field(json: &Fields, name: &str) -> Result<Option<f64>, String> {
    match json.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{name} must be a number, not {v}")),
    }
}

fn bool_field(json: &Fields, name: &str) -> Result<Option<bool>, String> {
    match json.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(format!("{name} must be true or false, not {v}")),
    }
}

fn str_field<'a>(json: &'a Fields, name: &str) -> Result<Option<&'a str>, String> {
    match json.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!("{name} must be a string, not {v}")),
    }
}

impl DecoderConfig {
    /// Resolve a config.json of `family` as `transformers` reads it, or say what is refused.
    pub fn from_json(family: Family, json: Fields) -> Result<DecoderConfig, String> {
        for (field, what) in REFUSED {
            let value = json.get(field);
            let harmless = match (field, value) {
                (_, None | Some(Value::Null)) => true,
                ("partial_rotary_factor", Some(v)) => v.as_f64() == Some(1.0),
                ("use_bidirectional_attention", Some(v)) => v == &Value::Bool(false),
                (_, Some(Value::Number(n))) => n.as_f64() == Some(0.0),
                _ => false,
            };
            if !harmless {
                return Err(format!(
                    "{field} is set: this checkpoint uses {what}, which tracebook does not \
                     compute (it traces a model exactly as transformers runs it, or not at all)"
                ));
            }
        }
        let hidden_size = required(&json, "hidden_size")?;
        let heads = required(&json, "num_attention_heads")?;
        let layers = required(&json, "num_hidden_layers")?;
        let kv = usize_field(&json, "num_key_value_heads")?.unwrap_or(heads);
        if kv == 0 || !heads.is_multiple_of(kv) {
            return Err(format!(
                "num_key_value_heads ({kv}) must divide num_attention_heads ({heads})"
            ));
        }
        let default_head_dim = match family {
            Family::Qwen3 => 128,
            Family::Gemma => 256,
            _ => hidden_size / heads,
        };
        let head_dim = usize_field(&json, "head_dim")?.unwrap_or(default_head_dim);
        if head_dim == 0 || !head_dim.is_multiple_of(2) {
            return Err(format!(
                "head_dim ({head_dim}) must be even: RoPE rotates pairs"
            ));
        }
        let max_positions = match family {
            Family::Llama => 2048,
            Family::Mistral => 4096 * 32,
            Family::Qwen2 | Family::Qwen3 => 32768,
            Family::Gemma => 8192,
        };
        let (rope_theta, rope_scaling) = rope(&json)?;
        let attention_bias = bool_field(&json, "attention_bias")?.unwrap_or(false);
        let (qkv_bias, o_bias) = match family {
            Family::Mistral => (false, false),
            Family::Qwen2 => (true, false),
            _ => (attention_bias, attention_bias),
        };
        let mlp_bias = match family {
            Family::Llama => bool_field(&json, "mlp_bias")?.unwrap_or(false),
            _ => false,
        };
        let config = DecoderConfig {
            family,
            vocab_size: required(&json, "vocab_size")?,
            hidden_size,
            intermediate_size: required(&json, "intermediate_size")?,
            num_hidden_layers: layers,
            num_attention_heads: heads,
            num_key_value_heads: kv,
            head_dim,
            max_position_embeddings: usize_field(&json, "max_position_embeddings")?
                .unwrap_or(max_positions),
            rms_norm_eps: f64_field(&json, "rms_norm_eps")?.unwrap_or(1e-6),
            rope_theta,
            rope_scaling,
            activation: activation(family, &json)?,
            qkv_bias,
            o_bias,
            mlp_bias,
            qk_norm: family == Family::Qwen3,
            gemma_norm: family == Family::Gemma,
            tie_word_embeddings: bool_field(&json, "tie_word_embeddings")?
                .unwrap_or(family == Family::Gemma),
            windows: windows(family, &json, layers)?,
            json,
        };
        Ok(config)
    }

    /// This config with `field` set to `value` (JSON, or a bare string), read again.
    pub fn with(&self, field: &str, value: &str) -> Result<DecoderConfig, String> {
        let mut json = self.json.clone();
        let parsed = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
        json.insert(field.to_string(), parsed);
        DecoderConfig::from_json(self.family, json)
    }

    /// A small config of `family` for test models: every field the forward reads written out.
    pub fn tiny(family: Family) -> DecoderConfig {
        let mut json = serde_json::json!({
            "architectures": [family.architecture()],
            "model_type": family.model_type(),
            "vocab_size": 50257,
            "hidden_size": 64,
            "intermediate_size": 176,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "head_dim": 16,
            "max_position_embeddings": 1024,
            "rms_norm_eps": 1e-6,
            "rope_theta": 10000.0,
            "hidden_act": if family == Family::Gemma { "gelu_pytorch_tanh" } else { "silu" },
            "tie_word_embeddings": family == Family::Gemma,
            "attention_dropout": 0.0,
            "bos_token_id": 50256,
            "eos_token_id": 50256,
        });
        if family == Family::Mistral {
            json["sliding_window"] = 4096.into();
        }
        let Value::Object(map) = json else {
            unreachable!("a JSON object literal")
        };
        DecoderConfig::from_json(family, map).expect("the tiny config is valid")
    }

    /// The config.json this config was read from, as `save_pretrained` writes one.
    pub fn to_hf_json(&self) -> String {
        let mut json = self.json.clone();
        json.entry("architectures")
            .or_insert_with(|| serde_json::json!([self.family.architecture()]));
        serde_json::to_string_pretty(&Value::Object(json)).expect("JSON always serializes") + "\n"
    }

    /// What q·k is multiplied by: 1/√head_dim.
    pub fn attention_scale(&self) -> f64 {
        (self.head_dim as f64).powf(-0.5)
    }

    /// RoPE's inverse frequencies, one per pair of a head's dimensions, as `transformers`
    /// computes them (with Llama 3.1's scaling when the config asks for it).
    pub fn inverse_frequencies(&self) -> Vec<f32> {
        let dim = self.head_dim;
        let base = (0..dim)
            .step_by(2)
            .map(|i| 1.0 / self.rope_theta.powf(i as f64 / dim as f64));
        match self.rope_scaling {
            RopeScaling::None => base.map(|f| f as f32).collect(),
            RopeScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max_position_embeddings: old,
            } => base
                .map(|f| {
                    let wavelen = 2.0 * std::f64::consts::PI / f;
                    let (low, high) = (old / low_freq_factor, old / high_freq_factor);
                    if wavelen < high {
                        f
                    } else if wavelen > low {
                        f / factor
                    } else {
                        let smooth = (old / wavelen - low_freq_factor)
                            / (high_freq_factor - low_freq_factor);
                        (1.0 - smooth) * f / factor + smooth * f
                    }
                })
                .map(|f| f as f32)
                .collect(),
        }
    }
}

/// `rope_theta` and the scaling, from the keys written before transformers 5 (`rope_theta`,
/// `rope_scaling`) or after (`rope_parameters`).
fn rope(json: &Fields) -> Result<(f64, RopeScaling), String> {
    let parameters = match json.get("rope_parameters") {
        Some(Value::Object(p)) => Some(p),
        None | Some(Value::Null) => None,
        Some(v) => return Err(format!("rope_parameters must be an object, not {v}")),
    };
    let theta = match parameters {
        Some(p) => f64_field(p, "rope_theta")?,
        None => None,
    }
    .or(f64_field(json, "rope_theta")?)
    .unwrap_or(10000.0);
    let scaling = match (parameters, json.get("rope_scaling")) {
        (Some(p), _) => Some(p),
        (None, Some(Value::Object(s))) => Some(s),
        (None, None | Some(Value::Null)) => None,
        (None, Some(v)) => return Err(format!("rope_scaling must be an object, not {v}")),
    };
    let Some(scaling) = scaling else {
        return Ok((theta, RopeScaling::None));
    };
    let kind = str_field(scaling, "rope_type")?
        .or(str_field(scaling, "type")?)
        .unwrap_or("default");
    let factor = |name: &str| -> Result<f64, String> {
        f64_field(scaling, name)?.ok_or_else(|| format!("rope scaling \"llama3\" needs {name}"))
    };
    match kind {
        "default" => Ok((theta, RopeScaling::None)),
        "llama3" => {
            let old = f64_field(scaling, "original_max_position_embeddings")?
                .ok_or("rope scaling \"llama3\" needs original_max_position_embeddings")?;
            let (low, high) = (factor("low_freq_factor")?, factor("high_freq_factor")?);
            if low == high {
                return Err(
                    "rope scaling \"llama3\": low_freq_factor equals high_freq_factor".into(),
                );
            }
            Ok((
                theta,
                RopeScaling::Llama3 {
                    factor: factor("factor")?,
                    low_freq_factor: low,
                    high_freq_factor: high,
                    original_max_position_embeddings: old,
                },
            ))
        }
        other => Err(format!(
            "rope scaling {other:?} is not one tracebook computes (it computes \"default\" and \
             \"llama3\"); linear, dynamic, yarn and longrope scalings are refused"
        )),
    }
}

fn activation(family: Family, json: &Fields) -> Result<Activation, String> {
    let named = match family {
        // Gemma's first configs name it `hidden_activation`; `hidden_act: "gelu"` there meant
        // the tanh approximation, as transformers reads it.
        Family::Gemma => match str_field(json, "hidden_activation")? {
            Some(name) => name,
            None => match str_field(json, "hidden_act")?.unwrap_or("gelu_pytorch_tanh") {
                "gelu" => "gelu_pytorch_tanh",
                name => name,
            },
        },
        _ => str_field(json, "hidden_act")?.unwrap_or("silu"),
    };
    Activation::from_name(named)
}

/// Each layer's window, as transformers decides it: Mistral's `sliding_window` on every layer;
/// Qwen's `layer_types`, or `use_sliding_window` from layer `max_window_layers` on.
fn windows(family: Family, json: &Fields, layers: usize) -> Result<Vec<Option<usize>>, String> {
    let window = usize_field(json, "sliding_window")?;
    if window == Some(0) {
        return Err("sliding_window must be positive (or null)".into());
    }
    match family {
        Family::Mistral => {
            if json.contains_key("layer_types") {
                return Err(
                    "layer_types is set: alternating attention is Ministral's, not Mistral's"
                        .into(),
                );
            }
            // transformers' default is 4096; an explicit null is full attention.
            let window = match json.get("sliding_window") {
                None => Some(4096),
                Some(_) => window,
            };
            Ok(vec![window; layers])
        }
        Family::Qwen2 | Family::Qwen3 => {
            let window = match bool_field(json, "use_sliding_window")?.unwrap_or(false) {
                true => window.or(Some(4096)),
                false => None,
            };
            if let Some(types) = json.get("layer_types").filter(|v| !v.is_null()) {
                let types: Vec<String> = serde_json::from_value(types.clone())
                    .map_err(|_| "layer_types must be a list of strings".to_string())?;
                if types.len() != layers {
                    return Err(format!(
                        "layer_types has {} entries for {layers} layers",
                        types.len()
                    ));
                }
                return types
                    .iter()
                    .map(|t| match t.as_str() {
                        "full_attention" => Ok(None),
                        "sliding_attention" => Ok(window),
                        other => Err(format!(
                            "layer type {other:?} is not one tracebook computes"
                        )),
                    })
                    .collect();
            }
            let from = usize_field(json, "max_window_layers")?.unwrap_or(28);
            Ok((0..layers).map(|l| window.filter(|_| l >= from)).collect())
        }
        _ => {
            let full = match json.get("layer_types").filter(|v| !v.is_null()) {
                None => true,
                Some(types) => types
                    .as_array()
                    .is_some_and(|t| t.iter().all(|t| t == "full_attention")),
            };
            if !full {
                return Err(format!(
                    "layer_types asks for other than full attention: {} layers all use full \
                     causal attention in transformers",
                    family.model_type()
                ));
            }
            Ok(vec![None; layers])
        }
    }
}
