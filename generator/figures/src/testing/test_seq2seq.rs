//! A synthetic encoder-decoder trace for tests: "cannot open file" translated to "impossible
//! d'ouvrir le fichier" by a 2-layer, 2-head Marian-like model, whose cross-attention rows are
//! a softmax of known scores (see [`cross_row`]), as are its encoder's and decoder's
//! self-attention rows (see [`self_row`]).

use crate::testing::test_traces::trace_of;
use tracebook_trace::{GenerationStep, Seq2SeqShape, Token, Trace, Translation};

/// The source tokens (the encoder's positions).
pub const SOURCE: [&str; 4] = ["cannot", " open", " file", "</s>"];
/// What decoder position t wrote (`generation[t]`); position 0 reads the start token.
pub const WRITTEN: [&str; 5] = ["impossible", " d'ouvrir", " le", " fichier", "</s>"];
/// The source position head 0 looks at most while writing each token.
pub const ALIGN: [usize; 5] = [0, 1, 2, 2, 3];

/// Row `t` of the cross-attention of `head` in `layer`: head 0 aligns (score 2 + layer on
/// `ALIGN[t]`), head 1 leans towards the end of the source (score k / 2).
pub fn cross_row(layer: usize, head: usize, t: usize) -> Vec<f64> {
    let scores: Vec<f64> = (0..SOURCE.len())
        .map(|k| match head {
            0 if k == ALIGN[t] => 2.0 + layer as f64,
            0 => 0.0,
            _ => k as f64 / 2.0,
        })
        .collect();
    let total: f64 = scores.iter().map(|s| s.exp()).sum();
    scores.iter().map(|s| s.exp() / total).collect()
}

/// The self-attention score of query `q` on key `k` in `layer`, `head` of the encoder
/// (`decoder` false) or the decoder: varied, signed, deterministic.
pub fn self_score(decoder: bool, layer: usize, head: usize, q: usize, k: usize) -> f64 {
    let phase = (layer * 5 + head * 3 + usize::from(decoder) * 2) as f64;
    2.0 * ((q * 3 + k * 2) as f64 * 0.9 + phase).sin()
}

