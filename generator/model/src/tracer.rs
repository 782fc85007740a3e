//! Running one prompt with recording on and turning what was recorded into a trace.

use crate::derived::derive;
use crate::error::{ModelError, Result};
use crate::experiments::{ablation, attribution, patching, TextOf};
use crate::generate::{beam_tree, generate, Step};
use crate::model::Model;
use crate::recorder::TraceRecorder;
use std::collections::BTreeMap;
use tracebook_trace::{
    BeamTree, Candidate, GenerationStep, PromptSpec, Token, Trace, TraceMeta, TraceOptions,
};

/// What to trace: a named prompt and the trace options of the site.
pub struct TraceRequest<'a> {
    /// The prompt's name in the site ("" for an ad-hoc prompt).
    pub name: &'a str,
    pub prompt: &'a PromptSpec,
    pub options: TraceOptions,
}

/// Run the prompt through the model, recording every tensor of the trace table, then generate
/// the continuation the prompt asks for.
pub fn trace(model: &Model, request: &TraceRequest) -> Result<Trace> {
    let tokens = tokenize(model, request)?;
    let ids: Vec<u32> = tokens.iter().map(|t| t.id).collect();
    let mut meta = TraceMeta::new(
        format!("tracebook {}", env!("CARGO_PKG_VERSION")),
        request.name,
        model.info(),
        request.prompt.clone(),
        request.options.clone(),
        tokens,
    );
    meta.training = model.training.clone();
    let mut trace = Trace::new(meta);
    // Each tensor is encoded as the forward pass records it; only the residual streams the
    // logit lens reads stay as f32.
    let mut recorder = TraceRecorder::new(&mut trace, |name| name.ends_with(".resid_post"));
    let logits = model.net.forward(&ids, &mut recorder)?;
    let kept = recorder.kept;
    let k = request.options.top_k;
    let derived = derive(
        &model.net,
        &ids,
        logits,
        &kept,
        k,
        request.options.precision,
    )?;
    drop(kept);
    let steps = generate(&model.net, &ids, &request.prompt.options, k)?;
    let beam = beam_tree(&model.net, &ids, &request.prompt.options)?;
    let mut texts = BTreeMap::new();
    let mut text_of = |id: u32| -> String {
        texts
            .entry(id)
            .or_insert_with(|| model.tokenizer.token_text(id))
            .clone()
    };
    ids.iter().chain(&derived.ids).for_each(|&id| {
        text_of(id);
    });
    name_beam(beam.as_ref(), &mut text_of);
    let options = &request.prompt.options;
    let tokens = trace.meta.tokens.clone();
    let guesses = &derived.guesses;
    if let Some(spec) = &options.ablate {
        let text = &mut text_of;
        trace.meta.ablation = Some(ablation(model, &tokens, spec, k, guesses, text)?);
    }
    if let Some(spec) = &options.patch {
        let special = options.special_tokens;
        let text = &mut text_of;
        trace.meta.patching = Some(patching(model, &tokens, spec, special, text)?);
    }
    if let Some(spec) = &options.attribute {
        let text = &mut text_of;
        trace.meta.attribution = Some(attribution(model, &tokens, spec, guesses, text)?);
    }
    let merges = model
        .tokenizer
        .merges(&request.prompt.text, &trace.meta.tokens);
    merges
        .iter()
        .flat_map(|w| w.bytes.iter().chain(w.merges.iter().map(|m| &m.id)))
        .for_each(|id| {
            text_of(*id);
        });
    trace.meta.generation = generation(&steps, &mut text_of);
    trace.meta.token_texts = texts;
    trace.meta.merges = merges;
    trace.meta.beam = beam;
    for (t, how) in derived.tensors {
        match how {
            Some(how) => trace.insert_derived(&t.name, t.shape, &t.data, how)?,
            None => trace.insert(&t.name, t.shape, &t.data)?,
        }
    }
    Ok(trace)
}

/// The generated steps as the trace keeps them, their tokens named.
pub(crate) fn generation(steps: &[Step], text_of: &mut TextOf) -> Vec<GenerationStep> {
    steps
        .iter()
        .map(|s| GenerationStep {
            id: s.id,
            text: text_of(s.id),
            prob: s.prob,
            top: s
                .top
                .iter()
                .map(|&(id, prob)| Candidate {
                    id,
                    text: text_of(id),
                    prob,
                })
                .collect(),
        })
        .collect()
}

/// Names the tokens of the beam-search tree, if there is one.
pub(crate) fn name_beam(beam: Option<&BeamTree>, text_of: &mut TextOf) {
    beam.iter().flat_map(|tree| &tree.nodes).for_each(|n| {
        text_of(n.id);
    });
}

/// How messages name the prompt.
pub(crate) fn prompt_label(request: &TraceRequest) -> String {
    if request.name.is_empty() {
        "the prompt".to_string()
    } else {
        format!("prompt {:?}", request.name)
    }
}

fn tokenize(model: &Model, request: &TraceRequest) -> Result<Vec<Token>> {
    let name = prompt_label(request);
    if request.prompt.text.is_empty() {
        return Err(ModelError::Prompt(format!(
            "{name} is empty\n  hint: give it some text, e.g. \"The robots will bring\""
        )));
    }
    let tokens = model
        .tokenizer
        .encode_as(&request.prompt.text, request.prompt.options.special_tokens)?;
    let (limit, generate) = (model.config.n_positions(), request.prompt.options.generate);
    if tokens.len() + generate > limit {
        return Err(ModelError::TooLong {
            name,
            model: model.files.id.clone(),
            tokens: tokens.len(),
            generate,
            limit,
        });
    }
    Ok(tokens)
}
