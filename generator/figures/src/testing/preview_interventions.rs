//! Experiments for the preview's GPT-2-small-shaped traces (12 layers of 12 heads), shaped
//! like what factual recall gives in real GPT-2: an ablation where the first MLP and a few
//! late heads carry the answer, and a patching where the subject's last token carries it up
//! to the middle layers and the last position from there on. Small pseudo-random effects
//! everywhere else, so the grids look measured, not drawn.

use tracebook_trace::{
    Ablation, AblationMode, Attribution, Flow, NamedToken, Outcome, Patching, Token,
};

const LAYERS: usize = 12;
const HEADS: usize = 12;

/// A small deterministic wobble in [−1, 1] for cell (`a`, `b`, `c`).
fn noise(a: usize, b: usize, c: usize) -> f64 {
    let mut x = (a as u64 * 73_856_093) ^ (b as u64 * 19_349_663) ^ (c as u64 * 83_492_791);
    x = x
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    ((x >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
}

/// Every head and MLP ablated for `targets` (id, text, p with nothing ablated), the change in
/// ln p of target t at (layer, column) given by `effect` (column `HEADS` is the MLP).
pub fn ablation(
    targets: &[(u32, &str, f64)],
    mode: AblationMode,
    effect: &dyn Fn(usize, usize, usize) -> f64,
) -> Ablation {
    let outcome = |l: Option<(usize, usize)>| Outcome {
        logprobs: (targets.iter().enumerate())
            .map(|(t, &(_, _, p))| (p.ln() + l.map_or(0.0, |(l, c)| effect(t, l, c))) as f32)
            .collect(),
        top: Vec::new(),
    };
    Ablation {
        mode,
        targets: (targets.iter())
            .map(|&(id, text, _)| NamedToken {
                id,
                text: text.to_string(),
                rule: None,
            })
            .collect(),
        base: outcome(None),
        heads: (0..LAYERS)
            .map(|l| (0..HEADS).map(|h| outcome(Some((l, h)))).collect())
            .collect(),
        mlp: (0..LAYERS).map(|l| outcome(Some((l, HEADS)))).collect(),
    }
}

/// The direct logit attribution of `targets` (id, text): each head's and MLP's share of
/// target t at (layer, column) four times what its ablation takes from ln p (`effect`,
/// negated: a part whose ablation lowers the target wrote it up), the embedding's and the
/// biases' shares small; the logit is their sum.
pub fn attribution(
    targets: &[(u32, &str)],
    tokens: usize,
    effect: &dyn Fn(usize, usize, usize) -> f64,
) -> Attribution {
    let k = targets.len();
    let share = |t: usize, l: usize, c: usize| (-4.0 * effect(t, l, c)) as f32;
    let embed: Vec<f32> = (0..k).map(|t| 0.8 - 0.5 * t as f32).collect();
    let bias: Vec<f32> = (0..k).map(|t| 0.12 + 0.05 * t as f32).collect();
    let heads: Vec<Vec<f32>> = (0..LAYERS)
        .map(|l| {
            (0..HEADS)
                .flat_map(|h| (0..k).map(move |t| share(t, l, h)))
                .collect()
        })
        .collect();
    let mlp: Vec<Vec<f32>> = (0..LAYERS)
        .map(|l| (0..k).map(|t| share(t, l, HEADS)).collect())
        .collect();
    let logit = (0..k)
        .map(|t| {
            let parts = (0..LAYERS).flat_map(|l| (0..=HEADS).map(move |c| (l, c)));
            embed[t] + bias[t] + parts.map(|(l, c)| share(t, l, c)).sum::<f32>()
        })
        .collect();
    Attribution {
        targets: (targets.iter())
            .map(|&(id, text)| NamedToken {
                id,
                text: text.to_string(),
                rule: None,
            })
            .collect(),
        logit,
        embed,
        heads,
        mlp,
        bias,
        grad_input: saliency(tokens, k, 0.8),
        integrated: saliency(tokens, k, 1.0),
        logprob: (0..k).map(|t| -0.9 - t as f32).collect(),
        baseline_logprob: (0..k)
            .map(|t| -0.9 - t as f32 - saliency(tokens, k, 1.0).iter().map(|r| r[t]).sum::<f32>())
            .collect(),
        flow: flow(tokens, LAYERS, &|l, i, j| {
            // Early blocks read the previous token, late ones carry the subject (position 2)
            // to the last; a little from everywhere.
            let wobble = 0.04 * (1.0 + noise(l, i, j)) as f32;
            match (l, i, j) {
                (0..=3, i, j) if j + 1 == i => 1.2,
                (6..=9, i, 2) if i + 1 == tokens => 1.6,
                (_, i, 0) if i > 0 => 0.3 + wobble,
                _ => wobble,
            }
        }),
    }
}

/// Information flow over `tokens` positions and `layers` blocks: at position `i` of block
/// `l`, the stream keeps a raw weight of 1 and token `j ≤ i` gives `weight(l, i, j)`, shared
/// out to sum to 1; the MLPs write a share that grows with depth.
pub fn flow(tokens: usize, layers: usize, weight: &dyn Fn(usize, usize, usize) -> f32) -> Flow {
    let mut out = Flow::default();
    for l in 0..layers {
        let mut attn = vec![0.0; tokens * tokens];
        let mut residual = Vec::new();
        for i in 0..tokens {
            let total: f32 = 1.0 + (0..=i).map(|j| weight(l, i, j)).sum::<f32>();
            for j in 0..=i {
                attn[i * tokens + j] = weight(l, i, j) / total;
            }
            residual.push(1.0 / total);
        }
        out.attn.push(attn);
        out.residual.push(residual);
        out.mlp.push(
            (0..tokens)
                .map(|i| 0.05 + 0.3 * l as f32 / layers as f32 + 0.01 * i as f32)
                .collect(),
        );
    }
    out
}

/// A saliency table `[position][target]`: the first and the last tokens matter most, the
/// others a little, scaled by `scale`.
fn saliency(tokens: usize, k: usize, scale: f32) -> Vec<Vec<f32>> {
    (0..tokens)
        .map(|p| {
            (0..k)
                .map(|t| {
                    let base = if p == 0 || p + 1 == tokens { 1.2 } else { 0.1 };
                    scale * (base * (1.0 - 0.4 * t as f32) + 0.05 * noise(p, t, 3) as f32)
                })
                .collect()
        })
        .collect()
}

/// "The Eiffel Tower is in the city of": " Paris" leans on the first MLP, the late MLPs and
/// heads 9.8 and 10.0; head 11.10 works against it. " Rome" moves the other way, less.
pub fn eiffel_effect(t: usize, l: usize, c: usize) -> f64 {
    let named = match (l, c) {
        (0, HEADS) => -0.95,
        (8, HEADS) => -0.42,
        (9, 8) => -0.36,
        (10, 0) => -0.21,
        (10, HEADS) => -0.18,
        (9, 9) => -0.09,
        (11, 10) => 0.16,
        _ => 0.006 * noise(t, l, c),
    };
    if t == 0 {
        named
    } else {
        -0.6 * named + 0.006 * noise(l, c, 7)
    }
}

/// The tokens of `texts` from `ids`, laid end to end.
pub fn tokens(pieces: &[(u32, &str)]) -> Vec<Token> {
    let mut start = 0;
    (pieces.iter())
        .map(|&(id, text)| {
            let token = Token {
                id,
                text: text.to_string(),
                start,
                end: start + text.len(),
            };
            start = token.end;
            token
        })
        .collect()
}

/// A patching into the corrupted tokens `corrupted`, which differ from the clean ones from
/// `first` to `subject`: the last of them carries the answer through layer 7, the last
/// position from layer 8 on; heads 9.8 and 10.0 move it.
pub fn patching(
    corrupted: Vec<Token>,
    (first, subject): (usize, usize),
    answer: (u32, &str),
    wrong: (u32, &str),
) -> Patching {
    let n = corrupted.len();
    let resid: Vec<Vec<f32>> = (0..LAYERS)
        .map(|l| {
            (0..n)
                .map(|p| resid_score(l, p, (first, subject), n) as f32)
                .collect()
        })
        .collect();
    let heads: Vec<Vec<f32>> = (0..LAYERS)
        .map(|l| (0..HEADS).map(|h| head_score(l, h) as f32).collect())
        .collect();
    let named = |(id, text): (u32, &str)| NamedToken {
        id,
        text: text.to_string(),
        rule: None,
    };
    Patching {
        corrupted: corrupted.iter().map(|t| t.text.as_str()).collect(),
        corrupted_tokens: corrupted,
        answer: named(answer),
        wrong: named(wrong),
        clean_diff: 3.21,
        corrupted_diff: -1.08,
        attrib_resid: estimated(&resid),
        attrib_heads: estimated(&heads),
        resid,
        heads,
    }
}

/// Attribution patching's estimate of `exact`, as it goes in real models: close where the
/// effect is small, short of the large effects (the first-order term misses saturation).
fn estimated(exact: &[Vec<f32>]) -> Vec<Vec<f32>> {
    (exact.iter().enumerate())
        .map(|(l, row)| {
            (row.iter().enumerate())
                .map(|(c, &v)| v - 0.35 * v * v.abs() + (0.02 * noise(l, c, 7)) as f32)
                .collect()
        })
        .collect()
}

/// Positions before the first corrupted one (`first`) run alike in both prompts: patching
/// them changes nothing.
fn resid_score(l: usize, p: usize, (first, subject): (usize, usize), n: usize) -> f64 {
    let wobble = 0.004 * noise(l, p, 3);
    if p < first {
        0.0
    } else if p == subject {
        (1.0 - 0.16 * l.saturating_sub(6) as f64).max(0.0) + wobble
    } else if p + 1 == n {
        (0.2 * l.saturating_sub(6) as f64).min(1.0) + wobble
    } else if p < subject && l < 4 {
        0.12 + wobble
    } else {
        wobble
    }
}

fn head_score(l: usize, h: usize) -> f64 {
    match (l, h) {
        (9, 8) => 0.31,
        (10, 0) => 0.22,
        (9, 9) => 0.12,
        (8, 1) => 0.08,
        (11, 10) => -0.14,
        _ => 0.006 * noise(l, h, 5),
    }
}
