//! What each axis of a traced tensor or an experiment's table counts, in words: one
//! description that the claims (which axes carry over to a reader's prompt) and `inspect`
//! (how to label a table's rows, columns and blocks) both read. The experiments' tables are
//! described by the shapes their lists document (`[layers, heads, targets]`), so a new table
//! is described by itself; the traced tensors by their names (docs/trace-format.md).

/// The words for the axes of the tensor or table called `name`, outermost first:
///
/// - `positions`, `queries`, `keys`: positions of the prompt (or of the decoder's or the
///   encoder's text), which a row or column of tokens labels;
/// - `heads`, `layers`, `features`, `ranks` (of a top-k list): the model's parts and sizes;
/// - `vocab`: token ids of the vocabulary;
/// - `targets`: an experiment's targets, in the order its options list them.
///
/// `None` for a name tracebook does not trace.
pub fn axis_names(name: &str) -> Option<Vec<&'static str>> {
    if let Some(shape) = documented_table(name) {
        return Some(shape);
    }
    let exact: Option<&[&str]> = match name {
        "logits.last" => Some(&["vocab"]),
        "logits.lse" | "loss.per_token" => Some(&["positions"]),
        "logits.topk_ids" | "logits.topk_values" => Some(&["positions", "ranks"]),
        "logit_lens.lse" => Some(&["layers", "positions"]),
        "logit_lens.topk_ids" | "logit_lens.topk_logits" | "logit_lens.topk_probs" => {
            Some(&["layers", "positions", "ranks"])
        }
        "embed"
        | "pos_embed"
        | "encoder.embed"
        | "encoder.pos_embed"
        | "decoder.embed"
        | "decoder.pos_embed"
        | "ln_final.normalized" => Some(&["positions", "features"]),
        "ln_final.w" | "ln_final.b" => Some(&["features"]),
        _ => None,
    };
    if let Some(words) = exact {
        return Some(words.to_vec());
    }
    // blocks.L.PART, encoder.blocks.L.PART, decoder.blocks.L.PART
    let rest = name.rsplit_once("blocks.")?.1;
    let (layer, part) = rest.split_once('.')?;
    layer.parse::<usize>().ok()?;
    let attention = ["attn.", "self_attn.", "cross_attn."]
        .iter()
        .find_map(|p| part.strip_prefix(p));
    let words: &[&str] = if let Some(what) = attention {
        match what {
            "pattern" | "scores" => &["heads", "queries", "keys"],
            "q" | "k" | "v" | "z" | "q_unrotated" | "k_unrotated" => {
                &["heads", "positions", "features"]
            }
            _ => return None,
        }
    } else if part.ends_with(".w") || part.ends_with(".b") {
        &["features"]
    } else if part.ends_with(".mean") || part.ends_with(".std") || part.ends_with(".rms") {
        &["positions"]
    } else if ROWS.contains(&part) || part.ends_with(".normalized") || part.starts_with("mlp.") {
        &["positions", "features"]
    } else {
        return None;
    };
    Some(words.to_vec())
}

/// The blocks' tensors with a row per position and a column per feature.
const ROWS: &[&str] = &[
    "attn_out",
    "self_attn_out",
    "cross_attn_out",
    "mlp_out",
    "resid_pre",
    "resid_mid",
    "resid_post",
    "resid_cross",
];

/// The axes an experiment's table list documents for `name` (`"[layers, heads, targets]"`).
fn documented_table(name: &str) -> Option<Vec<&'static str>> {
    let (_, shape, _) = (crate::intervention::TABLES.iter())
        .chain(crate::attribution::TABLES)
        .find(|t| t.0 == name)?;
    Some(
        (shape.trim_matches(['[', ']']).split(','))
            .map(str::trim)
            .filter(|word| !word.is_empty())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::axis_names;

    #[test]
    fn every_kind_of_name_is_described() {
        assert_eq!(
            axis_names("blocks.11.attn.pattern"),
            Some(vec!["heads", "queries", "keys"])
        );
        assert_eq!(
            axis_names("decoder.blocks.0.cross_attn.z"),
            Some(vec!["heads", "positions", "features"])
        );
        assert_eq!(
            axis_names("logit_lens.topk_probs"),
            Some(vec!["layers", "positions", "ranks"])
        );
        assert_eq!(
            axis_names("ablation.heads.prob"),
            Some(vec!["layers", "heads", "targets"])
        );
        assert_eq!(
            axis_names("blocks.2.mlp.gate"),
            Some(vec!["positions", "features"])
        );
        assert_eq!(axis_names("blocks.x.attn.pattern"), None);
        assert_eq!(axis_names("blocks.0.attn.bogus"), None);
    }

    #[test]
    fn every_documented_table_has_named_axes() {
        for (name, shape, _) in crate::intervention::TABLES
            .iter()
            .chain(crate::attribution::TABLES)
        {
            let words = axis_names(name).unwrap();
            assert!(!words.is_empty(), "{name} {shape}");
            assert_eq!(words.len(), shape.matches(',').count() + 1, "{name}");
        }
    }
}
