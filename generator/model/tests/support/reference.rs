//! What the reference fixtures hold, computed by tracebook: every recorded tensor of a forward
//! pass plus the last logits and the top-20 ids, and the same sampling the fixture scripts use.
//! Shared by faithful.rs (GPT-2 shapes) and variants.rs (config fields and weight formats).

use std::collections::BTreeMap;
use tracebook_model::topk::top_k;
use tracebook_model::{Model, TensorRecorder};

/// Tensor name to (shape, values), as tests/reference/make_fixtures.py names them.
pub type Tensors = BTreeMap<String, (Vec<usize>, Vec<f32>)>;

/// Every tensor the fixtures compare, for one forward pass over `ids`.
pub fn recorded(model: &Model, ids: &[u32]) -> Tensors {
    let mut rec = TensorRecorder::default();
    let logits = model
        .net
        .forward(ids, &mut rec)
        .unwrap()
        .to_vec2::<f32>()
        .unwrap();
    let mut ours: Tensors = rec
        .tensors
        .into_iter()
        .map(|t| (t.name, (t.shape, t.data)))
        .collect();
    let last = logits.last().unwrap().clone();
    ours.insert("logits.last".into(), (vec![last.len()], last));
    let topk: Vec<f32> = logits
        .iter()
        .flat_map(|row| top_k(row, 20).into_iter().map(|(i, _)| i as f32))
        .collect();
    ours.insert("logits.topk_ids".into(), (vec![ids.len(), 20], topk));
    ours
}

/// The values the fixture scripts keep: all of them, or `m` at floor(i (n-1) / (m-1)).
pub fn sample(data: &[f32], m: usize) -> Vec<f32> {
    let n = data.len();
    if n <= m {
        return data.to_vec();
    }
    (0..m).map(|i| data[(i * (n - 1)) / (m - 1)]).collect()
}
