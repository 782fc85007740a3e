//! What each part of the model *wrote* into a prediction: the prompt option `attribute` and
//! what a trace keeps of it.
//!
//! Direct logit attribution splits each target's logit at the last position into the
//! contributions of the parts that write into the residual stream: the embedding (token and
//! position), every attention head, every MLP, and the biases (the attention output
//! projections' and the final norm's). The final norm is linear once its scale is held at the
//! run's value, so the parts sum to the logit exactly (up to float rounding).

use crate::intervention::NamedToken;
use crate::tensor::Tensor;
use serde::{Deserialize, Serialize};

/// `attribute = { targets = [" his", " her"] }`: the targets' logits at the last position
/// split among the model's parts.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AttributionSpec {
    /// Next tokens whose logit is split (each one token of the model, or `guess(k)`, see
    /// [`crate::targets`]).
    pub targets: Vec<String>,
}

impl AttributionSpec {
    pub fn validate(&self) -> Result<(), String> {
        crate::targets::validate("attribute", &self.targets, "\" his\", \" her\"")
    }
}

/// The direct logit attribution of each target, in the spec's order. Every list is indexed
/// by target last: `heads[layer][head * targets + target]`, `mlp[layer][target]`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Attribution {
    pub targets: Vec<NamedToken>,
    /// Each target's logit at the last position, as the model computed it.
    #[serde(with = "crate::float_json::vec")]
    pub logit: Vec<f32>,
    /// The token and position embeddings' share of each target's logit.
    #[serde(with = "crate::float_json::vec")]
    pub embed: Vec<f32>,
    /// Each head's share (its output through its slice of the output projection, no bias).
    #[serde(with = "crate::float_json::rows")]
    pub heads: Vec<Vec<f32>>,
    /// Each MLP's share (its whole output, its output bias included).
    #[serde(with = "crate::float_json::rows")]
    pub mlp: Vec<Vec<f32>>,
    /// The attention output projections' biases and the final norm's bias.
    #[serde(with = "crate::float_json::vec")]
    pub bias: Vec<f32>,
    /// Input saliency, `[position][target]`: the gradient of the target's log-probability at
    /// the last position with respect to each token's embedding, times the embedding, summed
    /// over its width.
    #[serde(default, with = "crate::float_json::rows")]
    pub grad_input: Vec<Vec<f32>>,
    /// Integrated gradients from an all-zero token embedding (positions kept), 50
    /// Gauss–Legendre points, summed over the width, `[position][target]`.
    #[serde(default, with = "crate::float_json::rows")]
    pub integrated: Vec<Vec<f32>>,
    /// Each target's log-probability at the last position, and at the baseline: integrated
    /// gradients sum to their difference (completeness), up to the quadrature's error.
    #[serde(default, with = "crate::float_json::vec")]
    pub logprob: Vec<f32>,
    #[serde(default, with = "crate::float_json::vec")]
    pub baseline_logprob: Vec<f32>,
    /// Information flow, layer by layer: see [`Flow`].
    #[serde(default)]
    pub flow: Flow,
}

/// Information flow (Ferrando & Voita, 2024): in each block, how much of each position's
/// update came from which token. `attn[layer][i * T + j]` is the share of the attention
/// sublayer's result at position `i` that the heads moved from token `j` (0 for `j > i`),
/// `residual[layer][i]` the share the stream kept (with the row's `attn`, it sums to 1), and
/// `mlp[layer][i]` the MLP's share of its sublayer's result at `i`. A part's share is its
/// proximity to the result, `max(0, ‖y‖₁ − ‖y − part‖₁)`, over the sum of the parts'.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Flow {
    #[serde(with = "crate::float_json::rows")]
    pub attn: Vec<Vec<f32>>,
    #[serde(with = "crate::float_json::rows")]
    pub residual: Vec<Vec<f32>>,
    #[serde(with = "crate::float_json::rows")]
    pub mlp: Vec<Vec<f32>>,
}

