//! Where the forward pass puts the tensors it computes: kept for a trace, or nowhere.

use candle_core::{DType, Tensor};
use tracebook_trace::{Derivation, Trace};

/// Receives every named intermediate tensor of a forward pass.
pub trait Recorder {
    /// Whether anything is kept; a forward skips work that only serves recording when this is false.
    fn enabled(&self) -> bool;
    /// Keep `tensor` under `name` (a name from the trace tensor table).
    fn record(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()>;
    /// Keep `tensor`, which the forward computed as `how` of tensors recorded before it: a
    /// trace stores it as that computation, so it decodes to exactly that of the decoded
    /// bases. Other recorders keep the values as `record` does.
    fn derived(&mut self, name: &str, tensor: &Tensor, how: Derivation) -> candle_core::Result<()> {
        let _ = how;
        self.record(name, tensor)
    }
    /// A weight that a derivation reads (a LayerNorm's weight and bias): a trace keeps it so
    /// that the derivation can be computed; recorders of the forward's activations skip it.
    fn parameter(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        let _ = (name, tensor);
        Ok(())
    }
    /// A hook point: the forward goes on with what this returns in place of `tensor` (an
    /// ablation or a patch, see `intervene`); recorders return it unchanged. Called after the
    /// tensor is recorded, at `blocks.{l}.resid_pre`, `blocks.{l}.attn.z` and `blocks.{l}.mlp_out`.
    fn edit(&mut self, name: &str, tensor: Tensor) -> candle_core::Result<Tensor> {
        let _ = name;
        Ok(tensor)
    }
}

/// Records nothing: the plain forward used for generation.
pub struct NoRecorder;

impl Recorder for NoRecorder {
    fn enabled(&self) -> bool {
        false
    }
    fn record(&mut self, _: &str, _: &Tensor) -> candle_core::Result<()> {
        Ok(())
    }
}

/// A recorded tensor: name, shape and row-major f32 values.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl Recorded {
    /// `tensor`'s shape and values as f32, under `name`.
    fn of(name: &str, tensor: &Tensor) -> candle_core::Result<Recorded> {
        Ok(Recorded {
            name: name.to_string(),
            shape: tensor.dims().to_vec(),
            data: tensor
                .to_dtype(DType::F32)?
                .flatten_all()?
                .to_vec1::<f32>()?,
        })
    }
}

/// Keeps every tensor, in the order the forward pass produced them.
#[derive(Default)]
pub struct TensorRecorder {
    pub tensors: Vec<Recorded>,
}

impl Recorder for TensorRecorder {
    fn enabled(&self) -> bool {
        true
    }
    fn record(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        self.tensors.push(Recorded::of(name, tensor)?);
        Ok(())
    }
}

impl TensorRecorder {
    pub fn get(&self, name: &str) -> Option<&Recorded> {
        self.tensors.iter().find(|t| t.name == name)
    }
}

/// Encodes every tensor into `trace` the moment it is recorded, so a long prompt's recorded
/// tensors (every attention map is layers × heads × T²) are never all held as f32 at once: the
/// trace keeps their compact bytes. Tensors named by `keep` are also kept as f32, for what the
/// tracer derives from them afterwards (the logit lens reads each block's residual stream).
pub struct TraceRecorder<'t> {
    trace: &'t mut Trace,
    keep: fn(&str) -> bool,
    pub kept: TensorRecorder,
}

impl<'t> TraceRecorder<'t> {
    pub fn new(trace: &'t mut Trace, keep: fn(&str) -> bool) -> Self {
        TraceRecorder {
            trace,
            keep,
            kept: TensorRecorder::default(),
        }
    }
}

impl Recorder for TraceRecorder<'_> {
    fn enabled(&self) -> bool {
        true
    }
    fn record(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        self.store(name, tensor, None)
    }
    fn derived(&mut self, name: &str, tensor: &Tensor, how: Derivation) -> candle_core::Result<()> {
        self.store(name, tensor, Some(how))
    }
    fn parameter(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        self.store(name, tensor, None)
    }
}

impl TraceRecorder<'_> {
    fn store(
        &mut self,
        name: &str,
        tensor: &Tensor,
        how: Option<Derivation>,
    ) -> candle_core::Result<()> {
        let recorded = Recorded::of(name, tensor)?;
        let shape = recorded.shape.clone();
        match how {
            Some(how) => self.trace.insert_derived(name, shape, &recorded.data, how),
            None => self.trace.insert(name, shape, &recorded.data),
        }
        .map_err(candle_core::Error::wrap)?;
        if (self.keep)(name) {
            self.kept.tensors.push(recorded);
        }
        Ok(())
    }
}
