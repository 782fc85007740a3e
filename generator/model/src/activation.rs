//! The MLP's activation function, by the name `config.json` gives it, computed as `transformers`
//! computes it (its `ACT2FN` table), or refused by name.
//!
//! Every variant is built from candle ops, so the same code serves tracing and training.

use candle_core::{Result, Tensor};
use serde::{Deserialize, Serialize};

/// An activation function of `transformers`' `ACT2FN` that tracebook computes exactly; one
/// variant per name `config.json` may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Activation {
    /// The tanh approximation `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`, GPT-2's. The
    /// five tanh names differ only in how their constants are written, below f32 rounding.
    GeluNew,
    GeluPytorchTanh,
    GeluPythonTanh,
    GeluFast,
    GeluAccurate,
    /// The exact `x·Φ(x)` with the error function (`gelu`, `gelu_python`).
    Gelu,
    GeluPython,
    /// Exact GELU clipped to [−10, 10].
    Gelu10,
    /// `x·σ(1.702·x)`.
    QuickGelu,
    Relu,
    /// `relu(x)²`.
    Relu2,
    /// `min(max(x, 0), 6)`.
    Relu6,
    /// PyTorch's default slope, 0.01.
    LeakyRelu,
    /// `x·σ(x)` (`silu`, `swish`).
    Silu,
    Swish,
    Sigmoid,
    Tanh,
    /// `x·tanh(softplus(x))`.
    Mish,
    /// `0.5·(1 + erf((x − μ)/(σ√2)))`, μ = 0.707107, σ = 0.282095.
    Laplace,
    /// The identity.
    Linear,
    /// `x·relu6(x + 3)/6`.
    Hardswish,
    /// `√softplus(x)`.
    SqrtSoftplus,
}

/// Every name tracebook accepts, with its activation.
const NAMES: [(&str, Activation); 22] = [
    ("gelu_new", Activation::GeluNew),
    ("gelu_pytorch_tanh", Activation::GeluPytorchTanh),
    ("gelu_python_tanh", Activation::GeluPythonTanh),
    ("gelu_fast", Activation::GeluFast),
    ("gelu_accurate", Activation::GeluAccurate),
    ("gelu", Activation::Gelu),
    ("gelu_python", Activation::GeluPython),
    ("gelu_10", Activation::Gelu10),
    ("quick_gelu", Activation::QuickGelu),
    ("relu", Activation::Relu),
    ("relu2", Activation::Relu2),
    ("relu6", Activation::Relu6),
    ("leaky_relu", Activation::LeakyRelu),
    ("silu", Activation::Silu),
    ("swish", Activation::Swish),
    ("sigmoid", Activation::Sigmoid),
    ("tanh", Activation::Tanh),
    ("mish", Activation::Mish),
    ("laplace", Activation::Laplace),
    ("linear", Activation::Linear),
    ("hardswish", Activation::Hardswish),
    ("sqrtsoftplus", Activation::SqrtSoftplus),
];

/// Every name `Activation` accepts, for error messages and docs.
pub fn supported() -> impl Iterator<Item = &'static str> {
    NAMES.iter().map(|(name, _)| *name)
}

impl Activation {
    /// The activation called `name` in `config.json`, or why tracebook refuses it.
    pub fn from_name(name: &str) -> std::result::Result<Activation, String> {
        if let Some((_, a)) = NAMES.iter().find(|(n, _)| *n == name) {
            return Ok(*a);
        }
        let list = supported().collect::<Vec<_>>().join(", ");
        Err(if matches!(name, "prelu" | "xielu") {
            format!(
                "activation_function {name:?} has learned parameters of its own, which tracebook \
                 does not load; supported: {list}"
            )
        } else {
            format!("activation_function {name:?} is not one tracebook computes; supported: {list}")
        })
    }