impl Flow {
    /// The positions the flow covers (0 when none was recorded).
    pub fn positions(&self) -> usize {
        self.residual.first().map_or(0, Vec::len)
    }

    /// The share of layer `l`'s attention result at `i` that came from token `j`.
    pub fn edge(&self, l: usize, i: usize, j: usize) -> Option<f32> {
        let t = self.positions();
        (j < t).then_some(())?;
        self.attn.get(l)?.get(i * t + j).copied()
    }
}

impl Attribution {
    /// The target's index, by its text.
    pub fn target(&self, text: &str) -> Option<usize> {
        self.targets.iter().position(|t| t.text == text)
    }

    /// Head `h` of layer `l`'s share of target `t`'s logit.
    pub fn head(&self, l: usize, h: usize, t: usize) -> Option<f32> {
        let k = self.targets.len();
        self.heads.get(l)?.get(h * k + t).copied()
    }

    /// The sum of every part's share of target `t`'s logit: the logit again, up to rounding.
    pub fn sum(&self, t: usize) -> f64 {
        let k = self.targets.len();
        let heads: f64 = (self.heads.iter())
            .flat_map(|row| row.iter().skip(t).step_by(k.max(1)))
            .map(|&v| v as f64)
            .sum();
        let mlp: f64 = self.mlp.iter().map(|row| row[t] as f64).sum();
        self.embed[t] as f64 + heads + mlp + self.bias[t] as f64
    }
}

/// The attribution's numbers a trace offers as tensors: name, shape in words, meaning.
pub const TABLES: &[(&str, &str, &str)] = &[
    (
        "dla.logit",
        "[targets]",
        "each target's logit at the last position",
    ),
    (
        "dla.embed",
        "[targets]",
        "the token and position embeddings' share of the logit",
    ),
    (
        "dla.heads",
        "[layers, heads, targets]",
        "each attention head's share of the logit",
    ),
    (
        "dla.mlp",
        "[layers, targets]",
        "each MLP's share of the logit",
    ),
    (
        "dla.bias",
        "[targets]",
        "the attention output biases' and the final norm's share of the logit",
    ),
    (
        "saliency.grad_input",
        "[positions, targets]",
        "gradient × input of the target's log-probability, per prompt token",
    ),
    (
        "saliency.integrated",
        "[positions, targets]",
        "integrated gradients from all-zero token embeddings, per prompt token",
    ),
    (
        "saliency.logprob",
        "[targets]",
        "each target's log-probability at the last position",
    ),
    (
        "saliency.baseline_logprob",
        "[targets]",
        "the same with every token embedding zero (positions kept)",
    ),
    (
        "flow.attn",
        "[layers, positions, positions]",
        "the share of the attention result at a position moved from each token",
    ),
    (
        "flow.residual",
        "[layers, positions]",
        "the share of the attention result at a position the stream kept",
    ),
    (
        "flow.mlp",
        "[layers, positions]",
        "the MLP's share of its result at a position",
    ),
];

