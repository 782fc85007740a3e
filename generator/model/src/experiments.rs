//! A prompt's `ablate`, `patch` and `attribute` options run on the model and written as the
//! trace keeps them (`TraceMeta::ablation`, `TraceMeta::patching`, `TraceMeta::attribution`):
//! token texts named, patching's logit differences normalised between the clean and corrupted
//! runs.

use crate::attribute::direct_logit_attribution;
use crate::attribute::flow::information_flow;
use crate::attribute::saliency::saliency;
use crate::error::{ModelError, Result};
use crate::intervene::{ablate, patch, Next};
use crate::model::Model;
use tracebook_trace::targets::Target;
use tracebook_trace::{
    Ablation, AblationSpec, Attribution, AttributionSpec, Candidate, Flow, NamedToken, Outcome,
    PatchSpec, Patching, Token,
};

/// Texts of token ids, as the trace's `token_texts` records them.
pub type TextOf<'a> = dyn FnMut(u32) -> String + 'a;

/// Each head and MLP of the run over `tokens` ablated in turn.
pub fn ablation(
    model: &Model,
    tokens: &[Token],
    spec: &AblationSpec,
    k: usize,
    guesses: &[u32],
    text_of: &mut TextOf,
) -> Result<Ablation> {
    let targets = (spec.targets.iter())
        .map(|t| target(model, "ablate's target", t, guesses, text_of))
        .collect::<Result<Vec<_>>>()?;
    let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
    let target_ids: Vec<u32> = targets.iter().map(|t| t.id).collect();
    let runs = ablate(&model.net, &ids, &target_ids, spec.mode, k)?;
    let mut outcome = |n: &Next| Outcome {
        logprobs: n.logprobs.clone(),
        top: (n.top.iter())
            .map(|&(id, prob)| Candidate {
                id,
                text: text_of(id),
                prob,
            })
            .collect(),
    };
    Ok(Ablation {
        mode: spec.mode,
        targets,
        base: outcome(&runs.base),
        heads: (runs.heads.iter())
            .map(|l| l.iter().map(&mut outcome).collect())
            .collect(),
        mlp: runs.mlp.iter().map(&mut outcome).collect(),
    })
}

/// The run over `tokens` (clean) patched into the spec's corrupted text, site by site.
pub fn patching(
    model: &Model,
    tokens: &[Token],
    spec: &PatchSpec,
    special: bool,
    text_of: &mut TextOf,
) -> Result<Patching> {
    let corrupted = model.tokenizer.encode_as(&spec.corrupted, special)?;
    if corrupted.len() != tokens.len() {
        let list = |t: &[Token]| {
            let texts: Vec<String> = t.iter().map(|t| format!("{:?}", t.text)).collect();
            texts.join(" ")
        };
        return Err(ModelError::Prompt(format!(
            "patch's corrupted text is {} tokens and the prompt is {}; patching \
             copies activations position by position, so both need the same count\n  \
             prompt:    {}\n  corrupted: {}\n  hint: change words of the corrupted text for \
             others of as many tokens",
            corrupted.len(),
            tokens.len(),
            list(tokens),
            list(&corrupted),
        )));
    }
    let answer = named(model, "patch's answer", &spec.answer, text_of)?;
    let wrong = named(model, "patch's wrong", &spec.wrong, text_of)?;
    let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
    let corrupted_ids: Vec<u32> = corrupted.iter().map(|t| t.id).collect();
    let runs = patch(&model.net, &ids, &corrupted_ids, answer.id, wrong.id)?;
    if (runs.clean - runs.corrupted).abs() < 1e-6 {
        return Err(ModelError::Prompt(format!(
            "the clean and corrupted runs give the same logit difference \
             logit({:?}) − logit({:?}) = {}, so no patch can move it\n  hint: choose a \
             corrupted text that changes the answer",
            spec.answer, spec.wrong, runs.clean
        )));
    }
    let mut patching = Patching {
        corrupted: spec.corrupted.clone(),
        corrupted_tokens: corrupted,
        answer,
        wrong,
        clean_diff: runs.clean,
        corrupted_diff: runs.corrupted,
        resid: Vec::new(),
        heads: Vec::new(),
        attrib_resid: runs.estimate.resid.clone(),
        attrib_heads: runs.estimate.heads.clone(),
    };
    let normalise = |rows: &[Vec<f32>], p: &Patching| -> Vec<Vec<f32>> {
        let row = |r: &Vec<f32>| r.iter().map(|&d| p.metric(d)).collect();
        rows.iter().map(row).collect()
    };
    patching.resid = normalise(&runs.resid, &patching);
    patching.heads = normalise(&runs.heads, &patching);
    Ok(patching)
}

