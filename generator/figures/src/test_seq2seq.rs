//! A synthetic encoder-decoder trace for tests: "cannot open file" translated to "impossible
//! d'ouvrir le fichier" by a 2-layer, 2-head Marian-like model, whose cross-attention rows are
//! a softmax of known scores (see [`cross_row`]).

use crate::test_traces::trace_of;
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
/// its tokens, the translation, and `decoder.blocks.L.cross_attn.pattern` for both layers.
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
    trace
}