/// Row `q` of a self-attention pattern: the softmax of [`self_score`] over every source token
/// for the encoder, over the keys up to `q` (then zeros, up to the decoder's positions) for
/// the decoder.
pub fn self_row(decoder: bool, layer: usize, head: usize, q: usize) -> Vec<f64> {
    let n = if decoder { WRITTEN.len() } else { SOURCE.len() };
    let open = if decoder { q + 1 } else { n };
    let exps: Vec<f64> = (0..n)
        .map(|k| {
            if k < open {
                self_score(decoder, layer, head, q, k).exp()
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = exps.iter().sum();
    exps.iter().map(|e| e / total).collect()
}

/// `encoder.blocks.L.attn.{scores,pattern}` (2×S×S) and `decoder.blocks.L.self_attn.*`
/// (2×T×T, the scores before the causal mask) for both layers.
fn insert_self_attention(trace: &mut Trace) {
    for (decoder, n, prefix) in [
        (false, SOURCE.len(), "encoder.blocks.{}.attn"),
        (true, WRITTEN.len(), "decoder.blocks.{}.self_attn"),
    ] {
        for layer in 0..2 {
            let name = prefix.replace("{}", &layer.to_string());
            let cells = |q: usize| (0..n).map(move |k| (q, k));
            let scores: Vec<f32> = (0..2)
                .flat_map(|h| {
                    (0..n)
                        .flat_map(cells)
                        .map(move |(q, k)| self_score(decoder, layer, h, q, k) as f32)
                })
                .collect();
            let pattern: Vec<f32> = (0..2)
                .flat_map(|h| (0..n).flat_map(move |q| self_row(decoder, layer, h, q)))
                .map(|w| w as f32)
                .collect();
            let shape = vec![2, n, n];
            trace
                .insert(&format!("{name}.scores"), shape.clone(), &scores)
                .unwrap();
            trace
                .insert(&format!("{name}.pattern"), shape, &pattern)
                .unwrap();
        }
    }
}

fn tokens(texts: &[&str], first_id: u32) -> (String, Vec<Token>) {
    let mut text = String::new();
    let tokens = texts
        .iter()
        .zip(first_id..)
        .map(|(t, id)| {
            let start = text.len();
            text.push_str(t);
            Token {
                id,
                text: t.to_string(),
                start,
                end: text.len(),
            }
        })
        .collect();
    (text, tokens)
}

/// The encoder-decoder trace: the synthetic model's meta made a Marian's, with the source as
/// its tokens, the translation, and `decoder.blocks.L.cross_attn.pattern` for both layers
/// (and the self-attention of [`insert_self_attention`]).
pub fn seq2seq_trace() -> Trace {
    let mut meta = trace_of(&[10, 11, 12]).meta.clone();
    meta.model.id = "test/tiny-marian".to_string();
    let config = &mut meta.model.config;
    config.model_type = Some("marian".to_string());
    config.seq2seq = Some(Seq2SeqShape {
        encoder_layers: 2,
        encoder_heads: 2,
        encoder_ffn_dim: 32,
        decoder_ffn_dim: 32,
        positions: "sinusoidal".to_string(),
        scale_embedding: Some(true),
        tie_word_embeddings: Some(true),
    });
    let (_, source) = tokens(&SOURCE, 100);
    meta.prompt.text = "cannot open file".to_string();
    meta.tokens = source;
    let mut positions = vec!["<pad>"];
    positions.extend(&WRITTEN[..WRITTEN.len() - 1]);
    let (_, positions) = tokens(&positions, 200);
    meta.generation = WRITTEN
        .iter()
        .zip(201..)
        .map(|(text, id)| GenerationStep {
            id,
            text: text.to_string(),
            prob: 0.9,
            top: Vec::new(),
        })
        .collect();
    meta.translation = Some(Translation {
        text: "impossible d'ouvrir le fichier".to_string(),
        tokens: positions,
    });
    meta.beam = None;
    meta.merges = Vec::new();
    let mut trace = Trace::new(meta);
    let (t, s) = (WRITTEN.len(), SOURCE.len());
    for layer in 0..2 {
        let data: Vec<f32> = (0..2)
            .flat_map(|h| (0..t).flat_map(move |q| cross_row(layer, h, q)))
            .map(|w| w as f32)
            .collect();
        let name = format!("decoder.blocks.{layer}.cross_attn.pattern");
        trace.insert(&name, vec![2, t, s], &data).unwrap();
    }
    insert_self_attention(&mut trace);
    trace
}

/// Beam tree nodes of [`seq2seq_beam_trace`]: (parent, token id, text, ln p), breadth first.
/// From `<pad>`: "impossible" (−0.2) or "ne" (−0.9); "ne" then `</s>` (−0.4, ended at −1.3)
/// or " peut"; "impossible d'ouvrir" (−0.5) then " le" (−1.5). Width 2 keeps "impossible
/// d'ouvrir" and "ne</s>" at step 2, then the ended "ne</s>" (the best, −1.3) and
/// "impossible d'ouvrir le", which greedy decoding writes.
pub const BEAM: [(Option<usize>, u32, &str, f32); 10] = [
    (None, 201, "impossible", -0.2),
    (None, 210, "ne", -0.9),
    (Some(0), 202, " d'ouvrir", -0.3),
    (Some(0), 205, "</s>", -2.5),
    (Some(1), 205, "</s>", -0.4),
    (Some(1), 211, " peut", -1.0),
    (Some(2), 203, " le", -1.0),
    (Some(2), 212, " un", -2.0),
    (Some(5), 213, " pas", -0.1),
    (Some(5), 205, "</s>", -2.9),
];

/// [`seq2seq_trace`] with a beam-search tree of width 2 over 3 steps ([`BEAM`]), as a
/// prompt with `beams = 2` records it: `</s>` ends a branch.
pub fn seq2seq_beam_trace() -> Trace {
    let mut trace = seq2seq_trace();
    let meta = &mut trace.meta;
    meta.prompt.options.beams = Some(2);
    let nodes = BEAM.iter().map(|&(parent, id, text, logprob)| {
        meta.token_texts.insert(id, text.to_string());
        tracebook_trace::BeamNode {
            parent,
            id,
            logprob,
        }
    });
    let nodes = nodes.collect();
    meta.beam = Some(tracebook_trace::BeamTree {
        width: 2,
        steps: 3,
        nodes,
    });
    trace
}
