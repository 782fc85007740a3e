//! Synthetic experiments for the tiny test trace (2 layers of 2 heads, "The robots will
//! bring"): an ablation with the targets " peace" and " war", and a patching from a
//! corrupted prompt whose second token differs, with effects chosen so the tests know which
//! cell is largest and of which sign.

use crate::testing::preview_interventions::{flow, tokens};
use tracebook_trace::{
    Ablation, AblationMode, Attribution, Candidate, NamedToken, Outcome, Patching, Trace,
};

/// p(" peace") and p(" war") with nothing ablated.
pub const BASE: [f64; 2] = [0.40, 0.10];

/// p(" peace") with each part ablated: `[layer][head 0, head 1, MLP]`. The largest change is
/// head 0 of layer 1 (−25 points); head 1 of layer 1 raises it most (+4).
pub const PEACE: [[f64; 3]; 2] = [[0.38, 0.41, 0.30], [0.15, 0.44, 0.35]];

/// p(" war") the same way: the largest change is head 0 of layer 1 (+20 points).
pub const WAR: [[f64; 3]; 2] = [[0.10, 0.12, 0.11], [0.30, 0.09, 0.05]];

fn outcome(peace: f64, war: f64) -> Outcome {
    Outcome {
        logprobs: vec![peace.ln() as f32, war.ln() as f32],
        top: vec![
            Candidate {
                id: 2,
                text: " peace".to_string(),
                prob: peace as f32,
            },
            Candidate {
                id: 3,
                text: " war".to_string(),
                prob: war as f32,
            },
        ],
    }
}

/// Every head and MLP of the tiny model mean-ablated, for " peace" and " war".
pub fn ablation_run() -> Ablation {
    let part = |l: usize, c: usize| outcome(PEACE[l][c], WAR[l][c]);
    Ablation {
        mode: AblationMode::Mean,
        targets: vec![named(2, " peace"), named(3, " war")],
        base: outcome(BASE[0], BASE[1]),
        heads: (0..2)
            .map(|l| (0..2).map(|h| part(l, h)).collect())
            .collect(),
        mlp: (0..2).map(|l| part(l, 2)).collect(),
    }
}

/// [`ablation_run`] with its first target only.
pub fn one_target() -> Ablation {
    let mut ablation = ablation_run();
    ablation.targets.truncate(1);
    let keep_first = |o: &mut Outcome| o.logprobs.truncate(1);
    keep_first(&mut ablation.base);
    ablation.heads.iter_mut().flatten().for_each(keep_first);
    ablation.mlp.iter_mut().for_each(keep_first);
    ablation
}

fn named(id: u32, text: &str) -> NamedToken {
    NamedToken {
        id,
        text: text.to_string(),
        rule: None,
    }
}

/// The metric with the stream entering `[layer][position]` patched: the corrupted token
/// (position 1) carries the answer early, the last position late.
pub const RESID: [[f32; 4]; 2] = [[0.0, 0.98, 0.0, 0.02], [0.0, 0.35, 0.0, 0.61]];

/// The metric with head `[layer][head]` patched: head 0 of layer 1 restores most, head 1 of
/// layer 0 pushes the wrong way.
pub const HEADS: [[f32; 2]; 2] = [[0.05, -0.2], [0.72, 0.1]];

/// The corrupted prompt "The</svg> will bring" patched from the clean one, measured by
/// logit(" peace") − logit(" war"): 3.2 clean, −1.1 corrupted.
pub fn patching_run() -> Patching {
    let pieces = [(10, "The"), (23, "</svg>"), (12, " will"), (13, " bring")];
    let corrupted_tokens = tokens(&pieces);
    let texts: Vec<&str> = pieces.iter().map(|p| p.1).collect();
    Patching {
        corrupted: texts.concat(),
        corrupted_tokens,
        answer: named(2, " peace"),
        wrong: named(3, " war"),
        clean_diff: 3.2,
        corrupted_diff: -1.1,
        resid: RESID.iter().map(|r| r.to_vec()).collect(),
        heads: HEADS.iter().map(|r| r.to_vec()).collect(),
        attrib_resid: ATTRIB_RESID.iter().map(|r| r.to_vec()).collect(),
        attrib_heads: ATTRIB_HEADS.iter().map(|r| r.to_vec()).collect(),
    }
}

