//! Causal experiments a prompt asks for and what a trace keeps of them: ablation (each head's
//! output and each MLP's output replaced, one at a time) and activation patching (a clean run's
//! activations copied into a corrupted run, one site at a time).
//!
//! The specs are prompt options (`ablate = {...}`, `patch = {...}`); the results sit in the
//! trace's meta beside the plain run, so the build draws and checks them without a model.

use crate::tensor::Tensor;
use crate::tokens::{Candidate, Token};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What an ablated activation is replaced by.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum AblationMode {
    /// Zero at every position.
    Zero,
    /// Its mean over the prompt's positions, at every position.
    #[default]
    Mean,
}

impl fmt::Display for AblationMode {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            AblationMode::Zero => "zero",
            AblationMode::Mean => "mean",
        })
    }
}

/// `ablate = { targets = [" was"], mode = "mean" }`: every attention head's output, and every
/// layer's MLP output, replaced in turn; the next-token log-probability of each target kept.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AblationSpec {
    /// Next tokens whose log-probability each ablation reports (each one token of the model,
    /// or `guess(k)`, see [`crate::targets`]).
    pub targets: Vec<String>,
    #[serde(default)]
    pub mode: AblationMode,
}

/// `patch = { corrupted = "...", answer = " Paris", wrong = " Rome" }`: the prompt is the
/// clean run; the corrupted text (the same number of tokens) is run with one clean activation
/// copied in at a time, and the logit difference answer − wrong measured after it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PatchSpec {
    pub corrupted: String,
    pub answer: String,
    pub wrong: String,
}

impl AblationSpec {
    pub fn validate(&self) -> Result<(), String> {
        crate::targets::validate("ablate", &self.targets, "\" was\"")
    }
}

impl PatchSpec {
    pub fn validate(&self) -> Result<(), String> {
        if self.answer == self.wrong {
            return Err(format!(
                "patch's answer and wrong are the same token ({:?}): the logit difference \
                 needs two different tokens",
                self.answer
            ));
        }
        if self.corrupted.is_empty() || self.answer.is_empty() || self.wrong.is_empty() {
            return Err("patch needs corrupted, answer and wrong, none empty".to_string());
        }
        Ok(())
    }
}

/// A token the author named, as the model reads it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct NamedToken {
    pub id: u32,
    pub text: String,
    /// The rule it was found by (`guess(1)`: the model's top guess on this prompt), for a
    /// target named by rule rather than by its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// The next token after the prompt in one run (plain or intervened): the log-probability of
/// each target, in the spec's order, and the likeliest tokens.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Outcome {
    #[serde(with = "crate::float_json::vec")]
    pub logprobs: Vec<f32>,
    pub top: Vec<Candidate>,
}

/// Every ablation of one prompt.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Ablation {
    pub mode: AblationMode,
    pub targets: Vec<NamedToken>,
    /// The run with nothing ablated.
    pub base: Outcome,
    /// `heads[layer][head]`: that head's output ablated.
    pub heads: Vec<Vec<Outcome>>,
    /// `mlp[layer]`: that layer's MLP output ablated.
    pub mlp: Vec<Outcome>,
}

impl Ablation {
    /// The change in target `t`'s log-probability (nats) when head `h` of layer `l` is
    /// ablated; `None` for a head the trace has not.
    pub fn head_effect(&self, l: usize, h: usize, t: usize) -> Option<f32> {
        let o = self.heads.get(l)?.get(h)?;
        Some(o.logprobs.get(t)? - self.base.logprobs.get(t)?)
    }

    /// The change in target `t`'s log-probability when layer `l`'s MLP is ablated.
    pub fn mlp_effect(&self, l: usize, t: usize) -> Option<f32> {
        Some(self.mlp.get(l)?.logprobs.get(t)? - self.base.logprobs.get(t)?)
    }

    /// The target's index, by its text.
    pub fn target(&self, text: &str) -> Option<usize> {
        self.targets.iter().position(|t| t.text == text)
    }
}