    /// The name as `config.json` writes it.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, a)| *a == self)
            .map(|(n, _)| *n)
            .expect("every variant has a name")
    }

    /// How a trace derives the activated values (`mlp.post`, a gated MLP's `mlp.act`) from
    /// their input for this activation, so the two agree exactly; None where a trace stores
    /// them itself (the trace format has ops for the tanh GELUs and SiLU only).
    pub fn derive_op(self) -> Option<tracebook_trace::DeriveOp> {
        use Activation::*;
        match self {
            GeluNew | GeluPytorchTanh | GeluPythonTanh | GeluFast | GeluAccurate => {
                Some(tracebook_trace::DeriveOp::GeluTanh)
            }
            Silu | Swish => Some(tracebook_trace::DeriveOp::Silu),
            _ => None,
        }
    }

    /// The activation applied elementwise.
    pub fn apply(self, x: &Tensor) -> Result<Tensor> {
        use Activation::*;
        match self {
            GeluNew | GeluPytorchTanh | GeluPythonTanh | GeluFast | GeluAccurate => x.gelu(),
            Gelu | GeluPython => x.gelu_erf(),
            Gelu10 => x.gelu_erf()?.clamp(-10f32, 10f32),
            QuickGelu => x.mul(&candle_nn::ops::sigmoid(&x.affine(1.702, 0.0)?)?),
            Relu => x.relu(),
            Relu2 => x.relu()?.sqr(),
            Relu6 => x.clamp(0f32, 6f32),
            LeakyRelu => candle_nn::ops::leaky_relu(x, 0.01),
            Silu | Swish => x.silu(),
            Sigmoid => candle_nn::ops::sigmoid(x),
            Tanh => x.tanh(),
            Mish => x.mul(&softplus(x)?.tanh()?),
            Laplace => {
                // transformers' own rounded constants, not 1/√2 exactly.
                #[allow(clippy::approx_constant)]
                let (mu, sigma) = (0.707107, 0.282095);
                let scale = 1.0 / (sigma * std::f64::consts::SQRT_2);
                x.affine(scale, -mu * scale)?.erf()?.affine(0.5, 0.5)
            }
            Linear => Ok(x.clone()),
            Hardswish => x.mul(&(x + 3.0)?.clamp(0f32, 6f32)?.affine(1.0 / 6.0, 0.0)?),
            SqrtSoftplus => softplus(x)?.sqrt(),
        }
    }
}

/// PyTorch's softplus with its default threshold: `x` where `x > 20`, else `ln(1 + eˣ)`.
fn softplus(x: &Tensor) -> Result<Tensor> {
    let smooth = (x.clamp(f32::MIN, 20f32)?.exp()? + 1.0)?.log()?;
    x.gt(20f64)?.where_cond(x, &smooth)
}

impl TryFrom<String> for Activation {
    type Error = String;
    fn try_from(name: String) -> std::result::Result<Self, String> {
        Activation::from_name(&name)
    }
}

impl From<Activation> for String {
    fn from(a: Activation) -> String {
        a.name().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn at(a: Activation, x: f32) -> f32 {
        let t = Tensor::new(&[x], &Device::Cpu).unwrap();
        a.apply(&t).unwrap().to_vec1::<f32>().unwrap()[0]
    }

    #[test]
    fn every_supported_name_round_trips() {
        for name in supported() {
            assert_eq!(Activation::from_name(name).unwrap().name(), name);
        }
    }

    #[test]
    fn unknown_and_parametric_names_are_refused_with_the_list() {
        let err = Activation::from_name("gelu_fancy").unwrap_err();
        assert!(
            err.contains("\"gelu_fancy\"") && err.contains("quick_gelu"),
            "{err}"
        );
        let err = Activation::from_name("prelu").unwrap_err();
        assert!(err.contains("learned parameters"), "{err}");
    }

    #[test]
    fn exact_gelu_and_tanh_gelu_differ_where_they_should() {
        let exact = at(Activation::Gelu, -1.5);
        let tanh = at(Activation::GeluNew, -1.5);
        // x·Φ(x) at −1.5 is −0.100211; the tanh approximation gives −0.100428.
        assert!((exact - -0.100_211).abs() < 1e-6, "{exact}");
        assert!((tanh - -0.100_428).abs() < 1e-6, "{tanh}");
    }

    #[test]
    fn piecewise_ones_follow_pytorch() {
        assert_eq!(at(Activation::Relu6, 7.5), 6.0);
        assert_eq!(at(Activation::Relu2, -2.0), 0.0);
        assert_eq!(at(Activation::Relu2, 3.0), 9.0);
        assert!((at(Activation::LeakyRelu, -2.0) - -0.02).abs() < 1e-7);
        assert_eq!(at(Activation::Gelu10, 12.0), 10.0);
        assert_eq!(at(Activation::Mish, 30.0), 30.0);
        assert!((at(Activation::Mish, 1.0) - 0.865_098).abs() < 1e-5);
        assert!((at(Activation::QuickGelu, 1.0) - 0.845_796).abs() < 1e-5);
        #[allow(clippy::approx_constant)]
        let mu = 0.707107;
        assert!((at(Activation::Laplace, mu) - 0.5).abs() < 1e-6);
        assert_eq!(at(Activation::Hardswish, -4.0), 0.0);
        assert_eq!(at(Activation::Hardswish, 4.0), 4.0);
        assert!((at(Activation::SqrtSoftplus, 0.0) - 2f32.ln().sqrt()).abs() < 1e-6);
    }
}