/// Attribution patching's estimates of [`RESID`] and [`HEADS`]: short of the large effects.
pub const ATTRIB_RESID: [[f32; 4]; 2] = [[0.0, 0.7, 0.0, 0.03], [0.0, 0.3, 0.0, 0.5]];
pub const ATTRIB_HEADS: [[f32; 2]; 2] = [[0.04, -0.15], [0.55, 0.12]];

/// Each head's share of logit(" peace") and logit(" war"): `[layer][head][target]`. Head 0 of
/// layer 1 pushes " peace" up most (+2.5) and " war" down most (−1.5).
pub const DLA_HEADS: [[[f32; 2]; 2]; 2] = [[[1.0, -0.2], [0.3, 0.1]], [[2.5, -1.5], [-0.4, 0.2]]];

/// Each MLP's share: `[layer][target]`.
pub const DLA_MLP: [[f32; 2]; 2] = [[0.8, 0.0], [1.2, -0.3]];

/// Gradient × input of ln p(" peace") and ln p(" war") per token of "The robots will bring":
/// `[position][target]`.
pub const SALIENCY_GRAD: [[f32; 2]; 4] = [[0.1, -0.05], [0.9, -0.6], [0.2, 0.1], [-0.3, 0.2]];

/// Integrated gradients the same way; for " peace" they sum to 2.0, about ln 0.4 + 3 = 2.08.
pub const SALIENCY_INTEGRATED: [[f32; 2]; 4] = [[0.2, -0.1], [1.4, -0.5], [0.6, 0.3], [-0.2, 0.1]];

/// The direct logit attribution of " peace" and " war": the embedding 0.5 and 0.4, the
/// biases 0.1 and 0.05; the logits, 6 and −1.25, are the parts' sums.
pub fn attribution_run() -> Attribution {
    let (embed, bias) = ([0.5f32, 0.4], [0.1f32, 0.05]);
    let logit = (0..2)
        .map(|t| {
            let heads: f32 = DLA_HEADS.iter().flatten().map(|h| h[t]).sum();
            let mlp: f32 = DLA_MLP.iter().map(|m| m[t]).sum();
            embed[t] + heads + mlp + bias[t]
        })
        .collect();
    Attribution {
        targets: vec![named(2, " peace"), named(3, " war")],
        logit,
        embed: embed.to_vec(),
        heads: DLA_HEADS.iter().map(|l| l.concat()).collect(),
        mlp: DLA_MLP.iter().map(|m| m.to_vec()).collect(),
        bias: bias.to_vec(),
        grad_input: SALIENCY_GRAD.iter().map(|r| r.to_vec()).collect(),
        integrated: SALIENCY_INTEGRATED.iter().map(|r| r.to_vec()).collect(),
        logprob: vec![0.4f32.ln(), 0.1f32.ln()],
        baseline_logprob: vec![-3.0, -2.5],
        flow: flow(4, 2, &|l, i, j| FLOW[l][i][j]),
    }
}

/// Raw weights of information flow over "The robots will bring", `[layer][to][from]` (the
/// stream keeps 1 at each position): block 0 reads the previous token; block 1 carries
/// " robots" (position 1) to " bring" (weight 3: a share of 0.6), and nothing else far.
pub const FLOW: [[[f32; 4]; 4]; 2] = [
    [
        [0.1, 0.0, 0.0, 0.0],
        [1.0, 0.1, 0.0, 0.0],
        [0.02, 1.0, 0.1, 0.0],
        [0.02, 0.02, 1.0, 0.1],
    ],
    [
        [0.1, 0.0, 0.0, 0.0],
        [0.3, 0.1, 0.0, 0.0],
        [0.02, 0.3, 0.1, 0.0],
        [0.02, 3.0, 0.01, 0.97],
    ],
];

/// `trace` with both experiments.
pub fn with_experiments(mut trace: Trace) -> Trace {
    trace.meta.ablation = Some(ablation_run());
    trace.meta.patching = Some(patching_run());
    trace.meta.attribution = Some(attribution_run());
    trace
}