/// Every table of the attribution, by name.
pub fn tables(a: &Attribution) -> Vec<(&'static str, Tensor)> {
    let k = a.targets.len();
    let layers = a.heads.len();
    let heads = a.heads.first().map_or(0, |row| row.len() / k.max(1));
    let t = a.flow.positions();
    let table = |shape: Vec<usize>, data: Vec<f32>| Tensor { shape, data };
    vec![
        ("dla.logit", table(vec![k], a.logit.clone())),
        ("dla.embed", table(vec![k], a.embed.clone())),
        ("dla.heads", table(vec![layers, heads, k], a.heads.concat())),
        ("dla.mlp", table(vec![layers, k], a.mlp.concat())),
        ("dla.bias", table(vec![k], a.bias.clone())),
        (
            "saliency.grad_input",
            table(vec![a.grad_input.len(), k], a.grad_input.concat()),
        ),
        (
            "saliency.integrated",
            table(vec![a.integrated.len(), k], a.integrated.concat()),
        ),
        ("saliency.logprob", table(vec![k], a.logprob.clone())),
        (
            "saliency.baseline_logprob",
            table(vec![k], a.baseline_logprob.clone()),
        ),
        (
            "flow.attn",
            table(vec![a.flow.attn.len(), t, t], a.flow.attn.concat()),
        ),
        (
            "flow.residual",
            table(vec![a.flow.residual.len(), t], a.flow.residual.concat()),
        ),
        (
            "flow.mlp",
            table(vec![a.flow.mlp.len(), t], a.flow.mlp.concat()),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Attribution {
        let target = |id, text: &str| NamedToken {
            id,
            text: text.into(),
            rule: None,
        };
        Attribution {
            targets: vec![target(1, " his"), target(2, " her")],
            logit: vec![3.0, -1.0],
            embed: vec![0.5, -0.5],
            // 2 layers × 2 heads × 2 targets
            heads: vec![vec![1.0, 0.0, 0.25, -0.25], vec![0.5, 0.5, 0.0, 0.0]],
            mlp: vec![vec![0.25, -1.0], vec![0.25, 0.0]],
            bias: vec![0.25, 0.25],
            grad_input: vec![vec![0.5, -0.5], vec![1.0, 0.0], vec![0.0, 0.25]],
            integrated: vec![vec![0.75, -0.25], vec![1.5, 0.5], vec![0.25, 0.0]],
            logprob: vec![-1.0, -2.0],
            baseline_logprob: vec![-3.5, -2.25],
            flow: Flow {
                attn: vec![
                    vec![0.5, 0.0, 0.0, 0.25, 0.5, 0.0, 0.0, 0.125, 0.5],
                    vec![0.75, 0.0, 0.0, 0.0, 0.75, 0.0, 0.25, 0.25, 0.25],
                ],
                residual: vec![vec![0.5, 0.25, 0.375], vec![0.25, 0.25, 0.25]],
                mlp: vec![vec![0.5, 0.5, 0.5], vec![0.25, 0.5, 0.75]],
            },
        }
    }

    #[test]
    fn the_parts_sum_by_target_and_every_table_is_listed_and_documented() {
        let a = example();
        assert_eq!(a.sum(0), 3.0);
        assert_eq!(a.sum(1), -1.0);
        assert_eq!(a.head(0, 1, 1), Some(-0.25));
        assert_eq!(a.head(2, 0, 0), None);
        assert_eq!(a.target(" her"), Some(1));
        let made = tables(&a);
        let listed: Vec<&str> = TABLES.iter().map(|t| t.0).collect();
        assert_eq!(made.iter().map(|t| t.0).collect::<Vec<_>>(), listed);
        let heads = &made.iter().find(|t| t.0 == "dla.heads").unwrap().1;
        assert_eq!(heads.shape, vec![2, 2, 2]);
        assert_eq!(heads.data[3], -0.25);
        let integrated = &made
            .iter()
            .find(|t| t.0 == "saliency.integrated")
            .unwrap()
            .1;
        assert_eq!(integrated.shape, vec![3, 2]);
        assert_eq!(integrated.data, [0.75, -0.25, 1.5, 0.5, 0.25, 0.0]);
        let flow = &made.iter().find(|t| t.0 == "flow.attn").unwrap().1;
        assert_eq!(flow.shape, vec![2, 3, 3]);
        assert_eq!(flow.data[9 + 7], 0.25);
        assert_eq!(a.flow.edge(1, 2, 1), Some(0.25));
        assert_eq!(a.flow.edge(1, 2, 3), None);
        let doc = include_str!("../../../docs/trace-format.md");
        for name in listed {
            assert!(
                doc.contains(&format!("`{name}`")),
                "docs/trace-format.md does not list {name}"
            );
        }
    }

    #[test]
    fn a_spec_without_targets_is_refused() {
        let spec: AttributionSpec = toml::from_str("targets = []").unwrap();
        assert!(spec.validate().unwrap_err().contains("at least one target"));
        assert!(toml::from_str::<AttributionSpec>("targets = [\" a\"]\nmethod = \"x\"").is_err());
    }
}
