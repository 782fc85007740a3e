//! Hook points that edit activations as the forward pass goes: the recorder a batch of
//! intervened runs uses. Sequence `b` of the batch gets edit `b` (or none), so one batched
//! forward runs many single-site interventions at once.

use crate::recorder::Recorder;
use candle_core::Tensor;
use std::collections::HashMap;

/// Where an edit applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Site {
    /// One attention head's output (its `z`, before the output projection), every position.
    Head { layer: usize, head: usize },
    /// One layer's MLP output, every position.
    Mlp { layer: usize },
    /// The residual stream entering a block, at one position.
    Resid { layer: usize, position: usize },
}

impl Site {
    /// The hook point the site's tensor passes (`Recorder::edit`'s name).
    fn hook(&self) -> String {
        match self {
            Site::Head { layer, .. } => format!("blocks.{layer}.attn.z"),
            Site::Mlp { layer } => format!("blocks.{layer}.mlp_out"),
            Site::Resid { layer, .. } => format!("blocks.{layer}.resid_pre"),
        }
    }

    /// The block of values sequence `b` has at this site, in a hooked tensor of `shape`
    /// holding `batch` sequences: (offset, rows, width), rows contiguous.
    fn block(&self, b: usize, shape: &[usize], batch: usize) -> (usize, usize, usize) {
        match *self {
            // z: [batch × heads, T, dh]
            Site::Head { head, .. } => {
                let (heads, t, dh) = (shape[0] / batch, shape[1], shape[2]);
                ((b * heads + head) * t * dh, t, dh)
            }
            // [batch × T, d]
            Site::Mlp { .. } => {
                let (t, d) = (shape[0] / batch, shape[1]);
                (b * t * d, t, d)
            }
            Site::Resid { position, .. } => {
                let (t, d) = (shape[0] / batch, shape[1]);
                ((b * t + position) * d, 1, d)
            }
        }
    }
}

/// What the site's values are replaced by.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Zero,
    /// Their mean over the positions, at every position.
    Mean,
    /// Another run's values at the same site (as many as the site holds).
    From(Vec<f32>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub site: Site,
    pub value: Value,
}

/// Edits for one batch: `edits[b]` for sequence `b`, `None` for a plain run.
pub struct Hooks {
    pub edits: Vec<Option<Edit>>,
}

impl Recorder for Hooks {
    fn enabled(&self) -> bool {
        false
    }
    fn record(&mut self, _: &str, _: &Tensor) -> candle_core::Result<()> {
        Ok(())
    }
    fn edit(&mut self, name: &str, tensor: Tensor) -> candle_core::Result<Tensor> {
        let batch = self.edits.len();
        let hits: Vec<(usize, &Edit)> = (self.edits.iter().enumerate())
            .filter_map(|(b, e)| Some((b, e.as_ref().filter(|e| e.site.hook() == name)?)))
            .collect();
        if hits.is_empty() {
            return Ok(tensor);
        }
        let shape = tensor.dims().to_vec();
        let mut data = tensor.flatten_all()?.to_vec1::<f32>()?;
        for (b, edit) in hits {
            let (offset, rows, width) = edit.site.block(b, &shape, batch);
            let values = &mut data[offset..offset + rows * width];
            replace(values, rows, width, &edit.value)?;
        }
        Tensor::from_vec(data, shape, tensor.device())
    }
}

/// `values` (`rows` × `width`) replaced by `value`.
fn replace(
    values: &mut [f32],
    rows: usize,
    width: usize,
    value: &Value,
) -> candle_core::Result<()> {
    match value {
        Value::Zero => values.fill(0.0),
        Value::Mean => {
            let mut mean = vec![0f64; width];
            for row in values.chunks(width) {
                mean.iter_mut().zip(row).for_each(|(m, &v)| *m += v as f64);
            }
            let mean: Vec<f32> = mean.iter().map(|m| (m / rows as f64) as f32).collect();
            values
                .chunks_mut(width)
                .for_each(|row| row.copy_from_slice(&mean));
        }
        Value::From(source) if source.len() == values.len() => values.copy_from_slice(source),
        Value::From(source) => {
            return Err(candle_core::Error::Msg(format!(
                "a patch of {} values for a site of {}",
                source.len(),
                values.len()
            )))
        }
    }
    Ok(())
}

/// Keeps, as they pass, the tensors a plain run's interventions start from or copy: each
/// block's input stream and each attention's `z`.
#[derive(Default)]
pub struct Cache {
    pub tensors: HashMap<String, Tensor>,
}

impl Cache {
    /// The kept tensor `name`.
    pub fn get(&self, name: &str) -> candle_core::Result<&Tensor> {
        self.tensors
            .get(name)
            .ok_or_else(|| candle_core::Error::Msg(format!("{name} was not kept")))
    }

    /// The stream entering block `layer`, `[T, d]`.
    pub fn resid_pre(&self, layer: usize) -> candle_core::Result<&Tensor> {
        self.get(&format!("blocks.{layer}.resid_pre"))
    }

    /// The values a site holds in this run (for `Value::From`).
    pub fn site(&self, site: Site) -> candle_core::Result<Vec<f32>> {
        let tensor = self.get(&site.hook())?;
        let (offset, rows, width) = site.block(0, tensor.dims(), 1);
        let all = tensor.flatten_all()?.to_vec1::<f32>()?;
        Ok(all[offset..offset + rows * width].to_vec())
    }
}

impl Recorder for Cache {
    fn enabled(&self) -> bool {
        false
    }
    fn record(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        if name.ends_with(".resid_pre") || name.ends_with(".attn.z") {
            self.tensors.insert(name.to_string(), tensor.clone());
        }
        Ok(())
    }
}
