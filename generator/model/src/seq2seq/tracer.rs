//! An encoder-decoder's trace: the prompt is the source text. The encoder runs once over its
//! tokens and `</s>`; the decoder writes a token at a time from the encoder's output, with
//! the sampler a decoder-only prompt's continuation uses (greedy unless a `temperature` is
//! given), until `</s>` or the prompt's `generate` tokens, else the model's context; then one
//! recorded pass of the decoder over what it wrote gives every `decoder.*` tensor, its causal
//! mask making each position's states those the step-by-step run had. Each step's candidates
//! are `generation`, and `beams = N` records the beam-search tree from the decoder's start
//! token (branches end at `</s>`), both as for a decoder-only prompt.

use super::loaded::Seq2SeqModel;
use crate::error::{ModelError, Result};
use crate::generate::{grow_beam_tree, sample_steps, Step, Until};
use crate::recorder::{NoRecorder, TraceRecorder};
use crate::tracer::{generation, name_beam, prompt_label, TraceRequest};
use candle_core::Tensor;
use std::collections::BTreeMap;
use tracebook_trace::{BeamTree, Token, Trace, TraceMeta, Translation};

/// The trace of `request`'s source text and its translation.
pub fn trace(model: &Seq2SeqModel, request: &TraceRequest) -> Result<Trace> {
    refuse_unsupported(request)?;
    let config = &model.config;
    let (source, most) = read_source(model, request)?;
    let ids: Vec<u32> = source.iter().map(|t| t.id).collect();
    let (steps, beam) = translate(model, &ids, request, most)?;
    let written: Vec<u32> = steps.iter().map(|s| s.id).collect();
    let inputs: Vec<u32> = std::iter::once(config.decoder_start_token_id)
        .chain(written[..written.len() - 1].iter().copied())
        .collect();

    let meta = TraceMeta::new(
        format!("tracebook {}", env!("CARGO_PKG_VERSION")),
        request.name,
        model.info(),
        request.prompt.clone(),
        request.options.clone(),
        source,
    );
    let mut trace = Trace::new(meta);
    {
        let mut recorder = TraceRecorder::new(&mut trace, |_| false);
        let memory = model.net.encode(&ids, &mut recorder)?;
        model.net.decode(&memory, &inputs, &mut recorder)?;
    }
    let mut texts = BTreeMap::new();
    let mut text_of = |id: u32| -> String {
        texts
            .entry(id)
            .or_insert_with(|| model.tokenizer.token_text(id))
            .clone()
    };
    ids.iter().for_each(|&id| {
        text_of(id);
    });
    name_beam(beam.as_ref(), &mut text_of);
    trace.meta.generation = generation(&steps, &mut text_of);
    trace.meta.translation = Some(translation(model, &written)?);
    trace.meta.token_texts = texts;
    trace.meta.beam = beam;
    Ok(trace)
}

/// The source's tokens (`</s>` last), and the most tokens the decoder may write.
fn read_source(model: &Seq2SeqModel, request: &TraceRequest) -> Result<(Vec<Token>, usize)> {
    let source = model.tokenizer.encode_source(&request.prompt.text)?;
    let limit = model.config.max_position_embeddings;
    if source.len() > limit {
        return Err(ModelError::TooLong {
            name: prompt_label(request),
            model: model.files.id.clone(),
            tokens: source.len(),
            generate: 0,
            limit,
        });
    }
    let most = match request.prompt.options.generate {
        0 => limit - 1,
        n => n.min(limit - 1),
    };
    Ok((source, most))
}

/// The encoder run once over the source `ids`, then the decoder step by step from its start
/// token: the steps it wrote (each with its `top_k` candidates, until `</s>` or `most`
/// tokens) and the beam-search tree, if the prompt asks for one.
fn translate(
    model: &Seq2SeqModel,
    ids: &[u32],
    request: &TraceRequest,
    most: usize,
) -> Result<(Vec<Step>, Option<BeamTree>)> {
    let config = &model.config;
    let memory = model.net.encode(ids, &mut NoRecorder)?;
    let mut next = |target: &[u32]| -> Result<Tensor> {
        let logits = model.net.decode(&memory, target, &mut NoRecorder)?;
        Ok(logits.get(target.len() - 1)?)
    };
    let start = [config.decoder_start_token_id];
    let options = &request.prompt.options;
    let eos = Some(config.eos_token_id);
    let until = Until { most, stop: eos };
    let steps = sample_steps(&mut next, &start, options, until, request.options.top_k)?;
    let beam = grow_beam_tree(&mut next, &start, options, eos)?;
    Ok((steps, beam))
}

/// What a translation trace does not do (yet): interventions.
fn refuse_unsupported(request: &TraceRequest) -> Result<()> {
    let o = &request.prompt.options;
    let asked = [
        ("ablate", o.ablate.is_some()),
        ("patch", o.patch.is_some()),
        ("attribute", o.attribute.is_some()),
    ];
    match asked.iter().find(|(_, set)| *set) {
        Some((option, _)) => Err(ModelError::Prompt(format!(
            "{} asks for `{option}`, which tracebook does not do with an encoder-decoder yet\n  \
             hint: leave it out: a translation takes `generate`, `temperature`, `top_k`, \
             `top_p`, `seed` and `beams`",
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