/// Activation patching from the traced (clean) prompt into a corrupted one.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Patching {
    /// The corrupted prompt, as the model read it (as many tokens as the clean one).
    pub corrupted: String,
    pub corrupted_tokens: Vec<Token>,
    pub answer: NamedToken,
    pub wrong: NamedToken,
    /// logit(answer) − logit(wrong) at the last position of the clean run.
    #[serde(with = "crate::float_json")]
    pub clean_diff: f32,
    /// The same of the corrupted run.
    #[serde(with = "crate::float_json")]
    pub corrupted_diff: f32,
    /// `resid[layer][position]`: the corrupted run with the clean residual stream entering
    /// block `layer` at `position` copied in; the metric (patched − corrupted) / (clean −
    /// corrupted) of the logit difference: 0 is the corrupted run, 1 the clean one.
    #[serde(with = "crate::float_json::rows")]
    pub resid: Vec<Vec<f32>>,
    /// `heads[layer][head]`: the same, with that head's clean output copied in at every
    /// position.
    #[serde(with = "crate::float_json::rows")]
    pub heads: Vec<Vec<f32>>,
    /// Attribution patching's estimate of `resid`, from one forward and backward pass of the
    /// corrupted run: (clean − corrupted activation) · the gradient of the logit difference,
    /// normalised as the metric is (empty in traces made before tracebook estimated it).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "crate::float_json::rows"
    )]
    pub attrib_resid: Vec<Vec<f32>>,
    /// The same estimate of `heads`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "crate::float_json::rows"
    )]
    pub attrib_heads: Vec<Vec<f32>>,
}

impl Patching {
    /// The normalised metric from a patched run's logit difference.
    pub fn metric(&self, diff: f32) -> f32 {
        (diff - self.corrupted_diff) / (self.clean_diff - self.corrupted_diff)
    }
}

/// The experiments' numbers a trace offers as tensors (to claims, inline values and
/// `tracebook inspect`), beside the tensors it stores: name, shape in words, meaning.
pub const TABLES: &[(&str, &str, &str)] = &[
    (
        "ablation.logprob",
        "[targets]",
        "each target's next-token log-probability, nothing ablated",
    ),
    ("ablation.prob", "[targets]", "the same as a probability"),
    (
        "ablation.heads.logprob",
        "[layers, heads, targets]",
        "with that head's output ablated",
    ),
    (
        "ablation.heads.prob",
        "[layers, heads, targets]",
        "the same as a probability",
    ),
    (
        "ablation.mlp.logprob",
        "[layers, targets]",
        "with that layer's MLP output ablated",
    ),
    (
        "ablation.mlp.prob",
        "[layers, targets]",
        "the same as a probability",
    ),
    (
        "patching.resid",
        "[layers, positions]",
        "the patching metric, the stream entering that block at that position patched",
    ),
    (
        "patching.heads",
        "[layers, heads]",
        "the patching metric, that head's output patched",
    ),
    (
        "patching.attrib.resid",
        "[layers, positions]",
        "attribution patching's estimate of patching.resid (a gradient's first-order guess)",
    ),
    (
        "patching.attrib.heads",
        "[layers, heads]",
        "attribution patching's estimate of patching.heads",
    ),
];