/// Each target's logit at the last position split among the model's parts.
pub fn attribution(
    model: &Model,
    tokens: &[Token],
    spec: &AttributionSpec,
    guesses: &[u32],
    text_of: &mut TextOf,
) -> Result<Attribution> {
    let targets = (spec.targets.iter())
        .map(|t| target(model, "attribute's target", t, guesses, text_of))
        .collect::<Result<Vec<_>>>()?;
    let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
    let target_ids: Vec<u32> = targets.iter().map(|t| t.id).collect();
    let a = direct_logit_attribution(&model.net, &ids, &target_ids)?;
    let s = saliency(&model.net, &ids, &target_ids)?;
    let flow = information_flow(&model.net, &ids)?;
    let t = ids.len();
    let square = |rows: &Vec<Vec<f32>>| -> Vec<f32> {
        (rows.iter())
            .flat_map(|row| (0..t).map(|j| row.get(j).copied().unwrap_or(0.0)))
            .collect()
    };
    Ok(Attribution {
        targets,
        logit: a.logit,
        embed: a.embed,
        heads: a.heads.iter().map(|layer| layer.concat()).collect(),
        mlp: a.mlp,
        bias: a.bias,
        grad_input: s.grad_input,
        integrated: s.integrated,
        logprob: s.logprob,
        baseline_logprob: s.baseline_logprob,
        flow: Flow {
            attn: flow.attn.iter().map(square).collect(),
            residual: flow.residual,
            mlp: flow.mlp,
        },
    })
}

/// A target of `ablate` or `attribute`: a token named by its text, or by rule (`guess(k)`,
/// the k-th of `guesses`, the model's likeliest next tokens after the prompt).
fn target(
    model: &Model,
    what: &str,
    entry: &str,
    guesses: &[u32],
    text_of: &mut TextOf,
) -> Result<NamedToken> {
    match Target::parse(entry).map_err(ModelError::Prompt)? {
        Target::Text(text) => named(model, what, text, text_of),
        Target::Guess(k) => {
            let id = *guesses.get(k - 1).ok_or_else(|| {
                ModelError::Prompt(format!(
                    "{what} {entry:?}: the model's vocabulary has only {} tokens",
                    guesses.len()
                ))
            })?;
            Ok(NamedToken {
                id,
                text: text_of(id),
                rule: Some(format!("guess({k})")),
            })
        }
    }
}

/// A token the author named by its text, which must be one token of the model.
fn named(model: &Model, what: &str, text: &str, text_of: &mut TextOf) -> Result<NamedToken> {
    match model.tokenizer.single_token(text) {
        Some(id) => Ok(NamedToken {
            id,
            text: text_of(id),
            rule: None,
        }),
        None => {
            let pieces = model.tokenizer.encode(text)?;
            let pieces: Vec<String> = pieces.iter().map(|t| format!("{:?}", t.text)).collect();
            Err(ModelError::Prompt(format!(
                "{what} {text:?} is not one token of {}: it reads as {}\n  hint: \
                 name a single token, often with its leading space (\" Paris\")",
                model.files.id,
                pieces.join(" + ")
            )))
        }
    }
}
