//! A tiny Marian folder for tests of encoder-decoder traces.

use std::path::Path;
use tracebook_model::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use tracebook_model::seq2seq::testmodel;
use tracebook_model::testmodel::StoredDtype;

/// A tiny Marian folder with a tokenizer.json of its own (a byte-level BPE of 300 tokens
/// trained here), as `train --pairs` writes one: `</s>` is id 0, `<pad>` (the decoder's
/// start token) id 2.
pub fn folder_with_tokenizer(dir: &Path) {
    let config = Seq2SeqConfig::tiny(Seq2SeqKind::Marian)
        .with("vocab_size", "300")
        .unwrap()
        .with("decoder_start_token_id", "2")
        .unwrap()
        .with("pad_token_id", "2")
        .unwrap();
    testmodel::write(dir, &config, 7, StoredDtype::F32).unwrap();
    let texts: Vec<String> = (0..50)
        .map(|i| format!("cannot open file {i}\timpossible d'ouvrir le fichier {i}"))
        .collect();
    let tokenizer =
        tracebook_tokenizer::train_byte_level_bpe(&texts, 300, &["</s>", "<unk>", "<pad>"])
            .unwrap();
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_json().unwrap()).unwrap();
}