/// Every table of the ablation and the patching a trace holds, by name.
pub fn tables(
    ablation: Option<&Ablation>,
    patching: Option<&Patching>,
) -> Vec<(&'static str, Tensor)> {
    let mut out = Vec::new();
    if let Some(a) = ablation {
        let k = a.targets.len();
        let (layers, heads) = (a.heads.len(), a.heads.first().map_or(0, Vec::len));
        let flat_heads: Vec<f32> = a
            .heads
            .iter()
            .flatten()
            .flat_map(|o| o.logprobs.clone())
            .collect();
        let flat_mlp: Vec<f32> = a.mlp.iter().flat_map(|o| o.logprobs.clone()).collect();
        for (names, shape, logprobs) in [
            (
                ("ablation.logprob", "ablation.prob"),
                vec![k],
                a.base.logprobs.clone(),
            ),
            (
                ("ablation.heads.logprob", "ablation.heads.prob"),
                vec![layers, heads, k],
                flat_heads,
            ),
            (
                ("ablation.mlp.logprob", "ablation.mlp.prob"),
                vec![layers, k],
                flat_mlp,
            ),
        ] {
            let probs = logprobs.iter().map(|l| l.exp()).collect();
            let logprob = Tensor {
                shape: shape.clone(),
                data: logprobs,
            };
            out.push((names.0, logprob));
            out.push((names.1, Tensor { shape, data: probs }));
        }
    }
    if let Some(p) = patching {
        let tables = [
            ("patching.resid", &p.resid),
            ("patching.heads", &p.heads),
            ("patching.attrib.resid", &p.attrib_resid),
            ("patching.attrib.heads", &p.attrib_heads),
        ];
        for (name, rows) in tables {
            let shape = vec![rows.len(), rows.first().map_or(0, Vec::len)];
            out.push((
                name,
                Tensor {
                    shape,
                    data: rows.concat(),
                },
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(logprobs: Vec<f32>) -> Outcome {
        Outcome {
            logprobs,
            top: Vec::new(),
        }
    }

    #[test]
    fn every_table_is_listed_and_documented() {
        let target = |id, text: &str| NamedToken {
            id,
            text: text.into(),
            rule: None,
        };
        let ablation = Ablation {
            mode: AblationMode::Zero,
            targets: vec![target(1, " a"), target(2, " b")],
            base: outcome(vec![-1.0, -2.0]),
            heads: vec![vec![outcome(vec![-1.5, -2.5]); 3]; 2],
            mlp: vec![outcome(vec![-0.5, f32::NEG_INFINITY]); 2],
        };
        let patching = Patching {
            corrupted: "x".into(),
            corrupted_tokens: Vec::new(),
            answer: target(1, " a"),
            wrong: target(2, " b"),
            clean_diff: 1.0,
            corrupted_diff: -1.0,
            resid: vec![vec![1.0, 0.0, 0.5]; 2],
            heads: vec![vec![0.25; 3]; 2],
            attrib_resid: vec![vec![0.9, 0.0, 0.4]; 2],
            attrib_heads: vec![vec![0.5; 3]; 2],
        };
        let made = tables(Some(&ablation), Some(&patching));
        let names: Vec<&str> = made.iter().map(|(n, _)| *n).collect();
        let listed: Vec<&str> = TABLES.iter().map(|t| t.0).collect();
        assert_eq!(names.len(), listed.len());
        assert!(listed.iter().all(|n| names.contains(n)), "{names:?}");
        let get = |name: &str| &made.iter().find(|t| t.0 == name).unwrap().1;
        assert_eq!(get("ablation.heads.prob").shape, vec![2, 3, 2]);
        assert_eq!(get("ablation.mlp.prob").data[1], 0.0);
        assert_eq!(get("ablation.prob").data[0], (-1f32).exp());
        assert_eq!(get("patching.resid").data, [1.0, 0.0, 0.5, 1.0, 0.0, 0.5]);
        assert_eq!(patching.metric(0.0), 0.5);
        let doc = include_str!("../../../docs/trace-format.md");
        for name in listed {
            let short = name.rsplit_once('.').map_or(name, |(_, last)| last);
            assert!(
                doc.contains(&format!("`{name}`")) || doc.contains(&format!("`.{short}`")),
                "docs/trace-format.md does not list {name}"
            );
        }
        assert!(tables(None, None).is_empty());
    }

    #[test]
    fn specs_that_cannot_run_are_refused_as_they_are_read() {
        let empty = AblationSpec {
            targets: Vec::new(),
            mode: AblationMode::Mean,
        };
        assert!(empty
            .validate()
            .unwrap_err()
            .contains("at least one target"));
        let same = PatchSpec {
            corrupted: "She".into(),
            answer: " his".into(),
            wrong: " his".into(),
        };
        assert!(same.validate().unwrap_err().contains("the same token"));
        let spec: AblationSpec = toml::from_str("targets = [\" a\"]").unwrap();
        assert_eq!(spec.mode, AblationMode::Mean);
        assert!(toml::from_str::<AblationSpec>("targets = [\" a\"]\nmode = \"half\"").is_err());
    }
}
