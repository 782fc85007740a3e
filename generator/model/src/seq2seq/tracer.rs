//! An encoder-decoder's trace: the prompt is the source text. The encoder runs once over its
//! tokens and `</s>`; the decoder translates greedily (each step's likeliest token, until
//! `</s>` or the prompt's `generate` tokens, else the model's context); then one recorded
//! pass of the decoder over what it wrote gives every `decoder.*` tensor, its causal mask
//! making each position's states those the step-by-step run had. Each step's candidates are
//! `generation`, as for a decoder-only prompt's continuation.

use super::loaded::Seq2SeqModel;
use crate::error::{ModelError, Result};
use crate::recorder::TraceRecorder;
use crate::topk::{softmax, top_k};
use crate::tracer::{prompt_label, TraceRequest};
use std::collections::BTreeMap;
use tracebook_trace::{Candidate, GenerationStep, Token, Trace, TraceMeta, Translation};

/// The trace of `request`'s source text and its translation.
pub fn trace(model: &Seq2SeqModel, request: &TraceRequest) -> Result<Trace> {
    refuse_unsupported(request)?;
    let config = &model.config;
    let text = &request.prompt.text;
    let source = model.tokenizer.encode_source(text)?;
    let limit = config.max_position_embeddings;
    if source.len() > limit {
        return Err(ModelError::TooLong {
            name: prompt_label(request),
            model: model.files.id.clone(),
            tokens: source.len(),
            generate: 0,
            limit,
        });
    }
    let ids: Vec<u32> = source.iter().map(|t| t.id).collect();
    let most = match request.prompt.options.generate {
        0 => limit - 1,
        n => n.min(limit - 1),
    };
    let written = model.net.translate_greedy(&ids, most)?;
    let inputs: Vec<u32> = std::iter::once(config.decoder_start_token_id)
        .chain(written[..written.len() - 1].iter().copied())
        .collect();

    let mut trace = Trace::new(TraceMeta {
        tool: format!("tracebook {}", env!("CARGO_PKG_VERSION")),
        name: request.name.to_string(),
        model: model.info(),
        prompt: request.prompt.clone(),
        options: request.options.clone(),
        tokens: source,
        generation: Vec::new(),
        token_texts: BTreeMap::new(),
        training: None,
        merges: Vec::new(),
        beam: None,
        ablation: None,
        patching: None,
        translation: None,
    });
    let logits = {
        let mut recorder = TraceRecorder::new(&mut trace, |_| false);
        let memory = model.net.encode(&ids, &mut recorder)?;
        model.net.decode(&memory, &inputs, &mut recorder)?
    };
    let rows = logits.to_vec2::<f32>()?;
    let k = request.options.top_k;
    let mut texts = BTreeMap::new();
    let mut text_of = |id: u32| -> String {
        texts
            .entry(id)
            .or_insert_with(|| model.tokenizer.token_text(id))
            .clone()
    };
    let generation = rows
        .iter()
        .zip(&written)
        .map(|(row, &id)| {
            let probs = softmax(row);
            GenerationStep {
                id,
                text: text_of(id),
                prob: probs[id as usize],
                top: top_k(&probs, k)
                    .into_iter()
                    .map(|(id, prob)| Candidate {
                        id,
                        text: text_of(id),
                        prob,
                    })
                    .collect(),
            }
        })
        .collect();
    trace.meta.translation = Some(translation(model, &written)?);
    trace.meta.tokens.iter().for_each(|t| {
        text_of(t.id);
    });
    trace.meta.generation = generation;
    trace.meta.token_texts = texts;
    Ok(trace)
}

/// What a translation trace does not do (yet): sampling, beams, interventions.
fn refuse_unsupported(request: &TraceRequest) -> Result<()> {
    let o = &request.prompt.options;
    let asked = [
        ("temperature", o.temperature.is_some()),
        ("top_k", o.top_k.is_some()),
        ("top_p", o.top_p.is_some()),
        ("beams", o.beams.is_some()),
        ("ablate", o.ablate.is_some()),
        ("patch", o.patch.is_some()),
    ];
    match asked.iter().find(|(_, set)| *set) {
        Some((option, _)) => Err(ModelError::Prompt(format!(
            "{} asks for `{option}`, which tracebook does not do with an encoder-decoder yet\n  \
             hint: leave it out: the translation is greedy (`generate` caps its length)",
            prompt_label(request)
        ))),
        None => Ok(()),
    }
}

/// The decoder's positions as tokens: the start token, then each written token but the last,
/// with its span in the translation's text (special tokens: an empty span where they stand).
fn translation(model: &Seq2SeqModel, written: &[u32]) -> Result<Translation> {
    let c = &model.config;
    let special = |id: u32| id == c.eos_token_id || id == c.pad_token_id;
    let start = Token {
        id: c.decoder_start_token_id,
        text: model.tokenizer.token_text(c.decoder_start_token_id),
        start: 0,
        end: 0,
    };
    let mut tokens = vec![start];
    let mut shown: Vec<u32> = Vec::new();
    let mut text = String::new();
    for &id in written {
        let from = text.len();
        if !special(id) {
            shown.push(id);
            text = model.tokenizer.decode(&shown)?;
        }
        tokens.push(Token {
            id,
            text: model.tokenizer.token_text(id),
            start: from,
            end: text.len(),
        });
    }
    // The last token written is no position of the decoder (only its prediction is).
    tokens.pop();
    Ok(Translation { text, tokens })
}
