//! What a tensor holds, read from its name: this picks its encoding under `compact`.

use crate::codec::Encoding;
use crate::precision::Precision;

/// The kinds of tensor the codec tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorKind {
    /// Probabilities in [0, 1]: `*.attn.pattern`, `logit_lens.topk_probs`.
    Probability,
    /// Logits, which need precision for a softmax: `logits.last`, `logits.topk_values`,
    /// `logit_lens.topk_logits`.
    Logit,
    /// Integers such as token ids, always stored exactly: names ending in `_ids`
    /// (`logits.topk_ids`).
    Index,
    /// One number per position that probabilities are computed from, stored exactly (a
    /// handful of values): `logits.lse`, `logit_lens.lse`, `loss.per_token`.
    PerPosition,
    /// Weights a derivation reads: a LayerNorm's weight and bias (`blocks.L.ln1.w`, `.b`).
    Parameter,
    /// Queries and keys (`blocks.L.attn.q`, `.k`, and a rotary model's `.q_unrotated`,
    /// `.k_unrotated`): the scores, and through the softmax every
    /// attention weight, are derived from their dot products, which per-row int8 would move
    /// by up to a tenth (a weight by up to 0.02) on a GPT-2-small-shaped model.
    QueryKey,
    /// Everything else: activations, stored per row.
    Activation,
}

impl TensorKind {
    /// The kind of the tensor called `name` (a name from the trace tensor table).
    pub fn of(name: &str) -> TensorKind {
        let last = name.rsplit('.').next().unwrap_or(name);
        if name == "attn.pattern" || name.ends_with(".attn.pattern") || last.ends_with("_probs") {
            TensorKind::Probability
        } else if matches!(
            name,
            "logits.last" | "logits.topk_values" | "logit_lens.topk_logits"
        ) {
            TensorKind::Logit
        } else if last == "ids" || last.ends_with("_ids") {
            TensorKind::Index
        } else if last == "lse" || name == "loss.per_token" {
            TensorKind::PerPosition
        } else if (name.contains(".ln") || name.starts_with("ln_")) && matches!(last, "w" | "b") {
            TensorKind::Parameter
        } else if [
            ".attn.q",
            ".attn.k",
            ".attn.q_unrotated",
            ".attn.k_unrotated",
        ]
        .iter()
        .any(|end| name.ends_with(end))
        {
            TensorKind::QueryKey
        } else {
            TensorKind::Activation
        }
    }

    /// The encoding this kind asks for at `precision`; the codec falls back to f32 when the
    /// values do not allow it (see `codec::encode`).
    pub fn encoding(self, precision: Precision) -> Encoding {
        match (precision, self) {
            (Precision::F32, _) | (_, TensorKind::Index | TensorKind::PerPosition) => Encoding::F32,
            (Precision::F16, _)
            | (Precision::Compact, TensorKind::Parameter | TensorKind::QueryKey) => Encoding::F16,
            (Precision::Compact, TensorKind::Probability) => Encoding::Unorm8,
            (Precision::Compact, TensorKind::Logit) => Encoding::F16Rows,
            (Precision::Compact, TensorKind::Activation) => Encoding::Int8Rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_the_tensor_table_get_their_kinds() {
        let cases = [
            ("blocks.5.attn.pattern", TensorKind::Probability),
            ("blocks.5.attn.scores", TensorKind::Activation),
            ("logits.last", TensorKind::Logit),
            ("logits.topk_values", TensorKind::Logit),
            ("logits.topk_ids", TensorKind::Index),
            ("logits.lse", TensorKind::PerPosition),
            ("logit_lens.lse", TensorKind::PerPosition),
            ("loss.per_token", TensorKind::PerPosition),
            ("logit_lens.topk_logits", TensorKind::Logit),
            ("blocks.3.ln2.w", TensorKind::Parameter),
            ("ln_final.b", TensorKind::Parameter),
            ("logit_lens.topk_ids", TensorKind::Index),
            ("logit_lens.topk_probs", TensorKind::Probability),
            ("embed", TensorKind::Activation),
            ("blocks.0.ln1.std", TensorKind::Activation),
            ("blocks.11.mlp.post", TensorKind::Activation),
            ("ln_final.normalized", TensorKind::Activation),
        ];
        for (name, kind) in cases {
            assert_eq!(TensorKind::of(name), kind, "{name}");
        }
    }

    #[test]
    fn ids_are_exact_under_every_precision() {
        for p in Precision::ALL {
            assert_eq!(TensorKind::Index.encoding(p), Encoding::F32);
        }
        assert_eq!(
            TensorKind::Activation.encoding(Precision::Compact),
            Encoding::Int8Rows
        );
        assert_eq!(
            TensorKind::Probability.encoding(Precision::F16),
            Encoding::F16
        );
    }
}
