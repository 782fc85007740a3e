//! Which claims carry over to another prompt: each class on the forms the example's articles
//! use.

use crate::carry::{axes, carry, untraced, Axis, Carry};
use crate::parse::parse;

fn of(claim: &str) -> Carry {
    carry(&parse(claim, 0..claim.len()).expect("the claim parses"))
}

/// The part of `claim` that ties it to the author's prompt.
fn tie(claim: &str) -> &str {
    match of(claim) {
        Carry::Author { span, .. } => &claim[span],
        other => panic!("{claim} should be the author's only, is {other:?}"),
    }
}

#[test]
fn roles_whole_ranges_and_the_models_parts_carry_as_written() {
    for claim in [
        "argmax(blocks.1.attn.pattern[2, -1, :]) == last() - 1",
        "argmax(blocks.1.attn.pattern[2, last(), :]) == first()",
        "max(blocks.0.attn.pattern) <= 1",
        "all(q in 0:, blocks.0.attn.pattern[0, q, 0] > 0)",
        "all(h in 0:4, max(blocks.3.attn.pattern[h, -1, :]) > 0.1)",
        "guess(1) in top(3)",
        "prob(guess(1)) > 0.2",
        "argmax(logits.last) == guess(1)",
        "blocks.2.ln1.std[-2] > 0.5",
        "mean(blocks.0.mlp.post[:, 5]) > 0",
        "logit_lens.topk_ids[3, -1, 0] == guess(1)",
        "count() > 3",
        "rank(logits.last, guess(2)) == 2",
    ] {
        assert_eq!(of(claim), Carry::Always, "{claim}");
    }
}

#[test]
fn a_token_found_by_its_text_carries_where_the_text_has_it() {
    assert_eq!(
        of("argmax(blocks.1.attn.pattern[2, pos(\" it\"), :]) == pos(\" animal\")"),
        Carry::IfPresent {
            prompt: vec![" it".into(), " animal".into()],
            written: vec![],
            repeats: false,
        }
    );
    assert_eq!(
        of("decoder.blocks.0.cross_attn.pattern[1, wrote(\" fichier\"), 0] > 0.3"),
        Carry::IfPresent {
            prompt: vec![],
            written: vec![" fichier".into()],
            repeats: false,
        }
    );
}

#[test]
fn a_claim_about_an_earlier_occurrence_carries_where_the_text_repeats() {
    let copying = "argmax(blocks.1.attn.pattern[2, last(), :]) == earlier(last()) + 1";
    assert_eq!(
        of(copying),
        Carry::IfPresent {
            prompt: vec![],
            written: vec![],
            repeats: true,
        }
    );
    assert!(of(copying).why().contains("twice"), "{}", of(copying).why());
    assert_eq!(
        of("guess(1) == id(earlier(-1) + 1)"),
        Carry::IfPresent {
            prompt: vec![],
            written: vec![],
            repeats: true,
        }
    );
    assert_eq!(tie("earlier(7) == 2"), "7");
}

#[test]
fn literal_positions_and_expected_tokens_are_the_authors() {
    assert_eq!(tie("blocks.1.attn.pattern[2, 8, 6] > 0.4"), "8");
    assert_eq!(tie("argmax(blocks.1.attn.pattern[2, -1, :]) == 6"), "6");
    assert_eq!(
        tie("all(q in 3:, blocks.0.attn.pattern[0, q, 0] > 0.5)"),
        "3"
    );
    assert_eq!(tie("token(4) == token(-1)"), "4");
    assert_eq!(tie("\" the\" in top(1)"), "\" the\"");
    assert_eq!(tie("prob(\" I\") > 0.1"), "\" I\"");
    assert_eq!(tie("id(-1) == 464"), "464");
    assert_eq!(
        tie("ablation.heads.prob[1, 2, target(\" was\")] < 0.3"),
        "target(\" was\")"
    );
    assert_eq!(tie("dla.mlp[0, 1] > 0"), "1");
    assert_eq!(tie("max(patching.heads) > 0.5"), "patching.heads");
    let Carry::Author { why, .. } = of("blocks.1.attn.pattern[2, 8, 6] > 0.4") else {
        unreachable!()
    };
    assert!(
        why.contains("position 8") && why.contains("last()"),
        "{why}"
    );
}

#[test]
fn a_quantifier_over_heads_or_layers_is_not_over_positions() {
    // 4 bounds heads here, not positions: the claim carries.
    assert_eq!(
        of("all(h in 1:4, blocks.0.attn.pattern[h, -1, 0] > 0.1)"),
        Carry::Always
    );
}

#[test]
fn every_traced_tensor_has_its_axes() {
    use Axis::{Part, Position, Vocab};
    assert_eq!(
        axes("blocks.11.attn.pattern"),
        Some(vec![Part, Position, Position])
    );
    assert_eq!(
        axes("decoder.blocks.0.cross_attn.scores"),
        Some(vec![Part, Position, Position])
    );
    assert_eq!(
        axes("encoder.blocks.2.mlp.post"),
        Some(vec![Position, Part])
    );
    assert_eq!(axes("blocks.0.ln1.rms"), Some(vec![Position]));
    assert_eq!(axes("blocks.0.mlp.gate"), Some(vec![Position, Part]));
    assert_eq!(axes("logits.last"), Some(vec![Vocab]));
    assert_eq!(
        axes("logit_lens.topk_probs"),
        Some(vec![Part, Position, Part])
    );
    assert_eq!(axes("blocks.x.attn.pattern"), None);
}

#[test]
fn experiments_a_reader_s_text_reruns_carry_where_their_targets_are_named_by_rule() {
    use Axis::{Part, Position, Target};
    assert_eq!(axes("ablation.prob"), Some(vec![Target]));
    assert_eq!(axes("dla.heads"), Some(vec![Part, Part, Target]));
    assert_eq!(axes("saliency.integrated"), Some(vec![Position, Target]));
    assert_eq!(axes("flow.attn"), Some(vec![Part, Position, Position]));
    for claim in [
        "ablation.heads.prob[1, 2, target(guess(1))] < 0.3",
        "max(dla.heads[:, :, target(guess(1))]) < 0.5",
        "argmax(saliency.integrated[:, target(guess(2))]) == last()",
        "argmax(flow.attn[0, last(), :]) == first()",
        "min(flow.residual[2:, -1]) > 0.9",
    ] {
        assert_eq!(of(claim), Carry::Always, "{claim}");
    }
    assert_eq!(tie("flow.attn[0, 4, 0] > 0.2"), "4");
}

#[test]
fn every_experiment_table_has_its_axes_but_patching_s() {
    let tables = (tracebook_trace::EXPERIMENT_TABLES.iter())
        .chain(tracebook_trace::ATTRIBUTION_TABLES)
        .map(|t| t.0);
    for name in tables {
        if name.starts_with("patching.") {
            assert_eq!(axes(name), None, "{name}");
            assert!(untraced(name).contains("corrupted text"), "{name}");
        } else {
            let axes = axes(name).unwrap_or_else(|| panic!("{name} has no axes"));
            assert!(!axes.is_empty(), "{name}");
        }
    }
}
