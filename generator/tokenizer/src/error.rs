//! Errors of the tokenizer crate: each names the file involved and how to fix the problem.

use std::path::PathBuf;

/// Anything that can go wrong while loading, building or running a tokenizer.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error(
        "cannot read tokenizer file {}: {source} (check the path; a model folder \
         with neither tokenizer.json nor tokenizer.model uses the built-in GPT-2 tokenizer)",
        path.display()
    )]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error(
        "{} is not a valid tokenizer.json: {message} (download it again from the model's \
         repository, or delete it to fall back to the built-in GPT-2 tokenizer)",
        path.display()
    )]
    Parse { path: PathBuf, message: String },

    #[error(
        "{} is neither a byte-level (GPT-2 style) nor a SentencePiece-style tokenizer: its \
         decoder is {decoder}, so token texts cannot be read from its vocabulary (load it with \
         `Tokenizer::from_file` instead)",
        path.display()
    )]
    NotByteLevel { path: PathBuf, decoder: String },

    #[error(
        "model folder {dir} has a SentencePiece tokenizer.model but no tokenizer.json, and \
         tracebook reads tokenizer.json only\n  hint: convert it once with transformers \
         (pip install transformers sentencepiece protobuf): python -c \"from transformers \
         import AutoTokenizer; AutoTokenizer.from_pretrained('{dir}').save_pretrained('{dir}')\"",
        dir = dir.display()
    )]
    SentencePieceOnly { dir: PathBuf },

    #[error(
        "could not build the built-in GPT-2 tokenizer: {reason} (this is a bug in \
         tracebook-tokenizer; point the model at a folder with a tokenizer.json to work around it)"
    )]
    Builtin { reason: String },

    #[error("could not tokenize the text: {message}")]
    Encode { message: String },

    #[error(
        "token id {id} is outside the vocabulary of {vocab_size} tokens (the ids were probably \
         made with another tokenizer; re-run `tracebook trace` to regenerate them)"
    )]
    UnknownId { id: u32, vocab_size: usize },

    #[error("could not decode token ids: {message}")]
    Decode { message: String },

    #[error("could not serialize the tokenizer to JSON: {message}")]
    Serialize { message: String },

    #[error(
        "cannot read {}: {source} (a Marian model folder holds source.spm, target.spm and \
         vocab.json, as Helsinki-NLP/opus-mt-* checkpoints on the Hugging Face hub do)",
        path.display()
    )]
    MarianRead {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error(
        "{} is not a Marian tokenizer file tracebook can use: {message} (download it again \
         from the model's repository)",
        path.display()
    )]
    MarianFile { path: PathBuf, message: String },

    #[error(
        "{} is not a valid SentencePiece model: {message} (download it again from the model's \
         repository)",
        path.display()
    )]
    SentencePiece { path: PathBuf, message: String },

    #[error(
        "{} is a SentencePiece model tracebook cannot encode with: {reason}; tracebook reads \
         unigram models without byte fallback or user-defined pieces, as Marian (opus-mt) \
         checkpoints ship them",
        path.display()
    )]
    UnsupportedSentencePiece { path: PathBuf, reason: String },
}
